#!/usr/bin/env python3
"""Whether the log commands answer byte for byte as a baseline revision does: for speed work on the reader.

    python bench/same_log_answers.py --baseline main [LOG ...]

Runs ``karptui logs parse`` (jsonl and table) and ``karptui history`` (json, csv and table) on every LOG
(default: every paste of tests/log_corpus) with this tree and with REV (``git archive`` into a temporary
directory), and compares stdout, stderr and exit status. A file over ``--table-limit`` MiB gets only the
JSON outputs (a table of a day's log is slow and says what the JSON does). Each tree runs in one child
process that calls the command line once per file and output, so the comparison costs the commands'
time, not a Python start per file. Prints one line per difference and a total; exit 1 if any.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

COMMANDS = (
    ("logs-jsonl", ("logs", "parse", "{}", "--output", "jsonl"), True),
    ("logs-table", ("logs", "parse", "{}"), False),
    ("history-json", ("history", "{}", "--output", "json"), True),
    ("history-csv", ("history", "{}", "--output", "csv"), False),
    ("history-table", ("history", "{}"), False),
)

# Run in the child, with the tree first on sys.path: each command's stdout and stderr go to files, and a
# digest of each (outputs of a day's log are hundreds of MiB) is printed as one JSON line.
_CHILD = r"""
import hashlib, io, json, os, sys
sys.path.insert(0, os.getcwd())
from karptui.cli import main
jobs = json.loads(sys.stdin.read())
real_out, real_err = sys.stdout, sys.stderr
for name, argv, out_path in jobs:
    with open(out_path, "w", encoding="utf-8") as out, open(out_path + ".err", "w", encoding="utf-8") as err:
        sys.stdout, sys.stderr = out, err
        try:
            code = main(argv)
        except SystemExit as exc:
            code = exc.code
        finally:
            sys.stdout, sys.stderr = real_out, real_err
    digests = []
    for path in (out_path, out_path + ".err"):
        with open(path, "rb") as fh:
            digests.append(hashlib.sha256(fh.read()).hexdigest())
        os.unlink(path)
    print(json.dumps([name, code, *digests]), flush=True)
"""


def jobs_for(logs: list[Path], table_limit: float, scratch: Path) -> list:
    jobs = []
    for number, log in enumerate(logs):
        small = log.stat().st_size <= table_limit * 2**20
        for name, argv, always in COMMANDS:
            if always or small:
                jobs.append((f"{log.name} {name}", [a.replace("{}", str(log)) for a in argv],
                             str(scratch / f"{number}-{name}")))
    return jobs


def run_tree(tree: Path, jobs: list) -> dict:
    done = subprocess.run([sys.executable, "-c", _CHILD], cwd=tree, input=json.dumps(jobs), capture_output=True,
                          text=True, check=False, env={**os.environ, "PYTHONPATH": str(tree)})
    if done.returncode != 0:
        raise SystemExit(f"same_log_answers.py: {tree.name}: {done.stderr.strip()[-400:]}")
    return {row[0]: row[1:] for row in map(json.loads, done.stdout.splitlines())}


def baseline_tree(rev: str, under: Path) -> Path:
    """REV's ``karptui`` package alone, unpacked by ``git archive`` (no worktree to clean up)."""
    path = under / "baseline"
    path.mkdir()
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev, "karptui"], capture_output=True, check=False)
    if archive.returncode != 0:
        raise SystemExit(f"same_log_answers.py: --baseline {rev}: not a git revision of this repository")
    subprocess.run(["tar", "-x", "-C", str(path)], input=archive.stdout, check=True)
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("logs", nargs="*", type=Path, help="log files (default: tests/log_corpus/*.log)")
    parser.add_argument("--baseline", metavar="REV", default="main")
    parser.add_argument("--table-limit", type=float, default=1.0, metavar="MIB")
    args = parser.parse_args()
    logs = [log.resolve() for log in args.logs] or sorted((ROOT / "tests" / "log_corpus").glob("*.log"))
    with tempfile.TemporaryDirectory() as tmp:
        scratch = Path(tmp)
        jobs = jobs_for(logs, args.table_limit, scratch)
        base = run_tree(baseline_tree(args.baseline, scratch), jobs)
        mine = run_tree(ROOT, jobs)
    differ = [name for name, _, _ in jobs if base.get(name) != mine.get(name)]
    for name in differ:
        print(f"DIFFER {name}: baseline {base.get(name)} current {mine.get(name)}")
    print(f"{len(jobs) - len(differ)} of {len(jobs)} outputs the same as {args.baseline} "
          f"({len(logs)} logs; stdout, stderr and exit status)")
    return 1 if differ else 0


if __name__ == "__main__":
    sys.exit(main())
