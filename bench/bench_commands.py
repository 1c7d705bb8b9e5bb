#!/usr/bin/env python3
"""Every figure of issue 28 as a user waits for it: whole commands, beside their yardstick.

    python bench/bench_commands.py                                   # classic,web,batch at 1k,5k,20k
    python bench/bench_commands.py --shapes web --sizes 1000 --repeat 3
    python bench/bench_commands.py --sizes 1000,5000 --baseline main --json figures.json
    python bench/bench_commands.py --sizes 1000 --check-hashes figures.json

For each shape and size the cluster file is generated once (``gen_cluster.py --shape S``,
cached under ``--cache``, a temporary directory by default), then each command runs in its own
process, timed from process start to exit, as ``python -m karptui ...`` from the tree under
test: ``--version``, ``snapshot info FILE``, ``simulate FILE -o json``, ``simulate FILE`` (its table,
as a user at a terminal reads it; at 8,600 pending pods the table was most of the wait) and, up to
``--consolidate-max`` nodes (or with ``--all``), ``simulate --consolidate FILE -o json``. The
yardstick, a plain ``json.load`` of the same file in its own process, runs in the same round,
so a busy machine slows both alike. Each tree's karptui is compiled to bytecode first, as
installing it would (:func:`compile_tree`). With ``--baseline REV`` a temporary git worktree of REV
runs the same commands, the two trees alternating round by round. The fastest of
``--repeat`` rounds is the figure (the slowest is kept in the JSON); peak RSS and CPU time
(user + system) are each child's own (``os.wait4``), and a second table takes the ratios on CPU
time, which a machine shared with other work stretches far less than wall time. Children run
with ``PYTHONHASHSEED=0`` and ``COLUMNS=120``, so two runs differ in their code, not in string
hashing or the terminal's width.

Pending pods/s is the number of pending pods ``simulate`` tried divided by its time minus
``snapshot info``'s (the open). The sha256 of each ``simulate`` answer is printed, so an
optimisation can show its answers unchanged (``--check-hashes`` with an earlier ``--json``
file). Prints figures; asserts nothing except, with ``--check-hashes``, the exit status.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import gen_cluster  # noqa: E402  (the shapes are the generator's)

# Issue 28's targets, beside each figure.
TARGET_OPEN = 1.0          # snapshot info / json.load
TARGET_PODS_PER_S = 3000   # pending pods/s, simulate minus the open
TARGET_CONSOLIDATE = 8.0   # simulate --consolidate / snapshot info
YARDSTICK = "import json, sys; json.load(open(sys.argv[1], 'rb'))"
SUMMARY = re.compile(r"(\d+) nodes, (\d+) pods \((\d+) pending\)")
# The commands a round runs besides the yardstick (json.load), in their order.
COMMANDS = ("version", "info", "simulate", "table", "consolidate")


class UsageError(Exception):
    """Bad arguments: one line and exit status 2."""


@dataclass
class Run:
    seconds: float
    peak_mib: float
    code: int
    cpu: float = 0.0      # user + system seconds of the child (a loaded machine stretches seconds, not this)
    sha256: str = ""
    pending: int | None = None
    why: str = ""         # why it gave no figure: "timed out after 1800 s", "exit 2: ..."


@dataclass
class Figures:
    """Every round's runs of one command on one tree, shape and size."""
    runs: list = field(default_factory=list)

    def best(self) -> Run | None:
        ok = [r for r in self.runs if r.code == 0]
        return min(ok, key=lambda r: r.seconds) if ok else None

    def worst(self) -> Run | None:
        ok = [r for r in self.runs if r.code == 0]
        return max(ok, key=lambda r: r.seconds) if ok else None

    def why_not(self) -> str:
        """Why no round gave a figure (the last round's reason); "" when one did."""
        return "" if self.best() is not None or not self.runs else self.runs[-1].why


def _csv(text: str, kind, what: str) -> list:
    try:
        items = [kind(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--{what}: not a comma-separated list: {text!r}") from None
    if not items:
        raise UsageError(f"--{what}: empty")
    return items


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="bench_commands.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default="classic,web,batch", help="cluster shapes (gen_cluster.py --shape)")
    p.add_argument("--sizes", default="1000,5000,20000", help="node counts")
    p.add_argument("--repeat", type=int, default=1, help="rounds; the fastest is the figure")
    p.add_argument("--baseline", metavar="REV", help="also run this git revision, alternating with the current tree")
    p.add_argument("--cache", metavar="DIR", help="where generated clusters are kept (default: a temporary directory)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--consolidate-max", type=int, default=2000, metavar="NODES",
                   help="run simulate --consolidate only up to this many nodes (default 2000)")
    p.add_argument("--all", action="store_true", help="run simulate --consolidate at every size")
    p.add_argument("--only", metavar="NAMES",
                   help=f"run only these commands (some of {','.join(COMMANDS)}; json.load always runs)")
    p.add_argument("--timeout", type=float, default=1800, help="seconds per command (default 1800)")
    p.add_argument("--json", metavar="OUT", help="write every figure and hash to this file")
    p.add_argument("--check-hashes", metavar="FILE", help="compare simulate's answers with a file --json wrote")
    p.add_argument("--importtime", action="store_true",
                   help="also print -X importtime totals of --version and snapshot info")
    args = p.parse_args(argv)
    try:
        shapes_and_sizes(args)
        args.only = only_commands(args.only)
        if args.check_hashes:
            args.expected = _read_hashes(args.check_hashes)
    except UsageError as exc:
        p.exit(2, f"bench_commands.py: {exc}\n")
    return args


def shapes_and_sizes(args) -> None:
    """``--shapes``, ``--sizes`` and ``--repeat`` read and checked (UsageError), for this bench and the
    ones that run it (all_figures.py)."""
    args.shapes = _csv(args.shapes, str, "shapes")
    args.sizes = _csv(args.sizes, int, "sizes")
    unknown = [s for s in args.shapes if s not in gen_cluster.SHAPES]
    if unknown:
        raise UsageError(f"--shapes: unknown shape {unknown[0]!r} (known: {', '.join(gen_cluster.SHAPES)})")
    if any(n < 1 for n in args.sizes):
        raise UsageError("--sizes: node counts must be at least 1")
    if args.repeat < 1:
        raise UsageError("--repeat: must be at least 1")


def only_commands(text: str | None) -> tuple | None:
    """``--only info,simulate``: the commands named, checked against :data:`COMMANDS` (None: all)."""
    if text is None:
        return None
    names = _csv(text, str, "only")
    unknown = [n for n in names if n not in COMMANDS]
    if unknown:
        raise UsageError(f"--only: unknown command {unknown[0]!r} (known: {', '.join(COMMANDS)})")
    return tuple(names)


def _read_hashes(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as fh:
            hashes = json.load(fh)["hashes"]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise UsageError(f"--check-hashes {path}: not a file bench_commands.py --json wrote ({exc})") from None
    if not isinstance(hashes, dict):
        raise UsageError(f"--check-hashes {path}: 'hashes' is not an object")
    return hashes


# --- running a child ----------------------------------------------------------

def kill_group(pid: int) -> None:
    """The child and every process it started (a fake API server, a probe): a child started with
    ``start_new_session`` leads its own process group, so nothing it made outlives a time budget."""
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_child(argv: list, cwd: Path, timeout: float, keep_stdout: bool = False) -> tuple[Run, bytes]:
    """Start to exit of one process, its own peak RSS (ru_maxrss of wait4) and its stdout; past
    ``timeout`` seconds it is killed with its process group and the run says so (``why``)."""
    env = dict(os.environ, PYTHONHASHSEED="0", COLUMNS="120")
    env.pop("PYTHONPATH", None)
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, cwd=cwd, stdout=out, stderr=err, stdin=subprocess.DEVNULL, env=env,
                                start_new_session=True)
        timed_out = threading.Event()

        def stop() -> None:
            timed_out.set()
            kill_group(proc.pid)

        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            _, status, usage = os.wait4(proc.pid, 0)
        except BaseException:   # interrupted (Ctrl-C, SIGTERM): the child goes too
            kill_group(proc.pid)
            raise
        finally:
            timer.cancel()
        seconds = time.perf_counter() - start
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        data = out.read()
        why = ""
        if timed_out.is_set():
            why = f"timed out after {timeout:g} s (its time budget)"
        elif proc.returncode != 0:
            err.seek(0)
            tail = err.read().decode("utf-8", "replace").strip().splitlines()[-1:]
            why = f"exit {proc.returncode}: {' '.join(tail)}"
        if why:
            print(f"  ! {' '.join(map(str, argv[1:]))}: {why}", file=sys.stderr)
    run = Run(seconds, usage.ru_maxrss / 1024, proc.returncode if not timed_out.is_set() else -9,
              usage.ru_utime + usage.ru_stime, why=why)
    return run, data if keep_stdout else b""


def karptui(*words) -> list:
    return [sys.executable, "-m", "karptui", *map(str, words)]


def commands(path: Path, nodes: int, args) -> dict:
    """name -> argv, in the order a round runs them."""
    cmds = {"json.load": [sys.executable, "-c", YARDSTICK, str(path)],
            "version": karptui("--version"),
            "info": karptui("snapshot", "info", path),
            "simulate": karptui("simulate", path, "-o", "json"),
            "table": karptui("simulate", path)}
    if args.all or nodes <= args.consolidate_max:
        cmds["consolidate"] = karptui("simulate", "--consolidate", path, "-o", "json")
    only = getattr(args, "only", None)
    return {name: argv for name, argv in cmds.items() if only is None or name == "json.load" or name in only}


def import_total(argv: list, cwd: Path) -> float:
    """Seconds of imports at the top level of ``-X importtime`` (each import's cumulative time)."""
    env = dict(os.environ)
    env.pop("PYTHONPATH", None)
    done = subprocess.run([argv[0], "-X", "importtime", *argv[1:]], cwd=cwd, env=env, capture_output=True,
                          text=True, check=False)
    total = 0
    for line in done.stderr.splitlines():
        parts = line.split("|")
        if len(parts) == 3 and parts[0].startswith("import time:") and not parts[2].startswith("  "):
            try:
                total += int(parts[1])
            except ValueError:
                continue
    return total / 1e6


# --- clusters -----------------------------------------------------------------

def cluster_file(cache: Path, shape: str, nodes: int, seed: int, timeout: float) -> tuple[Path, dict]:
    """The cached cluster of this shape and size, generated first if missing."""
    path = cache / f"{shape}-{nodes}n-seed{seed}.json"
    meta = path.with_suffix(".summary.json")
    if not (path.exists() and meta.exists()):
        print(f"generating {path.name} ...", file=sys.stderr, flush=True)
        done = subprocess.run([sys.executable, str(HERE / "gen_cluster.py"), "--shape", shape, "--nodes", str(nodes),
                               "--seed", str(seed), "--out", str(path)], capture_output=True, text=True,
                              timeout=timeout, check=False)
        found = SUMMARY.search(done.stderr)
        if done.returncode != 0 or not found:
            raise SystemExit(f"bench_commands.py: generating {path.name} failed: {done.stderr.strip()[-300:]}")
        summary = {"nodes": int(found[1]), "pods": int(found[2]), "pending": int(found[3]),
                   "megabytes": round(path.stat().st_size / 1e6, 1)}
        meta.write_text(json.dumps(summary))
    return path, json.loads(meta.read_text())


# --- trees --------------------------------------------------------------------

def baseline_tree(rev: str, under: Path) -> Path:
    """A detached git worktree of REV (removed by :func:`drop_tree`)."""
    check = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--verify", f"{rev}^{{commit}}"],
                           capture_output=True, text=True, check=False)
    if check.returncode != 0:
        raise SystemExit(f"bench_commands.py: --baseline {rev}: not a git revision of this repository")
    path = under / "baseline"
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "--quiet", str(path),
                    check.stdout.strip()], check=True)
    return path


def compile_tree(path: Path) -> None:
    """The tree's karptui compiled to bytecode, as installing it would: no child pays for compiling
    the source (an environment with PYTHONDONTWRITEBYTECODE would otherwise make every child
    compile all it imports, a cost an installed karptui does not have and the yardstick never pays)."""
    subprocess.run([sys.executable, "-m", "compileall", "-q", str(path / "karptui")], check=True,
                   stdout=subprocess.DEVNULL)


def drop_tree(path: Path) -> None:
    subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(path)], check=False)


# --- the figures ----------------------------------------------------------------

def measure(args, trees: dict, cache: Path) -> list:
    rows = []
    for shape in args.shapes:
        for nodes in args.sizes:
            path, summary = cluster_file(cache, shape, nodes, args.seed, args.timeout)
            cmds = commands(path, nodes, args)
            figs = {tree: {name: Figures() for name in cmds} for tree in trees}
            budgets = getattr(args, "timeouts", None) or {}
            for rnd in range(args.repeat):
                order = list(trees) if rnd % 2 == 0 else list(reversed(trees))
                for tree in order:
                    for name, argv in cmds.items():
                        if any(r.why.startswith("timed out") for r in figs[tree][name].runs):
                            continue   # past its budget once: another round would only wait as long again
                        keep = name in ("simulate", "consolidate")
                        run, out = run_child(argv, trees[tree], budgets.get(name, args.timeout), keep_stdout=keep)
                        if keep and run.code == 0:
                            run.sha256 = hashlib.sha256(out).hexdigest()
                            try:
                                run.pending = len(json.loads(out)["pods"])
                            except (ValueError, KeyError, TypeError):
                                run.pending = None
                        figs[tree][name].runs.append(run)
                        print(f"  {shape} {nodes} {tree} {name}: {run.seconds:.2f} s", file=sys.stderr, flush=True)
            for tree in trees:
                row = {"shape": shape, "nodes": nodes, "pods": summary["pods"], "pending_in_file": summary["pending"],
                       "megabytes": summary["megabytes"], "tree": tree}
                row.update(derive(figs[tree]))
                if args.importtime:
                    row["import_version_s"] = import_total(karptui("--version"), trees[tree])
                    row["import_info_s"] = import_total(karptui("snapshot", "info", path), trees[tree])
                rows.append(row)
    return rows


def derive(figs: dict) -> dict:
    """One row's figures from the rounds' runs: the fastest, the slowest, the ratios."""
    out: dict = {}
    for name, f in figs.items():
        best, worst = f.best(), f.worst()
        if f.why_not():
            out.setdefault("failed", {})[name] = f.why_not()
        out[name] = None if best is None else {
            "seconds": round(best.seconds, 3), "slowest": round(worst.seconds, 3),
            "cpu": round(min(r.cpu for r in f.runs if r.code == 0), 3),
            "peak_mib": round(max(r.peak_mib for r in f.runs if r.code == 0), 1)}
        if best is not None and best.sha256:
            shas = {r.sha256 for r in f.runs if r.code == 0}
            out[name]["sha256"] = best.sha256 if len(shas) == 1 else "differs between rounds"
            out[name]["pending"] = best.pending
    load, info, sim, cons = (out.get(k) for k in ("json.load", "info", "simulate", "consolidate"))
    out["open_ratio"] = round(info["seconds"] / load["seconds"], 2) if info and load else None
    out["pods_per_s"] = None
    if sim and info and sim.get("pending") is not None:
        spent = sim["seconds"] - info["seconds"]
        out["pods_per_s"] = round(sim["pending"] / spent) if spent > 0 else None
    out["consolidate_ratio"] = round(cons["seconds"] / info["seconds"], 2) if cons and info else None
    # the same figures in CPU time (user + system), which a machine shared with other work
    # stretches far less than the seconds from start to exit
    out["open_ratio_cpu"] = round(info["cpu"] / load["cpu"], 2) if info and load and load["cpu"] > 0 else None
    out["pods_per_s_cpu"] = None
    if sim and info and sim.get("pending") is not None:
        spent = sim["cpu"] - info["cpu"]
        out["pods_per_s_cpu"] = round(sim["pending"] / spent) if spent > 0 else None
    shown = out.get("table")   # the same pods as a table: the pending count is the JSON's
    out["pods_per_s_table_cpu"] = None
    if shown and sim and info and sim.get("pending") is not None:
        spent = shown["cpu"] - info["cpu"]
        out["pods_per_s_table_cpu"] = round(sim["pending"] / spent) if spent > 0 else None
    return out


def hashes(rows: list) -> dict:
    """"shape-nodes" -> {"simulate": sha, "consolidate": sha} of the current tree."""
    out = {}
    for row in rows:
        if row["tree"] != "current":
            continue
        out[f"{row['shape']}-{row['nodes']}"] = {k: row[k]["sha256"] for k in ("simulate", "consolidate")
                                                 if row.get(k) and "sha256" in row[k]}
    return out


def against_baseline(rows: list) -> list:
    """Whether the current tree answers as the baseline did, per shape, size and command."""
    base = {(r["shape"], r["nodes"]): r for r in rows if r["tree"] == "baseline"}
    lines = []
    for r in rows:
        b = base.get((r["shape"], r["nodes"]))
        if r["tree"] != "current" or b is None:
            continue
        for cmd in ("simulate", "consolidate"):
            if r.get(cmd) and b.get(cmd):
                same = r[cmd].get("sha256") == b[cmd].get("sha256")
                lines.append(f"answers {r['shape']}-{r['nodes']} {cmd}: "
                             f"{'same as the baseline' if same else 'DIFFER from the baseline'}")
    return lines


def compare_hashes(mine: dict, expected: dict) -> list:
    """Lines naming each answer that differs from the expected one (none: unchanged)."""
    bad = []
    for key, answers in mine.items():
        for cmd, sha in answers.items():
            want = expected.get(key, {}).get(cmd)
            if want is not None and want != sha:
                bad.append(f"{key} {cmd}: {sha[:16]} (expected {want[:16]})")
    return bad


def failures(rows: list) -> list:
    """One line per command that gave no figure, with why (a time budget, an exit status)."""
    return [f"no figure: {r['shape']} {r['nodes']:,} nodes ({r['tree']}) {name}: {why}"
            for r in rows for name, why in (r.get("failed") or {}).items()]


def _s(fig) -> str:
    return "-" if not fig else f"{fig['seconds']:.2f}"


def _mib(fig) -> str:
    return "-" if not fig else f"{fig['peak_mib']:.0f}"


def _cpu(fig) -> str:
    return "-" if not fig else f"{fig['cpu']:.2f}"


def cpu_table(rows: list) -> str:
    """The same commands in CPU seconds (user + system) and the targets' ratios taken on them."""
    head = ("shape", "nodes", "tree", "json.load cpu s", "info cpu s", "info/json.load cpu (≤1.0)",
            "simulate cpu s", "pending pods/s cpu (≥3000)", "as a table: cpu s", "pods/s", "consolidate cpu s")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = (r["shape"], f"{r['nodes']:,}", r["tree"], _cpu(r["json.load"]), _cpu(r.get("info")),
                 "-" if r.get("open_ratio_cpu") is None else f"{r['open_ratio_cpu']:.2f}", _cpu(r.get("simulate")),
                 "-" if r.get("pods_per_s_cpu") is None else f"{r['pods_per_s_cpu']:,}", _cpu(r.get("table")),
                 "-" if r.get("pods_per_s_table_cpu") is None else f"{r['pods_per_s_table_cpu']:,}",
                 _cpu(r.get("consolidate")))
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def table(rows: list) -> str:
    head = ("shape", "nodes", "pods", "pending", "tree", "json.load s", "--version s", "info s",
            "info/json.load (≤1.0)", "simulate s", "pending pods/s (≥3000)", "consolidate s",
            "consolidate/info (≤8)", "peak MiB json.load/info/sim/cons", "simulate sha256")
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        sim = r.get("simulate")
        cells = (r["shape"], f"{r['nodes']:,}", f"{r['pods']:,}", "-" if not sim else f"{sim['pending']:,}",
                 r["tree"], _s(r["json.load"]), _s(r.get("version")), _s(r.get("info")),
                 "-" if r["open_ratio"] is None else f"{r['open_ratio']:.2f}", _s(sim),
                 "-" if r["pods_per_s"] is None else f"{r['pods_per_s']:,}", _s(r.get("consolidate")),
                 "-" if r["consolidate_ratio"] is None else f"{r['consolidate_ratio']:.1f}",
                 "/".join(_mib(r.get(k)) for k in ("json.load", "info", "simulate", "consolidate")),
                 "-" if not sim else sim.get("sha256", "-")[:16])
        lines.append("| " + " | ".join(map(str, cells)) + " |")
    return "\n".join(lines)


def growth(rows: list) -> str:
    """Growth of each time from the last size but one to the last, beside json.load's (issue 28, item 6)."""
    lines = []
    for shape in dict.fromkeys(r["shape"] for r in rows):
        for tree in dict.fromkeys(r["tree"] for r in rows):
            mine = sorted((r for r in rows if r["shape"] == shape and r["tree"] == tree), key=lambda r: r["nodes"])
            if len(mine) < 2:
                continue
            a, b = mine[-2], mine[-1]
            if not (a.get("json.load") and b.get("json.load")):
                continue   # no yardstick at one of the sizes (its reason is printed with the others)
            base = b["json.load"]["seconds"] / a["json.load"]["seconds"]
            parts = [f"json.load {base:.2f}x"]
            for name in ("info", "simulate", "consolidate"):
                if a.get(name) and b.get(name):
                    g = b[name]["seconds"] / a[name]["seconds"]
                    parts.append(f"{name} {g:.2f}x{' (faster than the yardstick)' if g > base * 1.05 else ''}")
            lines.append(f"growth {shape} {tree} {a['nodes']}->{b['nodes']} nodes: " + ", ".join(parts))
    return "\n".join(lines)


def _stop(signum, frame):
    raise SystemExit(128 + signum)  # run the finally blocks: the baseline worktree goes away


def main(argv=None) -> int:
    args = parse_args(argv)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    with tempfile.TemporaryDirectory(prefix="karptui-bench-") as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp)
        cache.mkdir(parents=True, exist_ok=True)
        trees = {"current": ROOT}
        if args.baseline:
            trees = {"baseline": baseline_tree(args.baseline, Path(tmp)), "current": ROOT}
        for tree in trees.values():
            compile_tree(tree)
        try:
            rows = measure(args, trees, cache)
        finally:
            if args.baseline:
                drop_tree(trees["baseline"])
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, load average "
          f"{' '.join(f'{x:.1f}' for x in os.getloadavg())}; fastest of {args.repeat} round(s)")
    print(table(rows))
    print(cpu_table(rows))
    text = growth(rows)
    if text:
        print(text)
    if args.importtime:
        for r in rows:
            print(f"imports ({r['tree']}): --version {r['import_version_s']:.3f} s, "
                  f"snapshot info {r['import_info_s']:.3f} s")
    for line in failures(rows):
        print(line)
    mine = hashes(rows)
    for key, answers in mine.items():
        for cmd, sha in answers.items():
            print(f"sha256 {key} {cmd} {sha}")
    for line in against_baseline(rows):
        print(line)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"rows": rows, "hashes": mine, "repeat": args.repeat, "baseline": args.baseline}, fh, indent=1)
    if args.check_hashes:
        bad = compare_hashes(mine, args.expected)
        for line in bad:
            print(f"answer changed: {line}")
        return 1 if bad else 0
    return 0


if __name__ == "__main__":
    sys.exit(main())
