"""Score karptui's log parser against the real-world corpus in this directory.

Each ``X-expected.yaml`` was labelled blind (from the pasted lines and Karpenter's
message templates, never from karptui's parser). A labelled event is right when the
parser reports an event of the same kind at the same physical line (the first line of
a wrapped one); a parsed event on a line nobody labelled is a false positive and
counts against the kind rate too. Key fields are the ones the issue names: pod,
NodePool names, nodes, method, action, NodeClaim, node, instance type(s), zone,
capacity type, and the interruption's message kind.

``python -m tests.log_corpus.score`` prints the rates and every miss.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from karptui.logs import LogParser

HERE = Path(__file__).parent
KEY_FIELDS = ("pod", "nodepools", "nodepool", "nodes", "method", "action", "nodeclaim", "node",
              "instance_type", "instance_types", "zone", "capacity_type", "message_kind")


@dataclass
class Score:
    labelled: int = 0
    kinds_right: int = 0
    false_positives: int = 0
    fields: int = 0
    fields_right: int = 0
    misses: list[str] = field(default_factory=list)
    by_kind: Counter = field(default_factory=Counter)       # labelled events per kind
    wrong_by_kind: Counter = field(default_factory=Counter)  # kind misses per labelled kind

    @property
    def kind_rate(self) -> float:
        return self.kinds_right / max(1, self.labelled + self.false_positives)

    @property
    def field_rate(self) -> float:
        return self.fields_right / max(1, self.fields)


def expected() -> dict[str, dict]:
    labels: dict[str, dict] = {}
    for path in sorted(HERE.glob("*-expected.yaml")):
        labels.update(yaml.safe_load(path.read_text(encoding="utf-8")))
    return labels


def parse_file(name: str) -> tuple[LogParser, dict[int, dict]]:
    parser = LogParser()
    with (HERE / name).open(encoding="utf-8", errors="replace", newline="") as handle:
        events = {e["line"]: e for e in parser.parse(handle)}
    return parser, events


def _value(found: dict, key: str):
    value = found.get(key)
    if key == "nodepools" and isinstance(value, list):
        return [p.get("name") if isinstance(p, dict) else p for p in value]
    return value


def score(labels: dict[str, dict] | None = None) -> Score:
    labels = expected() if labels is None else labels
    result = Score()
    for name, want in sorted(labels.items()):
        _, events = parse_file(name)
        wanted = {e["line"]: e for e in want.get("events") or []}
        for line, label in sorted(wanted.items()):
            result.labelled += 1
            result.by_kind[label["kind"]] += 1
            found = events.get(line)
            if found is None or found["kind"] != label["kind"]:
                result.wrong_by_kind[label["kind"]] += 1
                got = "nothing" if found is None else found["kind"]
                result.misses.append(f"{name}:{line}: kind {label['kind']}, parsed {got}")
                result.fields += sum(1 for k in KEY_FIELDS if k in label)
                continue
            result.kinds_right += 1
            for key in KEY_FIELDS:
                if key not in label:
                    continue
                result.fields += 1
                if _value(found, key) == label[key]:
                    result.fields_right += 1
                else:
                    result.misses.append(f"{name}:{line}: {key} {_value(found, key)!r} != {label[key]!r}")
        for line in sorted(set(events) - set(wanted)):
            result.false_positives += 1
            result.misses.append(f"{name}:{line}: not a labelled event, parsed {events[line]['kind']}")
    return result


def main() -> None:
    result = score()
    for miss in result.misses:
        print(miss)
    print(f"labelled events {result.labelled}, false positives {result.false_positives}")
    print(f"kinds right {result.kinds_right}/{result.labelled + result.false_positives} = {result.kind_rate:.1%}")
    print(f"key fields right {result.fields_right}/{result.fields} = {result.field_rate:.1%}")
    for kind, count in sorted(result.by_kind.items()):
        print(f"  {kind:28} {count - result.wrong_by_kind[kind]:4}/{count}")


if __name__ == "__main__":
    main()
