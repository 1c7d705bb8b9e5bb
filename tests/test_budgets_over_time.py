"""Disruption budgets over time: schedules (Karpenter's cron), windows, rounding, reasons, the
candidates a budget holds back, the simulator at the snapshot's time, and ``karptui budgets``."""

import json
from datetime import datetime, timedelta, timezone

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.model.cron import parse_cron
from karptui.model.errors import ModelError
from karptui.model.nodepool import Budget, build_nodepool
from karptui.sim import simulate
from karptui.sim.karpenter.disruption.budgets import DRIFTED, EMPTY, UNDERUTILIZED, active, allowed, changes
from karptui.views.budgets import budgets_lines, budgets_view
from karptui.views.clock import Clock
from karptui.whatif import apply_whatif, parse_whatif

UTC = timezone.utc
FRIDAY_16 = datetime(2026, 11, 27, 16, 0, tzinfo=UTC)
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"
XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"
NO_DO_NOT_DISRUPT = {"target": "Deployment/default/report-generator", "remove": True}


def pool(*budgets, nodes=10):
    raw = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "p"},
           "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                           "name": "default"}, "requirements": []}},
                    "disruption": {"budgets": list(budgets)}}}
    return build_nodepool(raw, raw["apiVersion"], raw["kind"])


# ---- the cron schedule, as Karpenter's Go cron library reads it ----------------------------------
def test_cron_names_ranges_steps_and_macros():
    assert parse_cron("0 9 * * mon-fri").next_after(FRIDAY_16) == datetime(2026, 11, 30, 9, 0, tzinfo=UTC)
    assert parse_cron("*/15 * * * *").next_after(FRIDAY_16) == FRIDAY_16 + timedelta(minutes=15)
    assert parse_cron("30 2/6 * * *").hours == {2, 8, 14, 20}  # N/step runs to the end of the field
    assert parse_cron("0 0 1 JAN,jul ?").months == {1, 7}
    assert parse_cron("@daily").next_after(FRIDAY_16) == datetime(2026, 11, 28, 0, 0, tzinfo=UTC)
    assert parse_cron("@hourly").next_after(FRIDAY_16) == FRIDAY_16 + timedelta(hours=1)
    assert parse_cron("@weekly").next_after(FRIDAY_16) == datetime(2026, 11, 29, 0, 0, tzinfo=UTC)  # Sunday
    assert parse_cron("@monthly").next_after(FRIDAY_16) == datetime(2026, 12, 1, 0, 0, tzinfo=UTC)
    assert parse_cron("@yearly").next_after(FRIDAY_16) == parse_cron("@annually").next_after(FRIDAY_16)


def test_cron_day_fields_either_unless_one_is_a_star():
    # both restricted: the 1st of the month OR a Monday; Nov 30 2026 is a Monday
    assert parse_cron("0 0 1 * mon").next_after(FRIDAY_16) == datetime(2026, 11, 30, tzinfo=UTC)
    assert parse_cron("0 0 1 * mon").next_after(datetime(2026, 11, 30, 1, tzinfo=UTC)) == \
        datetime(2026, 12, 1, tzinfo=UTC)
    # */2 is not a star (the Go library clears it for steps > 1): still "either"
    assert parse_cron("0 0 */2 * mon").any_day is False and parse_cron("0 0 * * mon").any_day is True


@pytest.mark.parametrize("text, words", [
    ("0 9 * *", "has 4 fields"), ("0 9 * * 7", "outside 0-6"), ("@every 1h", "not a cron macro"),
    ("0 25 * * *", "outside 0-23"), ("0 9-5 * * *", "starts after it ends"), ("0 */0 * * *", "step of 0"),
    ("0 9 * * funday", "is not a number or a name")])
def test_cron_refuses_what_karpenter_refuses(text, words):
    with pytest.raises(ModelError, match=words):
        parse_cron(text)


@settings(max_examples=150, deadline=None)
@given(minutes=st.sets(st.integers(0, 59), min_size=1, max_size=4), hours=st.sets(st.integers(0, 23), min_size=1,
       max_size=4), weekdays=st.sets(st.integers(0, 6), min_size=1, max_size=3), offset=st.integers(0, 7 * 24 * 60))
def test_next_after_is_the_first_matching_minute(minutes, hours, weekdays, offset):
    text = f"{','.join(map(str, sorted(minutes)))} {','.join(map(str, sorted(hours)))} * * " \
           f"{','.join(map(str, sorted(weekdays)))}"
    cron = parse_cron(text)
    start = datetime(2026, 1, 1, tzinfo=UTC) + timedelta(minutes=offset, seconds=offset % 60)
    hit = cron.next_after(start)
    assert hit > start and hit.second == 0

    def matches(m):
        return m.minute in minutes and m.hour in hours and (m.weekday() + 1) % 7 in weekdays

    assert matches(hit)
    probe = start.replace(second=0, microsecond=0) + timedelta(minutes=1)
    while probe < hit:  # no matching minute is skipped (at most a week of them)
        assert not matches(probe)
        probe += timedelta(minutes=1)


def test_the_model_refuses_a_schedule_without_duration_and_a_bad_schedule():
    with pytest.raises(ModelError, match="'schedule' must be set with 'duration'"):
        pool({"nodes": "0", "schedule": "0 9 * * *"})
    with pytest.raises(ModelError, match=r"budgets\[0\].schedule: '0 9 \* \*' has 4 fields"):
        pool({"nodes": "0", "schedule": "0 9 * *", "duration": "1h"})


# ---- when a budget is active ------------------------------------------------------------------------
def test_a_scheduled_budget_is_active_from_its_hit_until_just_before_hit_plus_duration():
    b = Budget("0", "0 9 * * mon-fri", 8 * 3600)
    nine = FRIDAY_16.replace(hour=9)
    assert not active(b, nine - timedelta(seconds=1))
    assert active(b, nine)                                  # the hit itself counts
    assert active(b, nine + timedelta(hours=8) - timedelta(seconds=1))
    assert not active(b, nine + timedelta(hours=8))         # hit + duration does not
    assert not active(b, datetime(2026, 11, 28, 10, tzinfo=UTC))  # Saturday
    assert active(Budget("0"), nine) and active(b, None)    # no schedule / no time: always
    assert changes(b, FRIDAY_16, FRIDAY_16 + timedelta(days=3)) == [
        datetime(2026, 11, 27, 17, tzinfo=UTC), datetime(2026, 11, 30, 9, tzinfo=UTC)]


def test_percentages_round_up_and_the_smallest_active_budget_for_the_reason_wins():
    assert allowed(pool({"nodes": "5%"}), 10, EMPTY) == 1       # 0.5 rounds up, as a PDB's maxUnavailable
    assert allowed(pool({"nodes": "34%"}), 3, EMPTY) == 2       # 1.02 -> 2
    assert allowed(pool({"nodes": "0%"}), 3, EMPTY) == 0
    p = pool({"nodes": "50%"}, {"nodes": "3"}, {"nodes": "1", "reasons": ["Drifted"]},
             {"nodes": "0", "reasons": ["Underutilized"], "schedule": "0 9 * * mon-fri", "duration": "8h"})
    assert allowed(p, 10, EMPTY, FRIDAY_16) == 3                # min(5, 3)
    assert allowed(p, 10, DRIFTED, FRIDAY_16) == 1              # its own budget
    assert allowed(p, 10, UNDERUTILIZED, FRIDAY_16) == 0        # office hours
    assert allowed(p, 10, UNDERUTILIZED, FRIDAY_16 + timedelta(hours=2)) == 3  # 18:00: the schedule is over


# ---- the seed: the simulator and the view honour the schedule at the snapshot's time --------------


def scheduled(seed, schedule, duration="3h", reasons=("Underutilized",)):
    """The seed (its do-not-disrupt pod removed) with a "nodes: 0" budget on a schedule; the seed's
    time is 2024-09-10 02:12-02:20 UTC (no capture time: its newest timestamps)."""
    budget = {"nodes": "0", "schedule": schedule, "duration": duration, "reasons": list(reasons)}
    edit = {"target": "NodePool/default", "patchType": "merge",
            "patch": {"spec": {"disruption": {"budgets": [{"nodes": "10%"}, budget]}}}}
    return apply_whatif(seed[0], parse_whatif({"edits": [NO_DO_NOT_DISRUPT, edit]}, "t", "t")).snapshot


def test_consolidation_is_blocked_only_while_the_scheduled_budget_is_active(seed):
    during = simulate(scheduled(seed, "0 2 * * *"), catalog=seed[1], consolidate=True)
    assert during.disruptions == ()
    assert {b.node: b.reason for b in during.blocked}[TWO_XLARGE] == \
        "No allowed disruptions for disruption reason Underutilized due to blocking budget"
    outside = simulate(scheduled(seed, "0 3 * * *"), catalog=seed[1], consolidate=True)
    assert outside.disruptions and {d.reason for d in outside.disruptions} == {"underutilized"}


def test_the_view_names_the_candidates_the_budget_holds_back_and_when_it_ends(seed):
    snapshot = scheduled(seed, "0 2 * * *")
    view = budgets_view(snapshot, seed[1], Clock(datetime(2024, 9, 10, 2, 30, tzinfo=UTC), True), hours=4)
    (default,) = view.pools
    rows = {r.reason: r for r in default.reasons}
    assert rows["Underutilized"].allowed == 0 and rows["Underutilized"].binding == (1,)
    assert set(rows["Underutilized"].held_back) == {TWO_XLARGE, XLARGE}
    assert rows["Underutilized"].timeline == (0, 0, 0, 1, 1)  # 02:30 03:30 04:30 | 05:30 06:30
    assert rows["Underutilized"].changes == ((datetime(2024, 9, 10, 5, tzinfo=UTC), 1),)
    assert rows["Empty"].allowed == 1 and rows["Empty"].held_back == ()  # the schedule is for Underutilized only
    budget = default.budgets[1]
    assert budget.active and budget.allows == 0 and budget.next_change == datetime(2024, 9, 10, 5, tzinfo=UTC)
    assert set(budget.holds_back) == {TWO_XLARGE, XLARGE}
    text = "\n".join(budgets_lines(view))
    assert "budget 1: nodes 0, schedule '0 2 * * *' for 3h, Underutilized: active, allows 0; ends Tue 05:00" in text
    assert "Underutilized  00011  0 allowed now; held back: " in text


def test_cli_budgets_json(cli, write, seed):
    budget = {"nodes": "0", "schedule": "0 2 * * *", "duration": "3h", "reasons": ["Underutilized"]}
    whatif = write("night.yaml", json.dumps({"apiVersion": "karptui/v1", "kind": "WhatIf", "edits": [
        NO_DO_NOT_DISRUPT, {"target": "NodePool/default", "patchType": "merge",
                            "patch": {"spec": {"disruption": {"budgets": [{"nodes": "10%"}, budget]}}}}]}))
    code, out, err = cli("budgets", "consolidation", "--whatif", str(whatif), "--at", "2024-09-10T04:30Z",
                         "--hours", "2", "-o", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert (doc["at"], doc["at_known"], doc["hours"], doc["step_minutes"]) == ("2024-09-10T04:30:00Z", True, 2, 60)
    (default,) = doc["nodepools"]
    assert (default["name"], default["nodes"], default["disrupting"]) == ("default", 2, 0)
    assert default["budgets"][1] == {"index": 1, "nodes": "0", "schedule": "0 2 * * *", "duration": "3h",
                                     "reasons": ["Underutilized"], "active": True, "allows": 0,
                                     "next_change": "2024-09-10T05:00:00Z",
                                     "holds_back": default["budgets"][1]["holds_back"]}
    under = {r["reason"]: r for r in default["reasons"]}["Underutilized"]
    assert under["allowed"] == 0 and under["binding_budgets"] == [1] and len(under["held_back"]) == 2
    assert under["timeline"] == [{"at": "2024-09-10T04:30:00Z", "allowed": 0},
                                 {"at": "2024-09-10T05:30:00Z", "allowed": 1},
                                 {"at": "2024-09-10T06:30:00Z", "allowed": 1}]
    assert under["changes"] == [{"at": "2024-09-10T05:00:00Z", "allowed": 1}]


def test_cli_budgets_bad_input_is_one_line(cli):
    code, out, err = cli("budgets", "consolidation", "--at", "tomorrow")
    assert code == 2 and err.strip() == "karptui: --at: 'tomorrow' is not a time (ISO 8601, e.g. 2026-11-27T09:30Z)"


@settings(max_examples=100, deadline=None)
@given(minute=st.integers(0, 59), hours=st.sets(st.integers(0, 23), min_size=1, max_size=3),
       duration=st.integers(1, 6 * 60), offset=st.integers(0, 3 * 24 * 60 * 60))
def test_active_means_a_hit_in_the_last_duration_hit_included(minute, hours, duration, offset):
    """Karpenter's IsActive (next hit after now - duration is not after now), checked by brute force."""
    schedule = f"{minute} {','.join(map(str, sorted(hours)))} * * *"
    at = datetime(2026, 3, 1, tzinfo=UTC) + timedelta(seconds=offset)
    cron = parse_cron(schedule)
    probe = (at - timedelta(minutes=duration)).replace(second=0, microsecond=0)
    hit_in_window = False
    while probe <= at:
        if at - timedelta(minutes=duration) < probe and probe.minute in cron.minutes and probe.hour in cron.hours:
            hit_in_window = True
        probe += timedelta(minutes=1)
    assert active(Budget("0", schedule, duration * 60.0), at) is hit_in_window


@pytest.mark.parametrize("at, hours", [("9999-12-31T23:00:00Z", "24"), ("9999-12-31T00:00:00Z", "48")])
def test_a_window_past_the_calendars_end_is_one_line_and_exit_2(cli, at, hours):
    """Issue 29 item 16: `budgets --at 9999-12-31T23:00` was an internal error (exit 1)."""
    code, out, err = cli("budgets", "topology-spread", "--at", at, "--hours", hours)
    assert code == 2 and out == ""
    assert err.strip().splitlines() == [f"karptui: --at: {at[:16]}Z leaves no {hours}-hour window before "
                                        "the year 9999 ends"]


def test_a_window_at_the_calendars_start_is_answered(cli):
    code, out, _ = cli("budgets", "topology-spread", "--at", "0001-01-01T00:00:00Z")
    assert code == 0 and out


def test_held_back_drifted_nodes_are_the_later_drifted(cli, tmp_path):
    """Drift takes the earliest drifted first, so a budget of 1 holds back the one drifted later, even
    when consolidation's order (best savings per cost) would put it first."""
    import yaml

    from karptui.model.snapshot import SnapshotMeta
    from karptui.sources.snapshot_file import write_snapshot
    from tests.karpenter_spec.harness import NOW, Cluster, named_catalog

    types = named_catalog("fake-default")
    cluster = Cluster({t["name"]: t for t in types})
    cluster.apply({"kind": "NodePool", "metadata": {"name": "default"},
                   "spec": {"disruption": {"consolidateAfter": "Never", "budgets": [{"nodes": "1"}]}}})
    for name, itype, since in (("node-a", "arm-instance-type", "10m"), ("node-b", "small-instance-type", "2h")):
        cluster.add_node({"name": name, "instanceType": itype, "zone": "test-zone-1", "capacityType": "on-demand",
                          "nodepool": "default", "drifted": True, "driftedSince": since})
    snapshot, catalog = tmp_path / "snap.yaml", tmp_path / "catalog.yaml"
    write_snapshot(snapshot, cluster.manifests(), SnapshotMeta(name="drift", captured_at=NOW))
    catalog.write_text(yaml.safe_dump({"instanceTypes": types}))
    code, out, err = cli("budgets", str(snapshot), "--instance-types", str(catalog), "--hours", "0", "-o", "json")
    assert code == 0, err
    drifted = {r["reason"]: r for r in json.loads(out)["nodepools"][0]["reasons"]}["Drifted"]
    assert (drifted["candidates"], drifted["held_back"]) == (["node-b", "node-a"], ["node-a"])
