"""The pending-pods view model on the topology seed: the three voices and where they disagree."""

from karptui.catalog import catalog_from_snapshot_region
from karptui.sim import simulate
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.views.pending import pending_rows, simulated_cell


def seed_rows():
    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    result = simulate(snapshot, catalog=catalog_from_snapshot_region(snapshot))
    attempts = {a.pod.key: a for a in result.attempts}
    return [(row, attempts[row.key]) for row in pending_rows(snapshot)]


def test_every_pending_pod_has_the_scheduler_reason_and_an_owner():
    rows = seed_rows()
    assert len(rows) == 6
    for row, _ in rows:
        assert row.owner == "Deployment/default/host-spread"
        assert "didn't match pod topology spread constraints" in row.reason


def test_simulator_launch_disagrees_only_where_karpenter_logged_a_failure():
    cells = {row.key: (simulated_cell(row, attempt), row.karpenter) for row, attempt in seed_rows()}
    for (text, disagrees), karpenter in cells.values():
        assert text.startswith("new ")
        assert disagrees == bool(karpenter)
    assert sum(1 for (_, d), _ in cells.values() if d) == 2


def test_no_answer_yet_and_unschedulable_answers():
    row, attempt = seed_rows()[0]
    assert simulated_cell(row, None) == ("…", False)
    stuck = type(attempt)(pod=attempt.pod, node=None, reason="0/9 nodes are available: 9 Insufficient cpu.")
    assert simulated_cell(row, stuck) == ("pending: 0/9 nodes are available: 9 Insufficient cpu.", False)
    bound = type(attempt)(pod=attempt.pod, node="ip-192-168-11-21.ap-northeast-2.compute.internal")
    text, disagrees = simulated_cell(row, bound)
    assert text.startswith("fits ip-192-168-11-21") and disagrees


def test_detail_strip_text_for_each_answer_of_the_simulator():
    from karptui.views.pending import pending_detail, sort_pending

    snapshot = load_snapshot(bundled_snapshot("topology-spread"))
    row, attempt = seed_rows()[0]
    waiting = pending_detail(row, None, snapshot)
    assert waiting.simulator == "simulating…" and not waiting.disagreement
    bound = type(attempt)(pod=attempt.pod, node="ip-192-168-11-21.ap-northeast-2.compute.internal")
    detail = pending_detail(row, bound, snapshot)
    assert detail.simulator == "would fit on node ip-192-168-11-21 (c5.2xlarge, ap-northeast-2a) as the cluster is now"
    assert detail.disagreement.startswith("kube-scheduler: 0/9 nodes are available")
    assert detail.lines()[0].startswith("≠ ")
    stuck = type(attempt)(pod=attempt.pod, node=None, reason="0/9 nodes are available: 9 Insufficient cpu.")
    assert pending_detail(row, stuck, snapshot).simulator == \
        "stays pending: 0/9 nodes are available: 9 Insufficient cpu."
    rows = [r for r, _ in seed_rows()]
    by_karpenter = sort_pending(rows, "karpenter", {})
    assert [bool(r.karpenter) for r in by_karpenter] == [True, True, False, False, False, False]
