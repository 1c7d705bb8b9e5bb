"""Count the ported Karpenter suite as docs/karpenter-spec.md tables it, per folder and per skipped list.

    python tools/spec_counts.py

Ported: scenario files named after an upstream line (``NNNN-*.yaml``; ``from-code-*`` are not upstream tests).
Divergent: those listed in divergences.yaml. Skipped entries are sorted by the start of their reason:
"held by" (a unit test or another scenario holds it), "behaviour not modelled" (karptui lacks the
behaviour), anything else (out of scope: timing, events, metrics, plumbing, Go-only values).
"""

from __future__ import annotations

from pathlib import Path

import yaml

SPEC = Path(__file__).resolve().parent.parent / "tests" / "karpenter_spec"


def kind(reason: str) -> str:
    text = reason.strip().lower()
    if text.startswith("held by"):
        return "held"
    if text.startswith("behaviour not modelled"):
        return "not modelled"
    return "out of scope"


def main() -> None:
    divergent = {e["scenario"] for e in yaml.safe_load((SPEC / "divergences.yaml").read_text()) or []}
    print(f"{'folder / skipped list':44} {'ported':>6} {'diverg':>6} {'from-code':>9} {'held':>5} {'scope':>5} {'not-mod':>7}")
    totals = [0] * 6
    for folder in sorted(p for p in SPEC.iterdir() if p.is_dir() and not p.name.startswith("_")):
        ported = [p for p in folder.glob("[0-9]*.yaml")]
        derived = list(folder.glob("from-code-*.yaml"))
        div = sum(1 for p in ported if f"{folder.name}/{p.name}" in divergent)
        lists = sorted(folder.glob("skipped-*.yaml"))
        counts = {"held": 0, "out of scope": 0, "not modelled": 0}
        rows = []
        for listing in lists:
            mine = {"held": 0, "out of scope": 0, "not modelled": 0}
            for entry in yaml.safe_load(listing.read_text()) or []:
                mine[kind(entry["reason"])] += 1
            rows.append((listing.name, mine))
            for k, v in mine.items():
                counts[k] += v
        row = [len(ported), div, len(derived), counts["held"], counts["out of scope"], counts["not modelled"]]
        totals = [a + b for a, b in zip(totals, row)]
        print(f"{folder.name + '/':44} {row[0]:>6} {row[1]:>6} {row[2]:>9} {row[3]:>5} {row[4]:>5} {row[5]:>7}")
        if len(rows) > 1 or not ported:
            for name, mine in rows:
                print(f"  {name:42} {'':>6} {'':>6} {'':>9} {mine['held']:>5} {mine['out of scope']:>5} "
                      f"{mine['not modelled']:>7}")
    print(f"{'total':44} {totals[0]:>6} {totals[1]:>6} {totals[2]:>9} {totals[3]:>5} {totals[4]:>5} {totals[5]:>7}")


if __name__ == "__main__":
    main()
