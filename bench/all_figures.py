#!/usr/bin/env python3
"""Every figure of issue 28 beside its yardstick, per shape and size, from one command.

    python bench/all_figures.py                                   # classic,web,batch at 1k, 5k, 20k
    python bench/all_figures.py --sizes 1000,5000 --only open,simulate --json figures.json
    python bench/all_figures.py --shapes classic --sizes 5000,20000 --only open,live,tui

It runs the benches that already measure each figure, each in its own process, and prints one
table per shape: a row per figure, a column per size, each cell the figure beside the
yardstick measured in the same run, then the growth from the last size but one to the last
(20k / 5k) beside the yardstick's own growth (issue 28, item 6: nothing may grow faster than
its yardstick does; such rows are marked).

  open         ``snapshot info`` ÷ ``json.load`` of the same file (bench_commands.py), CPU and wall
  simulate     pending pods/s: pending pods ÷ (``simulate`` − ``snapshot info``), CPU and wall
  consolidate  ``simulate --consolidate`` ÷ ``snapshot info`` (up to ``--consolidate-max`` nodes)
  tui          launch to the first screen ÷ the open: bench_tui.py's first paint (app start to
               the tables filled) added to ``snapshot info``; keys: the slowest key sequence's
               mean CPU per key, and the slowest key's first use in the session (bench_tui.py;
               its cluster is generated in-process, classic only)
  disruption   the Disruption pane's answer, seconds (bench_disruption.py on the shape's file)
  live         initial sync ÷ list-and-decode of a stand-in API server (bench_live.py; classic)
  memory       peak RSS of each command beside json.load's (from the same runs)

The wall-clock figures stretch with the machine's load; CPU time (user + system of each
process) far less, so the ratios are given on both and the load average is printed beside
each shape. Generated clusters are cached under ``--cache`` (a temporary directory by default;
a 20k cluster is 0.9-2.4 GB of JSON: check the disk and
memory first: at 20k, json.load took 5.3 GB on classic and 11.9 GB on batch). Each bench's
figures are also printed on stderr as soon as it ends, so a long run that is stopped keeps
what it measured. Prints figures; asserts nothing.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
import bench_commands  # noqa: E402  (the whole commands and their runner)
import growth  # noqa: E402  (a bench script run at a size, its figures)

# Issue 28's targets.
TARGET_FIRST_PAINT = 1.2     # launch to the first screen / snapshot info
TARGET_KEY_MS = 50.0         # every key
TARGET_DISRUPTION_S = 60.0   # the Disruption pane's answer (5,000 nodes / 50,000 pods)
TARGET_LIVE = 2.0            # initial sync / list-and-decode
GROWTH_SLACK = 1.05          # growth within 5% of the yardstick's is counted as equal

# --only names -> the whole commands bench_commands.py runs for them
FIGURES = ("open", "simulate", "consolidate", "tui", "disruption", "live")
COMMANDS_FOR = {"open": ("info",), "simulate": ("info", "simulate", "table"), "consolidate": ("info", "consolidate"),
                "tui": ("info",), "disruption": ("info",)}

FIRST_PAINT = re.compile(r"^first paint\s+([0-9.]+) ms", re.M)
KEY_CPU = re.compile(r"^(.+?)\s+cpu mean\s+[0-9.]+ ms worst\s+([0-9.]+) ms \(\s*([0-9.]+) ms a key\)", re.M)
FIRST_USE = re.compile(r"^.+?\s+cpu mean .+?first use\s+([0-9.]+) ms \(", re.M)  # a key's first use in the session
ANSWER = re.compile(r"^answer after\s+([0-9.]+) s", re.M)
KEY_WALL = re.compile(r"^(.+?)\s+wall mean\s+[0-9.]+ ms\s+worst\s+([0-9.]+) ms\s+per key\s+([0-9.]+) ms", re.M)


class UsageError(Exception):
    """Bad arguments: one line and exit status 2."""


def parse_args(argv=None) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="all_figures.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--shapes", default="classic,web,batch", help="cluster shapes (gen_cluster.py --shape)")
    p.add_argument("--sizes", default="1000,5000,20000", help="node counts")
    p.add_argument("--only", default=",".join(FIGURES), help=f"some of {','.join(FIGURES)}")
    p.add_argument("--repeat", type=int, default=1, help="rounds of each whole command; the fastest is the figure")
    p.add_argument("--cache", metavar="DIR", help="where generated clusters are kept (default: a temporary directory)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--consolidate-max", type=int, default=2000, metavar="NODES",
                   help="simulate --consolidate only up to this many nodes (default 2000)")
    p.add_argument("--timeout", type=float, default=3600,
                   help="seconds per command or bench where --budgets names no figure (default 3600)")
    p.add_argument("--budgets", default="", metavar="FIGURE=SECONDS,...",
                   help="time budget of each figure's command or bench, e.g. simulate=900,live=2400 "
                        f"(default {','.join(f'{k}={v}' for k, v in BUDGETS.items())}); past it the run is "
                        "stopped, and a size whose run is foreseen to pass it (linear growth from the size "
                        "before) is not started: either is said in the report")
    p.add_argument("--json", metavar="OUT", help="write every figure to this file")
    p.add_argument("--merge", nargs="+", metavar="FILE",
                   help="measure nothing: print the tables of earlier runs' --json files together (a 20k run "
                        "made apart from the 1k/5k one), growth columns across all their sizes")
    args = p.parse_args(argv)
    try:
        bench_commands.shapes_and_sizes(args)
        args.sizes = sorted(args.sizes)
        args.only = bench_commands._csv(args.only, str, "only")
        wrong = [f for f in args.only if f not in FIGURES]
        if wrong:
            raise UsageError(f"--only: unknown figure {wrong[0]!r} (known: {', '.join(FIGURES)})")
        args.budget = budgets(args.budgets, args.timeout)
    except (UsageError, bench_commands.UsageError) as exc:
        p.exit(2, f"all_figures.py: {exc}\n")
    return args


# Each figure's time budget (seconds) unless --budgets says otherwise: a figure past it is stopped
# and said, so one command of the whole set (consolidation at 20k, a simulate on a loaded machine)
# cannot hold up every figure after it.
BUDGETS = {"open": 1800, "simulate": 1800, "consolidate": 1800, "tui": 1800, "disruption": 1800, "live": 2700}


def budgets(text: str, timeout: float) -> dict:
    """``simulate=900,live=2400`` over the defaults (:data:`BUDGETS`, each at most ``--timeout``
    where that was lowered); UsageError naming what is wrong."""
    out = {k: min(v, timeout) for k, v in BUDGETS.items()}
    for part in filter(None, (x.strip() for x in text.split(","))):
        name, _, value = part.partition("=")
        if name not in FIGURES:
            raise UsageError(f"--budgets: unknown figure {name!r} (known: {', '.join(FIGURES)})")
        try:
            out[name] = float(value)
        except ValueError:
            raise UsageError(f"--budgets: {part!r} is not FIGURE=SECONDS") from None
        if out[name] <= 0:
            raise UsageError(f"--budgets: {name}'s budget must be more than 0 seconds")
    return out


def _load() -> str:
    return " ".join(f"{x:.1f}" for x in os.getloadavg())


# --- measuring ----------------------------------------------------------------------

# bench_commands' command -> the figure whose budget bounds it (json.load is the open's yardstick)
BUDGET_OF = {"json.load": "open", "info": "open", "simulate": "simulate", "table": "simulate", "consolidate": "consolidate"}


def foreseen(seconds_before: float | None, nodes_before: int, nodes: int, budget: float) -> str:
    """Why a run at ``nodes`` is not started: its time at the size before, grown linearly, passes
    the budget (the figures grow at least linearly); "" to run it."""
    if seconds_before is None:
        return ""
    expected = seconds_before * nodes / nodes_before
    if expected <= budget:
        return ""
    return (f"not run: {seconds_before:.0f} s at {nodes_before:,} nodes foretells at least {expected:.0f} s at "
            f"{nodes:,}, past its {budget:.0f} s budget (--budgets)")


def commands(args, cache: Path, skipped: list) -> list:
    """bench_commands.py's rows (one per shape and size) for the commands the figures need; a
    command not run (above --consolidate-max, foreseen past its budget) or stopped at its budget
    is said in ``skipped``."""
    needed = sorted({c for f in args.only for c in COMMANDS_FOR.get(f, ())})
    if not needed:
        return []
    rows = []
    for shape in args.shapes:       # one shape at a time, so each row group carries its load average
        before: dict = {}           # command -> (nodes, wall seconds) at the last size measured
        for nodes in args.sizes:
            only = []
            for cmd in needed:
                if cmd == "consolidate" and nodes > args.consolidate_max:
                    skipped.append(f"{shape} {nodes:,} nodes consolidate: not run above --consolidate-max "
                                   f"{args.consolidate_max:,} nodes")
                    continue
                last = before.get(cmd)
                why = foreseen(last and last[1], last[0] if last else 1, nodes, args.budget[BUDGET_OF[cmd]])
                if why:
                    skipped.append(f"{shape} {nodes:,} nodes {cmd}: {why}")
                    continue
                only.append(cmd)
            ns = argparse.Namespace(shapes=[shape], sizes=[nodes], repeat=args.repeat, seed=args.seed,
                                    consolidate_max=args.consolidate_max, all=True, timeout=args.timeout,
                                    importtime=False, only=tuple(only),
                                    timeouts={c: args.budget[f] for c, f in BUDGET_OF.items()})
            for row in bench_commands.measure(ns, {"current": ROOT}, cache):
                row["load_average"] = _load()
                for cmd, why in (row.get("failed") or {}).items():
                    skipped.append(f"{shape} {nodes:,} nodes {cmd}: {why}")
                for cmd in only:
                    if row.get(cmd):
                        before[cmd] = (nodes, row[cmd]["seconds"])
                rows.append(row)
    return rows


def bench(name: str, nodes: int, bench_args: list, timeout: float, tmp: Path) -> dict:
    """One bench script at one size: its figures by name, its printed text, why it failed if it did."""
    start = time.perf_counter()
    found, why = growth.run(name, nodes, timeout, tmp, bench_args)
    wall = time.perf_counter() - start
    text = next((f.get("text", "") for f in found if f["unit"] == "text"), "")
    figures = {f["name"]: f["value"] for f in found if f["unit"] != "text"}
    print(f"  {name} at {nodes} nodes: {wall:.0f} s{'; ' + why if why else ''}; "
          + ", ".join(f"{k} {v:,.2f}" for k, v in figures.items()), file=sys.stderr, flush=True)
    return {"figures": figures, "text": text, "failed": why, "load_average": _load(), "wall_s": wall}


def tui_figures(nodes: int, timeout: float, tmp: Path) -> dict:
    """bench_tui.py (no what-if): first paint and the most CPU any key took."""
    out = bench("tui", nodes, ["--nodes", nodes, "--pods", 10 * nodes, "--no-whatif"], timeout, tmp)
    paint = FIRST_PAINT.search(out["text"])
    keys = [(m[1].strip(), float(m[2])) for m in KEY_CPU.finditer(out["text"])]
    out["first_paint_s"] = float(paint[1]) / 1000 if paint else None
    # per key: each sequence's mean CPU per key (a sequence is 1-5 keys, pressed 3-50 times)
    per_key = [(m[1].strip(), float(m[3])) for m in KEY_CPU.finditer(out["text"])]
    out["key_worst_ms"] = max((ms for _, ms in per_key), default=None)
    out["first_use_worst_ms"] = max((float(m[1]) for m in FIRST_USE.finditer(out["text"])), default=None)
    out["keys"] = dict(per_key)
    out["sequences_worst_ms"] = dict(keys)
    out["peak_mib"] = out["figures"].get("peak RSS (bench process tree)")
    return out


def disruption_figures(path: Path, nodes: int, timeout: float, tmp: Path) -> dict:
    """bench_disruption.py on the shape's cluster file: the pane's answer and keys' wall time meanwhile."""
    out = bench("disruption", nodes, ["--snapshot", path, "--max-wait", int(timeout)], timeout + 600, tmp)
    answer = ANSWER.search(out["text"])
    keys = [(m[1].strip(), float(m[2])) for m in KEY_WALL.finditer(out["text"])]
    out["answer_s"] = float(answer[1]) if answer else None
    out["key_worst_wall_ms"] = max((ms for _, ms in keys), default=None)
    out["peak_mib"] = out["figures"].get("peak RSS (bench process tree)")
    return out


def live_figures(nodes: int, timeout: float, tmp: Path) -> dict:
    """bench_live.py: the initial sync beside list-and-decode, in time, CPU and memory. A sync
    that did not complete within the budget gives no ratio (it would flatter), and says so."""
    out = bench("live", nodes, ["--nodes", nodes, "--pods", 10 * nodes, "--seconds", 5,
                                "--sync-timeout", int(timeout)], timeout + 300, tmp)
    f = out["figures"]
    if f.get("sync complete") == 0:
        out["failed"] = out["failed"] or f"the initial sync did not complete within {timeout:.0f} s"
        for name in ("initial sync", "initial sync CPU", "sync memory"):
            f.pop(name, None)
    out["ratio"] = _ratio(f.get("initial sync"), f.get("list and decode only"))
    out["ratio_cpu"] = _ratio(f.get("initial sync CPU"), f.get("list and decode only CPU"))
    out["ratio_memory"] = _ratio(f.get("sync memory"), f.get("decoded objects"))
    return out


def _ratio(a, b):
    return None if a is None or not b else a / b


def measure(args, cache: Path, tmp: Path) -> dict:
    skipped: list = []
    rows = commands(args, cache, skipped)
    by_row = {(r["shape"], r["nodes"]): r for r in rows}
    extra: dict = {"tui": {}, "disruption": {}, "live": {}}
    took: dict = {}   # bench -> (nodes, wall seconds) at the last size it ran
    for nodes in args.sizes:
        for name, key, run in (
                ("tui", nodes, lambda: tui_figures(nodes, args.budget["tui"], tmp)),
                ("live", nodes, lambda: live_figures(nodes, args.budget["live"], tmp))):
            if name not in args.only:
                continue
            last = took.get(name)
            why = foreseen(last and last[1], last[0] if last else 1, nodes, args.budget[name])
            if why:
                skipped.append(f"{name} at {nodes:,} nodes: {why}")
                continue
            extra[name][key] = run()
            took[name] = (nodes, extra[name][key]["wall_s"])
        if "disruption" in args.only:
            for shape in args.shapes:
                path, _ = bench_commands.cluster_file(cache, shape, nodes, args.seed, args.timeout)
                extra["disruption"][f"{shape}-{nodes}"] = disruption_figures(path, nodes, args.budget["disruption"],
                                                                             tmp)
    return {"rows": rows, "by_row": by_row, "skipped": skipped, **extra}


# --- the tables -----------------------------------------------------------------------

def figure_rows(shape: str, nodes: int, found: dict) -> dict:
    """name -> (value, yardstick, ratio or rate, unit words) for one shape and size; None where not measured."""
    r = found["by_row"].get((shape, nodes), {})
    load, info, sim, cons = (r.get(k) for k in ("json.load", "info", "simulate", "consolidate"))
    out = {}
    if info and load:
        out["open cpu (info ÷ json.load, ≤1.0)"] = (info["cpu"], load["cpu"], info["cpu"] / load["cpu"])
        out["open wall (info ÷ json.load, ≤1.0)"] = (info["seconds"], load["seconds"],
                                                     info["seconds"] / load["seconds"])
        out["peak MiB (info ÷ json.load)"] = (info["peak_mib"], load["peak_mib"], info["peak_mib"] / load["peak_mib"])
    if sim and info and sim.get("pending"):
        for kind, key in (("cpu", "cpu"), ("wall", "seconds")):
            spent = sim[key] - info[key]
            if spent > 0:
                out[f"simulate {kind} (pending pods/s, ≥3000)"] = (sim["pending"], spent, sim["pending"] / spent)
    shown = r.get("table")   # the default output, a table, as a user at a terminal waits for it
    if shown and sim and info and sim.get("pending"):
        spent = shown["cpu"] - info["cpu"]
        if spent > 0:
            out["simulate as a table, cpu (pending pods/s, ≥3000)"] = (sim["pending"], spent, sim["pending"] / spent)
    if cons and info:
        out["consolidate cpu (÷ info, ≤8)"] = (cons["cpu"], info["cpu"], cons["cpu"] / info["cpu"])
        out["consolidate wall (÷ info, ≤8)"] = (cons["seconds"], info["seconds"], cons["seconds"] / info["seconds"])
    tui = found["tui"].get(nodes)
    if tui and tui.get("first_paint_s") is not None and shape == "classic" and info:
        launch = info["seconds"] + tui["first_paint_s"]
        out["TUI first screen wall (info + first paint ÷ info, ≤1.2)"] = (launch, info["seconds"],
                                                                          launch / info["seconds"])
    if tui and tui.get("key_worst_ms") is not None and shape == "classic":
        out["TUI slowest key, cpu ms per key (≤50)"] = (tui["key_worst_ms"], TARGET_KEY_MS, tui["key_worst_ms"] / TARGET_KEY_MS)
    if tui and tui.get("first_use_worst_ms") is not None and shape == "classic":
        worst = tui["first_use_worst_ms"]
        out["TUI slowest first use of a key, cpu ms (≤50)"] = (worst, TARGET_KEY_MS, worst / TARGET_KEY_MS)
    if tui and tui.get("peak_mib") and shape == "classic":
        out["TUI bench peak MiB (≤4096)"] = (tui["peak_mib"], 4096.0, tui["peak_mib"] / 4096)
    dis = found["disruption"].get(f"{shape}-{nodes}")
    if dis and dis.get("answer_s") is not None:
        out["Disruption pane answer s (≤60)"] = (dis["answer_s"], TARGET_DISRUPTION_S, dis["answer_s"] / TARGET_DISRUPTION_S)
    live = found["live"].get(nodes)
    if live and shape == "classic":
        f = live["figures"]
        if live.get("ratio") is not None:
            out["live sync wall (÷ list-and-decode, ≤2)"] = (f["initial sync"], f["list and decode only"], live["ratio"])
        if live.get("ratio_cpu") is not None:
            out["live sync cpu (÷ list-and-decode, ≤2)"] = (f["initial sync CPU"], f["list and decode only CPU"],
                                                            live["ratio_cpu"])
        if live.get("ratio_memory") is not None:
            out["live sync memory (÷ decoded, ≤2)"] = (f["sync memory"], f["decoded objects"], live["ratio_memory"])
    return out


def _cell(value) -> str:
    if value is None:
        return "-"
    figure, yardstick, ratio = value
    return f"{_num(figure)} / {_num(yardstick)} = {_num(ratio)}"


def _num(x: float) -> str:
    if abs(x) >= 1000:
        return f"{x:,.0f}"
    if abs(x) >= 100:
        return f"{x:.0f}"
    return f"{x:.2f}"


# figures whose yardstick is a fixed target, not a measurement that grows with the cluster
FIXED_TARGET = ("TUI slowest key", "TUI bench peak", "Disruption pane answer")


def growth_of(name: str, before, after) -> float | None:
    """The figure's growth from one size to the next: of the time itself (for pods/s, the time
    simulate spent beyond the open, the second of its three numbers)."""
    if before is None or after is None:
        return None
    i = 1 if name.startswith("simulate") else 0
    return after[i] / before[i] if before[i] else None


def yardstick_growth(name: str, before, after, load_before, load_after) -> float | None:
    """The yardstick's growth over the same sizes: the measured yardstick beside the figure, or for
    pods/s json.load's (in the same unit); none for a fixed target (keys, the Disruption pane)."""
    if name.startswith(FIXED_TARGET) or before is None or after is None:
        return None
    if name.startswith("simulate"):
        if not (load_before and load_after):
            return None
        key = "cpu" if " cpu " in name else "seconds"
        return load_after[key] / load_before[key]
    return after[1] / before[1] if before[1] else None


def table(shape: str, args, found: dict) -> list[str]:
    per_size = {n: figure_rows(shape, n, found) for n in args.sizes}
    # the sizes this shape has figures at (merged runs: a 20k run of one shape beside 1k/5k of all)
    sizes = [n for n in args.sizes if per_size[n]] or args.sizes
    names = list(dict.fromkeys(name for n in sizes for name in per_size[n]))
    head = ["figure: value / yardstick = ratio", *(f"{n:,} nodes" for n in sizes)]
    if len(sizes) > 1:
        head += [f"growth {_k(sizes[-2])}→{_k(sizes[-1])} (yardstick's)"]
    loads = [r["load_average"] for n in sizes for r in [found["by_row"].get((shape, n), {})] if r]
    lines = [f"### {shape}" + (f" (load average after each size: {'; '.join(loads)})" if loads else ""), "",
             "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    json_loads = [found["by_row"].get((shape, n), {}).get("json.load") for n in sizes]
    for name in names:
        cells = [name, *(_cell(per_size[n].get(name)) for n in sizes)]
        if len(sizes) > 1:
            a, b = per_size[sizes[-2]].get(name), per_size[sizes[-1]].get(name)
            mine = growth_of(name, a, b)
            yard = yardstick_growth(name, a, b, json_loads[-2], json_loads[-1])
            faster = mine is not None and yard is not None and mine > yard * GROWTH_SLACK
            cells.append("-" if mine is None else f"{mine:.2f}x" + (f" ({yard:.2f}x)" if yard is not None else "")
                         + (" **faster than its yardstick**" if faster else ""))
        lines.append("| " + " | ".join(cells) + " |")
    return lines


def _k(size: int) -> str:
    return f"{size // 1000}k" if size % 1000 == 0 else str(size)


def report(args, found: dict) -> str:
    out = [f"python {sys.version.split()[0]}, {os.cpu_count()} cpus, "
           f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30:.0f} GiB, "
           f"load average now {_load()}; fastest of {args.repeat} round(s) per command", ""]
    for shape in args.shapes:
        out += table(shape, args, found) + [""]
    for key, sha in bench_commands.hashes(found["rows"]).items():
        for cmd, digest in sha.items():
            out.append(f"sha256 {key} {cmd} {digest}")
    for nodes, tui in found["tui"].items():
        if tui["keys"]:
            out.append(f"TUI keys at {nodes:,} nodes, CPU ms per key (mean; worst sequence): "
                       + ", ".join(f"{k} {v:.1f} ({tui['sequences_worst_ms'].get(k, 0):.1f})"
                                   for k, v in tui["keys"].items()))
    for name, part in (("tui", found["tui"]), ("live", found["live"]), ("disruption", found["disruption"])):
        for key, got in part.items():
            if got.get("failed"):
                out.append(f"no figure: {name} at {key} nodes: {got['failed']}")
    for line in found.get("skipped", ()):
        out.append(f"no figure: {line}")
    return "\n".join(out)


def merged(paths: list) -> tuple[dict, list, list]:
    """Earlier runs' ``--json`` files as one set of figures (a later file's row for the same shape and
    size wins), with the shapes and sizes they cover; SystemExit(2) with one line for a bad file."""
    found: dict = {"rows": [], "skipped": [], "tui": {}, "disruption": {}, "live": {}}
    rows: dict = {}
    for path in paths:
        try:
            with open(path, encoding="utf-8") as fh:
                doc = json.load(fh)
            for row in doc["rows"]:
                rows[(row["shape"], row["nodes"])] = row
            for part in ("tui", "live"):
                found[part].update({int(k): v for k, v in doc.get(part, {}).items()})
            found["disruption"].update(doc.get("disruption", {}))
            found["skipped"] += doc.get("skipped", [])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
            raise SystemExit(f"all_figures.py: --merge {path}: not a file all_figures.py --json wrote ({exc})") \
                from None
    found["rows"] = list(rows.values())
    found["by_row"] = rows
    shapes = list(dict.fromkeys(r["shape"] for r in found["rows"])) or ["classic"]
    sizes = sorted({r["nodes"] for r in found["rows"]} | set(found["tui"]) | set(found["live"]))
    return found, shapes, sizes


def main(argv=None) -> int:
    args = parse_args(argv)
    if args.merge:
        found, args.shapes, args.sizes = merged(args.merge)
        print(report(args, found))
        return 0
    with tempfile.TemporaryDirectory(prefix="karptui-figures-") as tmp:
        cache = Path(args.cache) if args.cache else Path(tmp) / "clusters"
        cache.mkdir(parents=True, exist_ok=True)
        bench_commands.compile_tree(ROOT)
        found = measure(args, cache, Path(tmp))
    print(report(args, found))
    if args.json:
        kept = {k: v for k, v in found.items() if k != "by_row"}
        for part in ("tui", "live", "disruption"):
            kept[part] = {str(k): {x: y for x, y in v.items() if x != "text"} for k, v in kept[part].items()}
        kept["tables"] = {shape: {str(n): {name: list(v) for name, v in figure_rows(shape, n, found).items()}
                                  for n in args.sizes} for shape in args.shapes}
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"args": {k: v for k, v in vars(args).items()}, "load_average_end": _load(), **kept}, fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
