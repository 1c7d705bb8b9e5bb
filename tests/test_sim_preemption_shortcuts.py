"""Preemption's later shortcuts give what the plain search gives, on the batch-like clusters of
``test_sim_preemption_kept``: the room below a priority read over every node (``_room``), the
kept dry runs read in one loop (``_dry_runs``), and how many pod sizes keep theirs (``KEPT_SIZES``).
Each is compared, on everything a user sees, with the simulation without it."""

from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.sim.plugins import default_preemption
from tests.simkit import build_snapshot, node, pod
from tests.test_sim_preemption_kept import bound_strategy, cluster, every_way, job_strategy, unshort


def room_afresh(patched):
    """The room every lower-priority pod leaves, summed afresh over every node for each pod."""
    def afresh(ctx, resources):
        state = ctx.state
        freed = state.lower_priority_requests(ctx.pod.priority, None, resources)
        return {r: state.allocatable[r] - state.requested[r] + freed[r] for r in resources}

    patched.setattr(default_preemption, "_room", afresh)


def one_by_one(patched):
    """Every node's dry run through ``_victims_on``, kept ones too."""
    def dry_runs(ctx, nodes):
        kept = default_preemption._kept(ctx) if nodes.size else None
        for i in nodes.tolist():
            yield (i, *default_preemption._victims_on(ctx, i, kept))

    patched.setattr(default_preemption, "_dry_runs", dry_runs)


def one_size(patched):
    """The dry runs of one priority and size kept at a time: each other size's are worked out again."""
    patched.setattr(default_preemption, "KEPT_SIZES", 1)


WAYS = (("room afresh", room_afresh), ("one by one", one_by_one), ("one size", one_size))


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["2", "4"]), min_size=1, max_size=6), bound_strategy, job_strategy)
def test_later_shortcuts_change_nothing_on_random_clusters(nodes, bound, jobs):
    every_way(cluster(nodes, bound, jobs), ways=WAYS)


def test_pods_of_many_sizes_in_turn_preempt_as_with_one_size_kept():
    """Three sizes of urgent pods, one after another, each displacing low-priority pods: with the
    dry runs of every size kept, the answer is the one worked out afresh size after size."""
    items = [node(f"n{k}", cpu="4") for k in range(4)]
    items += [pod(f"low-{k}", node=f"n{k % 4}", cpu="500m", priority=-100) for k in range(24)]
    for k in range(9):
        items.append(pod(f"urgent-{k}", cpu=("700m", "1100m", "1500m")[k % 3], priority=1000,
                         labels={"app": f"urgent{k % 3}"}))
    attempts, _ = every_way(build_snapshot(items), ways=WAYS)
    assert sum(1 for a in attempts if a[4]) >= 3   # some of them did preempt


def test_a_node_full_of_more_important_pods_says_no_victims_not_too_many_pods():
    """The room arithmetic reads every node's room, but counts reasons among the nodes that hold a
    pod to evict: a node full by pod count of pods the pod cannot evict has no victims, and says
    only that, as the dry run on every node does."""
    items = [node("n0", cpu="4", pods="2"), node("n1", cpu="1"), node("n2", cpu="2")]
    items += [pod(f"vip-{k}", node="n0", cpu="100m", priority=1000) for k in range(2)]
    items += [pod("low", node="n1", cpu="200m", priority=-100), pod("vip-2", node="n2", cpu="1500m", priority=1000)]
    items.append(pod("urgent", cpu="1500m", priority=500))
    attempts, _ = every_way(build_snapshot(items), ways=WAYS + (("every node dry-run", unshort),))
    reason = attempts[-1][2]
    assert "2 No preemption victims found for incoming pod" in reason and "1 Insufficient cpu" in reason, reason
    assert "Too many pods" not in reason.partition("preemption:")[2], reason


def _two_nodes_of_victims(victims):
    """Two 2-CPU nodes, each full with the two (priority, start minute) pods given for it, and a
    pod of priority 1000 that needs both of a node's pods gone."""
    items = [node("n0", cpu="2"), node("n1", cpu="2")]
    for k, (at, priority, minute) in enumerate(victims):
        raw = pod(f"v{k}", node=at, cpu="900m", priority=priority)
        raw["status"]["startTime"] = f"2024-05-01T11:0{minute}:00Z"
        items.append(raw)
    items.append(pod("urgent", cpu="1500m", priority=1000))
    attempts, _ = every_way(build_snapshot(items), ways=WAYS)
    return next(a for a in attempts if a[0] == "default/urgent")


def test_the_candidate_whose_most_important_victim_is_least_important_wins():
    """n0's victims are of priority 5 and 1, n1's of 4 and 3: n1's highest (4) is the lower, so
    it wins though its victims' priorities sum higher (pickOneNodeForPreemption's second rule)."""
    urgent = _two_nodes_of_victims([("n0", 1, 0), ("n0", 5, 0), ("n1", 3, 0), ("n1", 4, 0)])
    assert urgent[1] == "n1", urgent


def test_among_equal_candidates_the_latest_started_most_important_victims_win():
    """Victims all of one priority, two a node: n0's earliest started at 11:00, n1's at 11:03, so
    n1's are the later-started and n1 wins (the last rule before the first node)."""
    urgent = _two_nodes_of_victims([("n0", 5, 5), ("n0", 5, 0), ("n1", 5, 4), ("n1", 5, 3)])
    assert urgent[1] == "n1", urgent


def test_a_spread_pod_preempts_its_own_workloads_pods_after_a_node_of_others():
    """A pod spread by zone (DoNotSchedule, maxSkew 1) over its workload's pods, two of which, of
    low priority, fill n1 in zone a; n0 beside it is full of another workload's. Evicting n0's
    pods changes nothing for the spread (they are not counted), evicting n1's does: the answer for
    one label group is not taken for another's, and the pod preempts on n1."""
    from tests.test_sim_preemption_kept import full

    items = [node("n0", "us-east-1a", cpu="2"), node("n1", "us-east-1a", cpu="2"), node("n2", "us-east-1b", cpu="2")]
    items += [pod(f"b-{k}", node="n0", cpu="900m", priority=-100, labels={"app": "b"}) for k in range(2)]
    items += [pod(f"a-{k}", node="n1", cpu="900m", priority=-100, labels={"app": "a"}) for k in range(2)]
    items.append(pod("c-0", node="n2", cpu="1800m", priority=2000, labels={"app": "c"}))
    items.append(pod("urgent", cpu="1500m", priority=1000, labels={"app": "a"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone", "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "a"}}}]))
    attempts, _ = every_way(build_snapshot(items), ways=WAYS + (("full", full),))
    urgent = next(a for a in attempts if a[0] == "default/urgent")
    assert urgent[1] == "n1" and len(urgent[4]) == 2, urgent
