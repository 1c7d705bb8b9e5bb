"""DefaultPreemption as kube-scheduler runs it: how many candidates its dry runs collect, when they
stop, how one node is picked among them and in what order a node's victims are given.

The expected outcomes follow kube-scheduler's DefaultPreemption (calculateNumCandidates,
DryRunPreemption, pickOneNodeForPreemption, SelectVictimsOnNode with util.MoreImportantPod);
the clusters are ours.
"""

import pytest

from karptui.sim.plugins import default_preemption
from karptui.sim.plugins.default_preemption import candidates_wanted
from tests.simkit import node, pod, run

TAINT = [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]


def pdb(name, labels, allowed=0):
    return {"apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": name, "namespace": "default"},
            "spec": {"minAvailable": 1, "selector": {"matchLabels": labels}}, "status": {"disruptionsAllowed": allowed}}


def attempt(result, name):
    return next(a for a in result.attempts if a.pod.name == name)


@pytest.mark.parametrize("nodes, wanted", [
    (0, 0),          # nowhere to look
    (1, 1),          # never more than the nodes there are
    (99, 99),
    (100, 100),
    (101, 100),      # at least MinCandidateNodesAbsolute (100) ...
    (999, 100),      # ... while 10 percent is fewer
    (1000, 100),
    (1010, 101),     # MinCandidateNodesPercentage (10) of them, rounded down
    (5000, 500),
])
def test_candidates_wanted_is_ten_percent_of_the_nodes_at_least_100_at_most_all(nodes, wanted):
    assert candidates_wanted(nodes) == wanted


def test_the_candidates_are_counted_among_nodes_where_preemption_might_help():
    """1,100 nodes, of which 300 carry a taint the pod does not tolerate (unresolvable: preemption
    cannot help there): 10 percent of the 800 others is 80, so the dry runs stop at the 100th
    candidate, and the node past it whose victim is the least important is never weighed (10
    percent of all 1,100 nodes would have gone on to 110 candidates and found it)."""
    items = []
    for k in range(1100):
        tainted = k < 300
        items.append(node(f"n{k:04d}", cpu="1", **({"taints": TAINT} if tainted else {})))
        if not tainted:
            cheap = k == 300 + 105   # the 106th node where preemption might help
            items.append(pod(f"low-{k:04d}", node=f"n{k:04d}", cpu="800m", priority=1 if cheap else 5))
    items.append(pod("urgent", cpu="800m", priority=1000))
    urgent = attempt(run(*items), "urgent")
    assert urgent.node == "n0300"
    assert urgent.preempted == ("default/low-0300",)



def test_the_dry_runs_go_on_until_one_candidate_breaks_no_pdb():
    """120 nodes: on the first 100 the only victim is guarded by a PDB that allows no disruption;
    the 101st has an unguarded one. 100 candidates are wanted, but while every one found breaks a
    PDB the dry runs go on; the 101st is found and picked for breaking none (taking only the
    count, the dry runs stopped at 100 and evicted a guarded pod)."""
    items = [pdb("db", {"app": "db"})]
    for k in range(120):
        items.append(node(f"n{k:03d}", cpu="1"))
        guarded = k < 100
        items.append(pod(f"low-{k:03d}", node=f"n{k:03d}", cpu="800m", priority=1,
                         labels={"app": "db" if guarded else "batch"}))
    items.append(pod("urgent", cpu="800m", priority=1000))
    urgent = attempt(run(*items), "urgent")
    assert urgent.node == "n100"
    assert urgent.preempted == ("default/low-100",)


def test_victims_of_negative_priority_are_not_better_for_being_more():
    """Two nodes whose victims are all of priority -10: two of them on n1, one on n2. Each victim's
    priority is counted from MaxInt32+1 up before they are summed, so the node with fewer victims
    has the smaller sum and is picked (summed as they are, -20 beat -10 and both went)."""
    items = [node("n1", cpu="2"), node("n2", cpu="2"),
             pod("low-a", node="n1", cpu="1", priority=-10), pod("low-b", node="n1", cpu="1", priority=-10),
             pod("low-c", node="n2", cpu="2", priority=-10),
             pod("urgent", cpu="2", priority=0)]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n2", ("default/low-c",))


@pytest.mark.parametrize("by_room", [True, False])
def test_victims_given_back_in_two_groups_are_put_in_order_of_importance(by_room, monkeypatch):
    """Both pods on n1 must go. The PDB-guarded one (priority 1) is tried first for a reprieve, the
    other (priority 5) after it, so they become victims in that order; as both groups hold pods,
    the victims are then sorted most important first, and the pods are evicted in that order.
    Worked out on the node's room or by placing and evicting pods (the full dry run), alike."""
    if not by_room:
        monkeypatch.setattr(default_preemption, "only_resources_see_evictions", lambda ctx, leaving: False)
    items = [node("n1", cpu="4"), pdb("db", {"app": "db"}),
             pod("guarded", node="n1", cpu="2", priority=1, labels={"app": "db"}),
             pod("plain", node="n1", cpu="2", priority=5, labels={"app": "batch"}),
             pod("urgent", cpu="4", priority=1000)]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n1", ("default/plain", "default/guarded"))


def test_victims_of_one_group_keep_their_reprieve_order():
    """Without a PDB guarding any of them, n1's victims are tried and taken most important first,
    and stay in that order."""
    items = [node("n1", cpu="4"),
             pod("low", node="n1", cpu="2", priority=1),
             pod("mid", node="n1", cpu="2", priority=5),
             pod("urgent", cpu="4", priority=1000)]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n1", ("default/mid", "default/low"))


def started(raw, created, start=None):
    raw["metadata"]["creationTimestamp"] = f"2024-05-01T{created}:00Z"
    if start is not None:
        raw["status"]["startTime"] = f"2024-05-01T{start}:00Z"
    return raw


def test_of_two_alike_victims_the_later_started_goes_not_the_later_created():
    """Two pods of one priority on n1, one of which must go: the one created first started last
    (its image was slow to pull). Pods of one priority are ranked by status.startTime, so the one
    that started last is the victim, whatever their creation times say."""
    items = [node("n1", cpu="4"),
             started(pod("slow", node="n1", cpu="2", priority=1), "11:00", "11:50"),
             started(pod("quick", node="n1", cpu="2", priority=1), "11:30", "11:35"),
             pod("urgent", cpu="2", priority=1000)]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n1", ("default/slow",))


def test_the_node_whose_victims_started_last_is_picked():
    """One victim each on n1 and n2, alike in priority: n1's started last (though created first),
    so n1 is picked; a victim not started at all counts as starting now, later still (n3)."""
    items = [node("n1", cpu="2"), node("n2", cpu="2"),
             started(pod("on-n1", node="n1", cpu="2", priority=1), "11:00", "11:50"),
             started(pod("on-n2", node="n2", cpu="2", priority=1), "11:30", "11:35"),
             pod("urgent", cpu="2", priority=1000)]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n1", ("default/on-n1",))
    items[1:1] = [node("n3", cpu="2"), started(pod("on-n3", node="n3", cpu="2", priority=1), "10:00")]
    urgent = attempt(run(*items), "urgent")
    assert (urgent.node, urgent.preempted) == ("n3", ("default/on-n3",))
