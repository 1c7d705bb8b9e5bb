"""Karpenter's own test suites as the specification (tests/karpenter_spec/).

Every scenario runs end to end through ``karptui simulate --output json``. A
scenario karptui cannot yet agree with is listed, with its reason, in
``divergences.yaml``; it is expected to fail, and passing it is an error until
the entry is removed.
"""

from __future__ import annotations

import pytest
import yaml

from tests.karpenter_spec.harness import HERE, Scenario, scenario_files

DIVERGENCES = {entry["scenario"]: entry["reason"]
               for entry in yaml.safe_load((HERE / "divergences.yaml").read_text()) or []}
FILES = scenario_files()


def _param(path):
    rel = str(path.relative_to(HERE))
    marks = [pytest.mark.xfail(strict=True, reason=DIVERGENCES[rel])] if rel in DIVERGENCES else []
    return pytest.param(path, id=rel.removesuffix(".yaml"), marks=marks)


@pytest.mark.parametrize("path", [_param(p) for p in FILES])
def test_scenario(path, tmp_path):
    scenario = Scenario(path)
    problems = scenario.run(tmp_path)
    assert not problems, f"{scenario.name} ({scenario.data.get('source')}):\n  " + "\n  ".join(problems)


def test_every_divergence_names_a_scenario_and_a_reason():
    names = {str(p.relative_to(HERE)) for p in FILES}
    for scenario, reason in DIVERGENCES.items():
        assert scenario in names, f"divergences.yaml lists {scenario}, which is no scenario"
        assert reason and len(reason.split()) >= 4, f"{scenario}: give the reason in a sentence"


def test_every_skipped_test_has_a_reason_and_no_scenario():
    """Upstream tests not ported (timing, events, metrics, cloud plumbing...) are listed with why."""
    for listing in HERE.glob("*/skipped-*.yaml"):
        lines = {p.name.split("-", 1)[0] for p in listing.parent.glob("[0-9]*.yaml")}
        for entry in yaml.safe_load(listing.read_text()) or []:
            assert entry.get("reason"), f"{listing.name}: line {entry.get('line')} has no reason"
            assert f"{int(entry['line']):04d}" not in lines, f"{listing.name}: line {entry['line']} is also a scenario"
