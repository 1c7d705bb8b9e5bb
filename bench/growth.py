#!/usr/bin/env python3
"""How each figure grows with the cluster: every bench at several sizes, in a fresh process each.

    python bench/growth.py                                  # every bench at 1k, 5k, 20k nodes (pods x10)
    python bench/growth.py --sizes 200,1000 --benches live,load
    python bench/growth.py --sizes 1000,5000,20000 --benches load --timeout 3600

For each size N (nodes; pods are 10 N) each bench runs once as ``python bench/bench_X.py``
with the arguments in SIZED below, in its own interpreter (so one size's heap never colours
the next). A bench names its figures through bench/figures.py; for one that only prints,
every printed number with a unit is taken, named by its order and the words opening its line.
Then one table: each figure at each size, the peak RSS of the bench's process tree, and the
growth from the last size but one to the last (20k / 5k) beside what linear growth predicts
(4.0). For a rate (pods/s, lines/s) the growth shown is of the cost, size / rate, so it reads
the same way: above the prediction means worse than linear. Prints figures; asserts nothing.
20k nodes is big: the live and load benches' clusters are 800+ MB of JSON; check the disk.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent

# bench -> its arguments for N nodes; pods are 10 N, pending pods N (the rest running)
SIZED = {
    "load": lambda n: ["--nodes", n, "--pods", 10 * n, "--repeat", 1, "--formats", "json"],
    "live": lambda n: ["--nodes", n, "--pods", 10 * n, "--seconds", 5],
    "sim": lambda n: ["--nodes", n, "--existing", 9 * n, "--pending", n, "--repeat", 3],
    "karpenter": lambda n: ["--nodes", n, "--pending", n],
    "disruption": lambda n: ["--nodes", n, "--pods", 10 * n],
    "tui": lambda n: ["--nodes", n, "--pods", 10 * n],
    "whatif": None,  # a generated snapshot file: see run()
    "logs": lambda n: ["--megabytes", max(1, n // 10)],  # a log grows with the cluster too: N/10 MiB
}
RATE = re.compile(r"/s$")
PRINTED = re.compile(r"(?P<value>[0-9][0-9,]*(?:\.[0-9]+)?)\s*(?P<unit>ms|s|MiB|GiB|[a-z]+/s)\b")


def printed_figures(text: str) -> list[dict]:
    """Figures from a bench that only prints: every number with a unit, named by its order in
    the output (a bench prints the same lines at every size) and the words opening its line,
    numbers written as N ("4 re-simulate one N-replica workload on N nodes")."""
    found = []
    for line in text.splitlines():
        matches = list(PRINTED.finditer(line))
        opening = re.sub(r"[0-9][0-9,.]*", "N", line[:matches[0].start()]).strip(" :=(") if matches else ""
        for match in matches:
            found.append({"name": f"{len(found) + 1} {opening or 'figure'}",
                          "value": float(match["value"].replace(",", "")), "unit": match["unit"]})
    return found


def run(bench: str, nodes: int, timeout: float, tmp: Path, args: list | None = None) -> tuple[list[dict], str]:
    """One bench at one size: its figures (with the process tree's peak RSS), or why none.
    ``args`` replaces the bench's arguments from SIZED (all_figures.py passes its own);
    the printed output is kept as the figure named "output"'s text for a caller that reads it."""
    if args is not None:
        args = [str(a) for a in args]
    elif bench == "whatif":
        snapshot = tmp / f"cluster-{nodes}.json"
        subprocess.run([sys.executable, str(HERE / "gen_cluster.py"), "--nodes", str(nodes), "--pods",
                        str(10 * nodes), "--format", "json", "--out", str(snapshot)], check=True)
        args = [str(snapshot), "--skip-cancel"]
    else:
        args = [str(a) for a in SIZED[bench](nodes)]
    figures_file = tmp / f"{bench}-{nodes}.jsonl"
    env = dict(os.environ, KARPTUI_BENCH_FIGURES=str(figures_file))
    with tempfile.TemporaryFile("w+") as out:
        # its own process group: past the deadline the bench goes with every process it started
        # (bench_live's fake API server holds gigabytes at 20k nodes and would outlive it)
        child = subprocess.Popen([sys.executable, str(HERE / f"bench_{bench}.py"), *args], stdout=out,
                                 stderr=subprocess.STDOUT, text=True, env=env, cwd=HERE.parent,
                                 start_new_session=True)
        deadline, why = time.monotonic() + timeout, ""
        try:
            while True:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
                if pid:
                    break
                if time.monotonic() > deadline:
                    _kill_group(child.pid)
                    pid, status, usage = os.wait4(child.pid, 0)
                    why = f"timed out after {timeout:g} s (its time budget)"
                    break
                time.sleep(0.2)
        except BaseException:   # interrupted: nothing left running
            _kill_group(child.pid)
            raise
        _kill_group(child.pid)  # a child the bench left behind (it exited without stopping it)
        out.seek(0)
        text = out.read()
    if not why and os.waitstatus_to_exitcode(status) != 0:
        why = f"exit {os.waitstatus_to_exitcode(status)}: {text.strip().splitlines()[-1:]}"
    if figures_file.exists():
        figures = [json.loads(line) for line in figures_file.read_text().splitlines() if line]
    else:
        figures = printed_figures(text)
    figures.append({"name": "peak RSS (bench process tree)", "value": usage.ru_maxrss / 1024, "unit": "MiB"})
    figures.append({"name": "output", "value": 0.0, "unit": "text", "text": text})
    for snapshot in tmp.glob("cluster-*.json"):
        snapshot.unlink()
    return figures, why


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def table(bench: str, sizes: list[int], results: dict[int, list[dict]]) -> list[str]:
    names: list[str] = []
    for size in sizes:
        names += [f["name"] for f in results.get(size, []) if f["name"] not in names and f["unit"] != "text"]
    head = f"{bench + ' figure':56s}" + "".join(f"{_k(s):>12s}" for s in sizes)
    if len(sizes) > 1:
        head += f"{_k(sizes[-1]) + '/' + _k(sizes[-2]):>12s}{'linear':>8s}"
    rows = [head]
    for name in names:
        values = {s: next((f for f in results.get(s, []) if f["name"] == name), None) for s in sizes}
        unit = next(f["unit"] for f in values.values() if f)
        row = f"{(name + ' (' + unit + ')')[:55]:56s}" + "".join(
            f"{values[s]['value']:12,.2f}" if values[s] else f"{'-':>12s}" for s in sizes)
        if len(sizes) > 1:
            last, before = values[sizes[-1]], values[sizes[-2]]
            linear = sizes[-1] / sizes[-2]
            if last and before and last["value"] > 0 and before["value"] > 0:
                growth = last["value"] / before["value"]
                if RATE.search(unit):  # a rate: the cost per size is size / rate
                    growth = linear / growth
                flag = "  worse than linear" if growth > linear * 1.1 else ""
                row += f"{growth:12.2f}{linear:8.1f}{flag}"
        rows.append(row)
    return rows


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,5000,20000", help="node counts, comma-separated (pods x10)")
    parser.add_argument("--benches", default=",".join(SIZED), help=f"some of {', '.join(SIZED)}")
    parser.add_argument("--timeout", type=float, default=1800.0, help="seconds per bench per size")
    args = parser.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    benches = args.benches.split(",")
    unknown = [b for b in benches if b not in SIZED]
    if unknown:
        parser.error(f"no bench named {', '.join(unknown)} (there are {', '.join(SIZED)})")
    with tempfile.TemporaryDirectory() as tmp:
        for bench in benches:
            results: dict[int, list[dict]] = {}
            for size in sizes:
                start = time.perf_counter()
                figures, why = run(bench, size, args.timeout, Path(tmp))
                results[size] = figures
                print(f"# {bench} at {size} nodes: {time.perf_counter() - start:.0f} s{'; ' + why if why else ''}",
                      flush=True)
            print("\n".join(table(bench, sizes, results)), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
