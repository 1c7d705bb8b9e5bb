"""The Disruption view model: consolidation's commands and blockers in plain words, pods named."""

import pytest

from karptui.logs.timeline import snapshot_events
from karptui.sim import simulate
from karptui.views.disruption import BLOCKED, DECISION, KEPT, blocker, disruption_view
from karptui.whatif import apply_whatif, parse_whatif

XLARGE = "ip-192-168-118-56.ap-northeast-2.compute.internal"      # c5a.xlarge: three inflate pods
TWO_XLARGE = "ip-192-168-40-236.ap-northeast-2.compute.internal"  # c5a.2xlarge: the do-not-disrupt pod
DO_NOT_DISRUPT_POD = "default/report-generator-q7smww69c-qqgq9"
INFLATE_ON_XLARGE = ("default/inflate-wjq4g8lgtc-n7hj5", "default/inflate-wjq4g8lgtc-n92md",
                     "default/inflate-wjq4g8lgtc-smtdw")
PDB_ALLOWS_NONE = {"target": "PodDisruptionBudget/default/inflate-pdb", "patchType": "merge",
                   "patch": {"spec": {"minAvailable": 6}}}  # six healthy inflate pods: no disruption allowed




def view_of(seed, *edits):
    snapshot, catalog = seed
    if edits:
        snapshot = apply_whatif(snapshot, parse_whatif({"edits": list(edits)}, "test", "test")).snapshot
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    return disruption_view(result, snapshot, snapshot_events(snapshot)), result


def by_node(view):
    return {r.node: r for r in view.rows}


def test_the_seed_deletes_the_xlarge_and_the_do_not_disrupt_pod_blocks_the_2xlarge(seed):
    view, _ = view_of(seed)
    rows = by_node(view)
    delete, blocked = rows[XLARGE], rows[TWO_XLARGE]
    assert (delete.group, delete.would, delete.saves) == (DECISION, "delete #1", "$0.1540/h")
    assert delete.because == "underutilized: its 4 pod(s) fit on other nodes"
    assert (blocked.group, blocked.would) == (BLOCKED, "blocked")
    assert blocked.because == f"blocked by pod {DO_NOT_DISRUPT_POD} (karpenter.sh/do-not-disrupt)"
    assert view.commands == 1 and view.savings == pytest.approx(0.154)
    assert view.summary.startswith("1 command (1 delete, 0 replace) would save $0.1540/h; 1 node blocked")


def test_karpenters_own_pdb_event_is_shown_beside_the_simulation_with_the_guarded_pods(seed):
    """The snapshot's DisruptionBlocked event says the PDB blocked the xlarge when it was captured
    (the simulation, on the PDB's spec, finds one disruption allowed): both are said."""
    view, _ = view_of(seed)
    said = by_node(view)[XLARGE].karpenter
    assert said.startswith("blocked by PDB default/inflate-pdb (no disruption allowed), guarding pods "
                           + ", ".join(INFLATE_ON_XLARGE))
    assert said.endswith("(event 2024-09-10 02:09:52)")
    assert by_node(view)[TWO_XLARGE].karpenter.startswith(f"blocked by pod {DO_NOT_DISRUPT_POD}")


def test_a_pdb_allowing_nothing_blocks_the_xlarge_in_the_simulation_too(seed):
    view, result = view_of(seed, PDB_ALLOWS_NONE)
    assert result.disruptions == ()
    row = by_node(view)[XLARGE]
    assert row.group == BLOCKED
    assert row.because == ("blocked by PDB default/inflate-pdb (no disruption allowed), guarding pods "
                           + ", ".join(INFLATE_ON_XLARGE))
    assert row.mark == "blocked: PDB default/inflate-pdb"


def test_marks_are_short_per_node(seed):
    view, _ = view_of(seed)
    assert view.marks == {
        XLARGE: "#1 delete, saves $0.154/h · Karpenter said blocked: PDB default/inflate-pdb",
        TWO_XLARGE: "blocked: do-not-disrupt pod report-generator-q7smww69c-qqgq9",
    }


def test_a_replace_names_the_new_type_and_its_saving(seed):
    view, result = view_of(seed, {"target": "Deployment/default/report-generator", "remove": True},
                           {"target": "PodDisruptionBudget/default/inflate-pdb", "remove": True})
    assert [d.action for d in result.disruptions] == ["replace", "replace"]
    first = result.disruptions[0]
    row = by_node(view)[first.nodes[0]]
    assert row.would == "replace #1"
    assert f"replaced by one {first.replacement.instance_type} on-demand in {first.replacement.zone}" in row.because
    assert row.mark.startswith(f"#1 replace by {first.replacement.instance_type}, saves ${first.savings:.3f}/h")


def test_candidates_consolidation_left_are_kept_with_karpenters_reason(seed):
    """Both nodes spot, no SpotToSpotConsolidation: the 2xlarge's pods fit nowhere cheaper."""
    spot = [{"target": f"Node/{name}", "patchType": "merge",
             "patch": {"metadata": {"labels": {"karpenter.sh/capacity-type": "spot"}}}}
            for name in (XLARGE, TWO_XLARGE)]
    view, result = view_of(seed, {"target": "Deployment/default/report-generator", "remove": True}, *spot)
    assert [b.node for b in result.unconsolidatable] == [TWO_XLARGE]
    row = by_node(view)[TWO_XLARGE]
    assert (row.group, row.would) == (KEPT, "kept")
    assert row.because.startswith("kept: its pods would not all fit elsewhere (not all pods would schedule")
    assert row.mark.startswith("kept: pods would not fit")
    # the drill-in's first line says it once, not "kept: kept: ..."
    assert view.node_lines(TWO_XLARGE)[0] == row.because


@pytest.mark.parametrize("reason, kind, words", [
    ('Pod has "karpenter.sh/do-not-disrupt" annotation (Pod=ns/web-1)', "do-not-disrupt",
     "blocked by pod ns/web-1 (karpenter.sh/do-not-disrupt)"),
    ("pod ns/old has do not evict annotation", "do-not-evict", "blocked by pod ns/old (karpenter.sh/do-not-evict)"),
    ("Pdb prevents pod evictions (PodDisruptionBudget=ns/web)", "pdb", "blocked by PDB ns/web (no disruption allowed)"),
    ("eviction does not support multiple PDBs (PodDisruptionBudget(s)=['ns/a', 'ns/b'])", "pdbs",
     "blocked: a pod guarded by more than one PDB (ns/a, ns/b); Karpenter cannot evict such a pod"),
    ("eviction does not support multiple PDBs (PodDisruptionBudget(s)=[ns/a ns/b])", "pdbs",
     "blocked: a pod guarded by more than one PDB (ns/a, ns/b); Karpenter cannot evict such a pod"),
    ('disruption is blocked through the "karpenter.sh/do-not-disrupt" annotation', "node-annotation",
     "blocked by the node's own karpenter.sh/do-not-disrupt annotation"),
    ("No allowed disruptions for disruption reason Underutilized due to blocking budget", "budget",
     "blocked by its NodePool's disruption budget: no Underutilized disruption allowed now"),
    ("Can't replace with a cheaper node", "not-cheaper", "kept: no cheaper node would hold its pods"),
    ("Can't remove without creating 2 candidates", "new-nodes",
     "kept: its pods would need 2 new nodes, and a replace launches one"),
    ("something new in Karpenter", "other", "something new in Karpenter"),
])
def test_karpenters_reasons_in_plain_words(reason, kind, words):
    found = blocker("n1", reason)
    assert (found.kind, found.words, found.reason) == (kind, words, reason)


def test_the_summary_says_when_the_simulation_stopped_at_its_command_limit(seed, monkeypatch):
    from karptui.views import disruption

    view, _ = view_of(seed)
    assert "stops after" not in view.summary
    monkeypatch.setattr(disruption, "MAX_COMMANDS", 1)
    view, _ = view_of(seed)
    assert view.summary.endswith("(the simulation stops after 1 commands)")


def test_a_command_over_several_nodes_shows_its_saving_once():
    """Issue 29: the pane repeated a command's whole saving on each of its nodes, so the column
    added up to N times what the command saves."""
    from types import SimpleNamespace

    from karptui.model import Snapshot
    from karptui.views.disruption import simulated_view

    command = SimpleNamespace(nodes=("node-a", "node-b", "node-c"), action="delete", method="emptiness",
                              reason="empty", replacement=None, replacement_name="", moves=(), pods=0, savings=0.3,
                              estimated_savings=0.3, estimate_counts="", forceful=False, terminate_first=False)
    result = SimpleNamespace(disruptions=(command,), scores=(), blocked=(), unconsolidatable=(), verdicts={})
    view = simulated_view(result, Snapshot())
    assert [(r.node, r.saves) for r in view.rows] == [("node-a", "$0.3000/h"), ("node-b", "in #1"),
                                                      ("node-c", "in #1")]
    assert view.rows[0].mark == "#1 delete, saves $0.300/h for 3 nodes"
    assert view.rows[1].mark == "#1 delete with 2 other node(s), saving shown once"
    assert view.savings == 0.3
