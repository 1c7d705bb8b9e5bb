"""Every fixture log (tests/fixtures/logs, written from each era's message templates)
parses to what its expected.yaml says, line for line."""

import pytest
import yaml

from karptui.logs import LogParser
from tests.conftest import FIXTURES

LOGS = FIXTURES / "logs"
EXPECTED = yaml.safe_load((LOGS / "expected.yaml").read_text())


def parsed(name: str):
    parser = LogParser()
    with (LOGS / name).open(encoding="utf-8", errors="replace", newline="") as handle:
        events = {e["line"]: e for e in parser.parse(handle)}
    return parser, events


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_line_counts_and_skips(name):
    parser, events = parsed(name)
    want = EXPECTED[name]
    assert parser.stats.lines == want["lines"]
    assert parser.stats.skipped == want["skipped"]
    assert sorted(events) == [e["line"] for e in want["events"]]


def _check(found: dict, want: dict) -> list[str]:
    problems = []
    for key, value in want.items():
        if key == "line":
            continue
        if key == "nodepools":
            got = found.get("nodepools", [])
            names = [p["name"] for p in got]
            if names != [p["name"] for p in value]:
                problems.append(f"nodepools {names} != {[p['name'] for p in value]}")
            for have, expect in zip(got, value):
                if not have["reason"].startswith(expect.get("reason_prefix", "")):
                    problems.append(f"reason {have['reason'][:60]!r} !^ {expect.get('reason_prefix')!r}")
        elif key == "error_prefix":
            if not str(found.get("error", "")).startswith(value):
                problems.append(f"error {found.get('error')!r} !^ {value!r}")
        elif found.get(key) != value:
            problems.append(f"{key}: {found.get(key)!r} != {value!r}")
    return problems


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_every_event_matches(name):
    _, events = parsed(name)
    problems = []
    for want in EXPECTED[name]["events"]:
        found = events.get(want["line"])
        if found is None:
            problems.append(f"line {want['line']}: not parsed")
            continue
        problems += [f"line {want['line']} ({want['kind']}): {p}" for p in _check(found, want)]
    assert not problems, "\n".join(problems)


def test_the_replica_that_took_the_lease_is_noted():
    parser, _ = parsed("v1-prefix-timestamps.log")
    assert parser.stats.leaders == ["pod/karpenter-5f7b9d8c6d-x7k2p/controller"]
