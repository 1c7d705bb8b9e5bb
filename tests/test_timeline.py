"""Karpenter's events and its log lines on one timeline (issue 13, part 3)."""

from karptui.logs import LogParser
from karptui.logs.timeline import merged, snapshot_events
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.widgets import VirtualTable
from karptui.views.activity import activity_rows


def test_events_fall_between_the_log_lines_by_time():
    logged = list(LogParser().parse([
        '{"level":"INFO","time":"2024-11-05T14:30:00Z","logger":"controller","message":"found provisionable pod(s)",'
        '"pods":1}',
        '{"level":"INFO","time":"2024-11-05T14:32:00.123456789Z","logger":"controller","message":"launched nodeclaim",'
        '"NodeClaim":{"name":"default-t8wzk"}}',
    ]))
    events = [{"line": 0, "time": "2024-11-05T14:31:38+00:00", "kind": "pod_nominated", "origin": "event"},
              {"line": 0, "time": "2024-11-05T14:40:00+00:00", "kind": "disruption_blocked", "origin": "event"}]
    kinds = [e["kind"] for e in merged(logged, events)]
    assert kinds == ["pods_provisionable", "pod_nominated", "nodeclaim_launched", "disruption_blocked"]


def test_a_snapshots_karpenter_events_become_records_and_kubelets_do_not():
    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    found = snapshot_events(snapshot)
    assert found and all(e["origin"] == "event" and e["line"] == 0 for e in found)
    assert {e["kind"] for e in found} >= {"pod_nominated", "disruption_blocked"}
    blocked = next(e for e in found if e["kind"] == "disruption_blocked")
    assert blocked.get("node") or blocked.get("nodeclaim")
    times = [e["time"] for e in found]
    assert times == sorted(times)


def test_the_activity_rows_show_the_snapshots_events_without_a_log():
    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    assert activity_rows([]) == []
    rows = activity_rows([], snapshot_events=snapshot_events(snapshot))
    assert {r.kind for r in rows} >= {"nominated", "blocked"}


async def test_the_activity_pane_lists_karpenters_events():
    app = KarptuiApp(load_snapshot(bundled_snapshot("consolidation")), simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.press("3")
        table = app.screen.query_one("#activity-table", VirtualTable)
        cells = [" ".join(row) for row in table.rows]
        assert any("blocked" in c for c in cells) and any("nominated" in c for c in cells)
        await pilot.press("q")
