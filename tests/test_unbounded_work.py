"""Inputs that made karptui work without bound (issue 29 item 17): each now stays within seconds
or is refused in one line.

No test here measures time: each feeds an input that takes minutes (or never ends) with the
old algorithm, and asserts the work done (calls counted) or the answer, under a generous
alarm (:func:`finishes`) that fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager

import sys
from pathlib import Path

import pytest

from karptui.model.cron import parse_cron

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmarks' cluster generator)

GENEROUS = 60  # seconds: minutes of work with the old algorithms, well under one now


class TookTooLong(Exception):
    pass


@contextmanager
def finishes(seconds: int = GENEROUS):
    """Fail (not hang) when the block runs past ``seconds``: a guard against the unbounded
    algorithm, never a measurement (the block's answer is what is asserted)."""
    def _alarm(signum, frame):
        raise TookTooLong(f"still running after {seconds} s: the work is unbounded again")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def nodepool(name: str, budgets: list[dict]) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "default"}, "requirements": []}},
                     "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                    "budgets": budgets}}}


def dump(path, items: list[dict]):
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


# ---------------------------------------------------------------- a long cron list

def test_a_cron_list_of_200000_entries_parses_in_one_pass(cli, tmp_path):
    """The parser formatted the whole schedule into a message for each entry: quadratic."""
    minutes = ",".join(str(i % 60) for i in range(200_000))
    with finishes():
        cron = parse_cron(f"{minutes} * * * *")
    assert cron.minutes == frozenset(range(60))
    path = dump(tmp_path / "cronlist.json",
                [nodepool("a", [{"nodes": "1", "schedule": f"{minutes} * * * *", "duration": "1h"}])])
    with finishes():
        code, out, err = cli("budgets", path, "--at", "2026-01-01T00:00:00Z", "-o", "json")
    assert code == 0, err
    assert json.loads(out)


def test_an_error_in_a_long_cron_list_is_one_short_line():
    from karptui.model.errors import ModelError
    with pytest.raises(ModelError) as caught:
        parse_cron(",".join(["1"] * 50_000) + ",99 * * * *")
    message = str(caught.value)
    assert "'99' is outside 0-59" in message and "(100,010 characters)" in message and len(message) < 200


# ---------------------------------------------------------------- budget windows

class Counted:
    """Counts calls of a Cron method while the block runs (monkeypatched on the class)."""

    def __init__(self, monkeypatch, name: str):
        from karptui.model.cron import Cron
        self.calls = 0
        real = getattr(Cron, name)

        def counting(cron, *args, **kwargs):
            self.calls += 1
            return real(cron, *args, **kwargs)
        monkeypatch.setattr(Cron, name, counting)


def test_an_every_minute_budget_with_the_longest_duration_is_one_window(cli, tmp_path, monkeypatch):
    """The timeline listed every hit in (at - duration, at + 24h]: half a million for 8,760 h, and
    for Go's longest duration (2,562,047 h, ~292 years) more than a datetime can count."""
    searched = Counted(monkeypatch, "next_after")
    for duration in ("8760h", "2562047h"):
        path = dump(tmp_path / "long.json",
                    [nodepool("a", [{"nodes": "0", "schedule": "* * * * *", "duration": duration}])])
        with finishes():
            code, out, err = cli("budgets", path, "--at", "2026-01-01T00:00:00Z", "-o", "json")
        assert code == 0, err
        doc = json.loads(out)
        rows = [r for p in doc["nodepools"] for r in p["reasons"]]
        assert rows and all(r["allowed"] == 0 and not r["changes"] for r in rows), rows
    assert searched.calls < 1_000   # was one per minute of the duration


def test_never_firing_schedules_are_known_never_to_fire(cli, tmp_path, monkeypatch):
    """50 budgets on ``0 0 30 2 *`` searched five years day by day for every slot of the timeline."""
    days = Counted(monkeypatch, "day_matches")
    path = dump(tmp_path / "never.json", [nodepool(f"p{i}", [{"nodes": "0", "schedule": "0 0 30 2 *",
                                                              "duration": "1h"}]) for i in range(50)])
    with finishes():
        code, out, err = cli("budgets", path, "--at", "2026-01-01T00:00:00Z", "-o", "json")
    assert code == 0, err
    rows = [r for p in json.loads(out)["nodepools"] for r in p["reasons"]]
    assert len(rows) == 150 and all(r["allowed"] is None and not r["changes"] for r in rows), rows[:3]
    assert days.calls == 0   # was 1,826 days a search, 4,650 searches
    assert parse_cron("0 0 30 2 *").never and parse_cron("0 0 31 4,6,9,11 *").never
    assert not parse_cron("0 0 29 2 *").never and not parse_cron("0 0 30 2 1").never  # either day field


def test_window_runs_change_where_the_hits_say(monkeypatch):
    """Cron.windows (runs of windows) against the hit-by-hit rule it replaces, on schedules and
    durations drawn at random (seeded): the same moments where a budget turns on or off."""
    import random
    from datetime import datetime, timedelta, timezone

    rng = random.Random(29)
    fields = [["*", "*/7", "0", "0,30", "5-10", "59"], ["*", "*/5", "3", "0-2", "23"],
              ["*", "1", "15", "29", "30", "31"], ["*", "2", "1,7", "*/3"], ["*", "0", "1-5", "6"]]

    def on(cron, length, at):
        hit = cron.next_after(at - length)
        return hit is not None and hit <= at

    def flips(cron, length, start, moments):
        out, was = [], on(cron, length, start)
        for moment in moments:
            if on(cron, length, moment) != was:
                out.append(moment)
                was = not was
        return out

    compared = 0
    for _ in range(300):
        cron = parse_cron(" ".join(rng.choice(f) for f in fields))
        length = timedelta(minutes=rng.choice([1, 2, 7, 30, 61, 600, 1440, 3000]), seconds=rng.choice([0, 30]))
        start = datetime(2026, 1, 1, tzinfo=timezone.utc) + timedelta(minutes=rng.randrange(0, 60 * 24 * 400),
                                                                        seconds=rng.choice([0, 15]))
        end = start + timedelta(hours=rng.choice([1, 24, 72]))
        by_hits = sorted({t for h in cron.hits(start - length, end) for t in (h, h + length) if start < t <= end})
        expected = flips(cron, length, start, by_hits)
        assert flips(cron, length, start, cron.windows(length, start, end)) == expected, (cron.text, length, start)
        compared += bool(expected)
        last = cron.last_at_or_before(start)
        if last is not None:
            after = cron.next_after(last)
            assert last <= start and (after is None or after > start)
    assert compared > 20   # enough draws turn on or off within the span (31 of 300 with this seed)


# ---------------------------------------------------------------- NodeOverlays

FAMILIES = ("m5", "c5", "r5", "m6i", "c6i", "r6i", "m7i", "c7g", "t3", "m6g")


def _overlays(count: int) -> list[dict]:
    from tests.test_karpenter_provisioning import req
    from tests.test_karpenter_v114 import overlay

    out = []
    for i in range(count):
        requirements = [req("karpenter.k8s.aws/instance-family", "In", FAMILIES[i % len(FAMILIES)]),
                        req("karpenter.sh/capacity-type", "In", *("spot", "on-demand")[: 1 + i % 2]),
                        req("topology.kubernetes.io/zone", "NotIn", f"us-east-1{'abc'[i % 3]}")]
        if i % 50 == 7:   # some ask about a NodePool, or a template label: their footprint differs by pool
            requirements.append(req("karpenter.sh/nodepool", "In", "batch"))
        if i % 50 == 8:
            requirements.append(req("team", "In", "a"))
        out.append(overlay(f"ov-{i:03d}", i % 7, requirements, priceAdjustment=f"-{i % 9 + 1}%"))
    return out


def _snapshot(overlays: list[dict]):
    from karptui.model import build_snapshot
    from tests.test_karpenter_provisioning import nodepool

    return build_snapshot([nodepool("default"), nodepool("batch"), nodepool("team-a", labels={"team": "a"}),
                           *overlays])


def test_300_node_overlays_check_each_kind_of_instance_type_once(monkeypatch):
    """Every overlay checked every instance type once per NodePool: 1.2 million requirement checks
    for 300 overlays, 3 NodePools and the bundled catalog."""
    from karptui.catalog import bundled_catalog
    from karptui.sim.karpenter.featuregates import DEFAULT_GATES
    from karptui.sim.karpenter.overlays import karpenter_catalog
    from karptui.sim.karpenter.requirements import Reqs

    checks = 0
    real = Reqs.compatible

    def counting(self, *args, **kwargs):
        nonlocal checks
        checks += 1
        return real(self, *args, **kwargs)
    monkeypatch.setattr(Reqs, "compatible", counting)
    catalog = bundled_catalog("us-east-1")
    with finishes():
        overlaid, notes = karpenter_catalog(_snapshot(_overlays(300)), catalog, DEFAULT_GATES.with_({"NodeOverlay": True}))
    assert any(n.startswith("NodeOverlays applied: ") for n in notes)
    assert sum(n.endswith("(karptui prices one catalog for all NodePools)") for n in notes) == 12
    cheaper = {t.name for t, before in zip(overlaid, catalog) if t.offerings != before.offerings}
    assert cheaper and all(name.split(".")[0] in FAMILIES for name in cheaper)
    assert checks < 100_000, checks   # 56,286 now; was len(types) x 300 x 3 = 1,226,700


def test_an_overlays_footprint_is_the_one_each_nodepool_gives():
    """The shared footprints against the rule they replace: each NodePool's own requirements
    (name and template labels) added to every type's, checked in full."""
    from karptui.catalog import bundled_catalog
    from karptui.model import labels as L
    from karptui.sim.karpenter.instancetypes import type_set
    from karptui.sim.karpenter.overlays import _footprints
    from karptui.sim.karpenter.requirements import Req, Reqs

    snapshot = _snapshot(_overlays(60))
    types = type_set(bundled_catalog("us-east-1"))
    pools = list(snapshot.nodepools)
    distinct = 0
    for overlay in [o for o in snapshot.nodeoverlays if o.name < "ov-010" or o.name in ("ov-007", "ov-008")]:
        wanted = Reqs.from_model(overlay.requirements)
        expected = set()
        for pool in pools:
            extra = [Req.one(L.NODEPOOL, pool.name)] + [Req.one(k, v) for k, v in pool.template_labels.items()]
            rows = []
            for row, t in enumerate(types.types):
                if types.reqs[row].plus(extra).compatible(wanted, why=False) is not None:
                    continue
                offerings = tuple(k for k, o in enumerate(t.offerings)
                                  if Reqs.from_labels({L.ZONE: o.zone, L.CAPACITY_TYPE: o.capacity_type})
                                  .intersects(wanted, why=False) is None)
                if offerings:
                    rows.append((row, offerings))
            expected.add(frozenset(rows))
        assert _footprints(types, pools, wanted) == expected, overlay.name
        distinct += len(expected) > 1
    assert distinct == 2   # ov-007 (a NodePool's name) and ov-008 (a template label)


# ---------------------------------------------------------------- spread constraints in a what-if

def _spread_whatif(tmp_path, constraints: list[dict]):
    import yaml
    path = tmp_path / "spread.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "spread", "edits": [
        {"target": "Deployment/default/inflate", "patch": {"spec": {"template": {"spec": {
            "topologySpreadConstraints": [{"$patch": "replace"}, *constraints]}}}}}]}))
    return path


def test_a_whatif_with_10000_spread_constraints_is_refused_in_one_line(cli, tmp_path):
    """Each constraint is counted over every node and pod at every placement: 10,000 of them (each
    on its own key, as the API server would require) ran for over a minute."""
    from karptui import limits

    spread = [{"maxSkew": 1, "topologyKey": f"example.com/k{i}", "whenUnsatisfiable": "ScheduleAnyway",
               "labelSelector": {"matchLabels": {"app": "inflate"}}} for i in range(10_000)]
    path = _spread_whatif(tmp_path, spread)
    with finishes():
        code, out, err = cli("simulate", "topology-spread", "--whatif", path, "-o", "json")
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1
    assert err.strip() == (f"karptui: {path}: edit 1: Deployment/default/inflate: 10,000 topologySpreadConstraints, "
                           f"over karptui's cap of {limits.MAX_SPREAD_CONSTRAINTS} (two per label key, for a node "
                           f"with {limits.MAX_SPREAD_CONSTRAINTS // 2} label keys)")
    # at the cap, it simulates
    with finishes():
        code, out, err = cli("simulate", "topology-spread", "--whatif",
                             _spread_whatif(tmp_path, spread[:limits.MAX_SPREAD_CONSTRAINTS]), "-o", "json")
    assert code == 0, err
    assert json.loads(out)["summary"]


def test_two_spread_constraints_on_one_key_and_action_are_refused_as_the_api_server_does(cli, tmp_path):
    path = _spread_whatif(tmp_path, [
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 2, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "ScheduleAnyway"},
        {"maxSkew": 3, "topologyKey": "topology.kubernetes.io/zone"}])   # DoNotSchedule when not given
    code, out, err = cli("simulate", "topology-spread", "--whatif", path)
    assert (code, out) == (2, "") and len(err.strip().splitlines()) == 1
    assert 'topologySpreadConstraints[2]: Duplicate value: "{topology.kubernetes.io/zone, DoNotSchedule}"' in err


def test_the_spread_cap_allows_two_constraints_per_label_key_of_any_node_seen(tmp_path):
    """The cap's reason, checked: no node in the bundled snapshots or a generated cluster carries
    so many label keys that a pod could need more constraints than the cap (two per key)."""
    from karptui import limits
    from karptui.model import build_snapshot
    from karptui.sources import bundled_snapshot, load_snapshot

    most = 0
    snapshots = [load_snapshot(bundled_snapshot(name)) for name in ("consolidation", "multi-nodepool", "overprovisioning",
                                                     "topology-spread")]
    snapshots.append(build_snapshot(gen_cluster.generate(30, 100, seed=2)["items"]))
    for snapshot in snapshots:
        most = max([most, *(len(n.labels) for n in snapshot.nodes)])
    assert 20 < most and 2 * most * 2 <= limits.MAX_SPREAD_CONSTRAINTS   # twice the most seen, and more
