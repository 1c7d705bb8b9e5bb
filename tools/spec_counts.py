"""Count the ported Karpenter suite per upstream test file, as docs/karpenter-spec.md tables it.

    python tools/spec_counts.py              # per folder, with each skipped list
    python tools/spec_counts.py --markdown   # per upstream file, the table docs/karpenter-spec.md shows

Ported: scenario files named after an upstream line (``NNNN-*.yaml``; ``from-code-*`` are not upstream tests).
Divergent: those listed in divergences.yaml. Skipped entries are sorted by the start of their reason:
"held by" (a unit test or another scenario holds it), "behaviour not modelled" (karptui lacks the
behaviour), anything else (out of scope: timing, events, metrics, plumbing, Go-only values).

Which upstream file a folder ports is read from the folder table of tests/karpenter_spec/README.md (its one
owner); a skipped list of ``after-v1.14.1/`` names its upstream file in its first comment line.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import yaml

SPEC = Path(__file__).resolve().parent.parent / "tests" / "karpenter_spec"
KINDS = ("held", "out of scope", "not modelled")


def kind(reason: str) -> str:
    text = reason.strip().lower()
    if text.startswith("held by"):
        return "held"
    if text.startswith("behaviour not modelled"):
        return "not modelled"
    return "out of scope"


def folder_files() -> dict[str, str]:
    """folder -> the upstream test file it ports, from the README's folder table."""
    out = {}
    for line in (SPEC / "README.md").read_text().splitlines():
        found = re.match(r"^\| `([^`/]+)/` \| `([^`]+)`", line)
        if found:
            out[found.group(1)] = found.group(2)
    return out


def list_file(listing: Path) -> str | None:
    """The upstream file a skipped list names in its first comment line."""
    first = listing.read_text().splitlines()[0] if listing.read_text() else ""
    found = re.search(r"((?:pkg|test)/\S+?_test\.go)", first)
    return found.group(1) if found else None


def rows() -> list[tuple[str, str, list[int]]]:
    """(folder or list, upstream file, [ported, divergent, from-code, held, out of scope, not modelled])."""
    divergent = {e["scenario"].split("@")[0] for e in yaml.safe_load((SPEC / "divergences.yaml").read_text()) or []}
    files = folder_files()
    out = []
    # the folders of ported tests first, then the lists of tests added after v1.14.1
    for folder in sorted((p for p in SPEC.iterdir() if p.is_dir() and not p.name.startswith("_")),
                         key=lambda p: (p.name == "after-v1.14.1", p.name)):
        ported = list(folder.glob("[0-9]*.yaml"))
        derived = list(folder.glob("from-code-*.yaml"))
        div = sum(1 for p in ported if f"{folder.name}/{p.name}" in divergent)
        counts = {k: 0 for k in KINDS}
        lists = []
        for listing in sorted(folder.glob("skipped-*.yaml")):
            mine = {k: 0 for k in KINDS}
            for entry in yaml.safe_load(listing.read_text()) or []:
                mine[kind(entry["reason"])] += 1
            lists.append((listing, mine))
            for k, v in mine.items():
                counts[k] += v
        if ported or derived or folder.name in files:
            out.append((f"{folder.name}/", files.get(folder.name, "?"),
                        [len(ported), div, len(derived)] + [counts[k] for k in KINDS]))
        else:  # a folder of skipped lists only: one row per list, each its own upstream file
            for listing, mine in lists:
                out.append((f"{folder.name}/{listing.name}", list_file(listing) or "?",
                            [0, 0, 0] + [mine[k] for k in KINDS]))
    return out


def main(argv: list[str]) -> None:
    table = rows()
    totals = [sum(r[2][i] for r in table) for i in range(6)]
    if "--markdown" in argv:
        print("| upstream file | where | ported | of them divergent | derived (`from-code`) | skipped: held "
              "elsewhere | skipped: out of scope | skipped: behaviour not modelled |")
        print("|---|---|---|---|---|---|---|---|")
        for where, upstream, n in table:
            print(f"| `{upstream}` | `{where}` | " + " | ".join(str(v) for v in n) + " |")
        print("| **total** | | " + " | ".join(f"**{v}**" for v in totals) + " |")
        return
    print(f"{'folder / skipped list':48} {'ported':>6} {'diverg':>6} {'from-code':>9} {'held':>5} {'scope':>5} "
          f"{'not-mod':>7}  upstream file")
    for where, upstream, n in table:
        print(f"{where:48} {n[0]:>6} {n[1]:>6} {n[2]:>9} {n[3]:>5} {n[4]:>5} {n[5]:>7}  {upstream}")
    print(f"{'total':48} {totals[0]:>6} {totals[1]:>6} {totals[2]:>9} {totals[3]:>5} {totals[4]:>5} {totals[5]:>7}")


if __name__ == "__main__":
    main(sys.argv[1:])
