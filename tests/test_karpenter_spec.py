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


def _params(path):
    """One run per Karpenter release the scenario names (``karpenterVersion:``, one or a list); a
    divergence names the scenario (every run) or ``scenario@version`` (that run)."""
    rel = str(path.relative_to(HERE))
    versions = Scenario(path).karpenter_versions
    for version in versions:
        at = f"{rel}@{version}"
        reason = DIVERGENCES.get(at) or DIVERGENCES.get(rel)
        marks = [pytest.mark.xfail(strict=True, reason=reason)] if reason else []
        name = rel.removesuffix(".yaml") + (f"@{version}" if len(versions) > 1 else "")
        yield pytest.param(path, version, id=name, marks=marks)


@pytest.mark.parametrize("path,version", [p for f in FILES for p in _params(f)])
def test_scenario(path, version, tmp_path):
    scenario = Scenario(path)
    problems = scenario.run(tmp_path, version)
    assert not problems, f"{scenario.name} ({scenario.data.get('source')}) as Karpenter {version}:\n  " + \
        "\n  ".join(problems)


def test_every_divergence_names_a_scenario_and_a_reason():
    names = {str(p.relative_to(HERE)) for p in FILES}
    runs = names | {f"{str(p.relative_to(HERE))}@{v}" for p in FILES for v in Scenario(p).karpenter_versions}
    for scenario, reason in DIVERGENCES.items():
        assert scenario in runs, f"divergences.yaml lists {scenario}, which is no scenario"
        assert reason and len(reason.split()) >= 4, f"{scenario}: give the reason in a sentence"


def test_every_skipped_test_has_a_reason_and_no_scenario():
    """Upstream tests not ported (timing, events, metrics, cloud plumbing...) are listed with why."""
    for listing in HERE.glob("*/skipped-*.yaml"):
        lines = {p.name.split("-", 1)[0] for p in listing.parent.glob("[0-9]*.yaml")}
        for entry in yaml.safe_load(listing.read_text()) or []:
            assert entry.get("reason"), f"{listing.name}: line {entry.get('line')} has no reason"
            assert f"{int(entry['line']):04d}" not in lines, f"{listing.name}: line {entry['line']} is also a scenario"
