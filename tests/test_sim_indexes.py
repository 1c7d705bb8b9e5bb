"""The indexes a simulation keeps between pods, against counting afresh.

Each is a shortcut the simulator takes so that a pod on a large cluster costs what its
workload changed, not a pass over every node: the term groups' sparse per-node counts,
a zone's flags read off per node, the number naming which nodes are taken out, and on
Karpenter's side the hostname groups' counts, a spread filter's nodes and the room per
pod size, kept across consolidation's simulations. Each must answer what the plain
computation answers, whatever was placed or evicted.
"""

import numpy as np
from hypothesis import example, given, settings
from hypothesis import strategies as st

from karptui.model import build_snapshot
from karptui.sim.plugins.inter_pod_affinity import term_index
from karptui.sim.skew import allows
from karptui.sim.state import ClusterState
from karptui.sim.topology import Domains
from tests.simkit import HOST, ZONE, node, pod

ZONES = ("zone-a", "zone-b", "zone-c")


def anti_pod(name, app, on=None):
    """A pod that keeps its own app off its node (required anti-affinity on hostname)."""
    return pod(name, node=on, labels={"app": app}, affinity={"podAntiAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": [
            {"labelSelector": {"matchLabels": {"app": app}}, "topologyKey": HOST}]}})


def cluster(nodes: int, bound: list[tuple[str, int]]):
    items = [node(f"n{i}", ZONES[i % 3]) for i in range(nodes)]
    items += [anti_pod(f"b{k}", app, on=f"n{i % nodes}") for k, (app, i) in enumerate(bound)]
    return build_snapshot(items)


def brute_counts(state: ClusterState, app: str) -> list[int]:
    """Pods per node whose own anti-affinity term selects ``app`` (what a term group counts)."""
    return [sum(1 for p in pods if p.labels.get("app") == app and p.affinity.anti_required) for pods in state.pods]


apps = st.sampled_from(["web", "db"])


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(apps, st.integers(0, 5)), max_size=8),
       st.lists(st.tuples(apps, st.integers(0, 5), st.booleans()), max_size=20), st.integers(0, 20))
def test_term_group_counts_follow_placements_whenever_their_vector_is_first_read(nodes, bound, moves, read_at):
    """A group's counts are kept sparse until a pod first asks for its vector: the vector, made
    before, during or after the moves, and the sparse map always agree with a fresh count."""
    snapshot = cluster(nodes, bound)
    state = ClusterState(snapshot)
    index = term_index(state)
    probe = {app: build_snapshot([pod(f"probe-{app}", labels={"app": app})]).pods[0] for app in ("web", "db")}
    placed = []

    def check(read: bool) -> None:
        for app in ("web", "db"):
            groups = index.matching("anti", probe[app])
            want = brute_counts(state, app)
            assert sum(len(counts.on) for _, counts in groups) == sum(1 for c in want if c)
            for _, counts in groups:
                assert counts.any() == any(want)
                assert dict(counts.on) == {i: c for i, c in enumerate(want) if c}
                if read:
                    assert counts.vector.tolist() == want

    for step, (app, where, evict) in enumerate(moves):
        if evict and placed:
            p, i = placed.pop(where % len(placed))
            state.evict(p, i)
        else:
            p = build_snapshot([anti_pod(f"m{step}", app)]).pods[0]
            state.place(p, where % nodes)
            placed.append((p, where % nodes))
        check(read=step >= read_at)
    check(read=True)


def test_a_copied_state_counts_its_term_groups_apart_from_the_original():
    snapshot = cluster(3, [("web", 0)])
    state = ClusterState(snapshot)
    probe = build_snapshot([pod("probe", labels={"app": "web"})]).pods[0]
    (_, original), = term_index(state).matching("anti", probe)
    assert original.vector.tolist() == [1, 0, 0]
    copy = state.copy()
    copy.place(build_snapshot([anti_pod("new", "web")]).pods[0], 2)
    (_, copied), = term_index(copy).matching("anti", probe)
    assert copied.vector.tolist() == [1, 0, 1]
    assert original.vector.tolist() == [1, 0, 0] and dict(original.on) == {0: 1}


@settings(max_examples=80, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", None]), min_size=1, max_size=12), st.data())
def test_domain_flags_read_off_per_node_as_each_node_has_its_label(values, data):
    """Domains.on_nodes (kept per pattern for a few domains) against reading each node's own
    domain: a node without the key never gets a flag."""
    items = [node(f"n{i:02d}", labels={"rack": v} if v else {}) for i, v in enumerate(values)]
    nodes = build_snapshot(items).nodes
    nodes = sorted(nodes, key=lambda n: n.name)
    domains = Domains("rack", nodes)
    for _ in range(3):  # the same pattern again comes from what was kept
        flags = np.array(data.draw(st.lists(st.booleans(), min_size=domains.size, max_size=domains.size)), dtype=bool)
        want = [bool(flags[domains.values.index(n.labels["rack"])]) if "rack" in n.labels else False for n in nodes]
        assert domains.on_nodes(flags).tolist() == want
        assert domains.on_nodes(flags.copy()).tolist() == want


def test_domain_flags_read_off_when_there_are_many_domains():
    """Past Domains.FEW domains nothing is kept per pattern, and the answer is the same kind."""
    count = Domains.FEW + 6
    items = [node(f"n{i:03d}", labels={"rack": f"r{i // 2}"}) for i in range(2 * count)]
    nodes = sorted(build_snapshot(items).nodes, key=lambda n: n.name)
    domains = Domains("rack", nodes)
    assert domains.size == count
    flags = np.arange(count) % 5 == 0
    assert domains.on_nodes(flags).tolist() == [int(n.labels["rack"][1:]) % 5 == 0 for n in nodes]
    hostnames = Domains(HOST, nodes)
    per_node = np.arange(len(nodes)) % 3 == 0
    assert hostnames.one_per_node
    assert hostnames.on_nodes(per_node).tolist() == per_node.tolist()  # each node its own domain


def test_taken_out_names_each_set_of_nodes_by_one_number():
    state = ClusterState(cluster(4, []))
    empty = state.taken_out()
    state.excluded[[1, 2]] = True
    some = state.taken_out()
    assert some != empty
    state.excluded[2] = False
    one = state.taken_out()
    assert one not in (empty, some)
    state.excluded[2] = True
    assert state.taken_out() == some  # the same nodes again: the same number
    state.excluded[:] = False
    assert state.taken_out() == empty
    copy = state.copy()
    copy.excluded[[1, 2]] = True
    assert copy.taken_out() == some  # a copy keeps the numbering it started from
    assert state.taken_out() == empty


@given(st.integers(0, 50), st.integers(0, 1), st.integers(0, 50), st.integers(1, 5))
def test_a_domain_allows_the_pod_as_the_skew_rule_says(count, self_match, floor, max_skew):
    """kube-scheduler's rule, written out: count + (1 if the pod matches itself) - global minimum
    must not exceed maxSkew; the vector form answers each entry the same."""
    rule = count + self_match - floor <= max_skew
    assert bool(allows(count, self_match, floor, max_skew)) == rule
    assert allows(np.array([count, count]), self_match, floor, max_skew).tolist() == [rule, rule]


def test_zone_flags_come_from_the_zone_label():
    nodes = sorted(build_snapshot([node(f"n{i}", ZONES[i % 3]) for i in range(6)]).nodes, key=lambda n: n.name)
    zones = Domains(ZONE, nodes)
    refused = np.array([value == "zone-b" for value in zones.values])
    assert [n.name for n, flag in zip(nodes, zones.on_nodes(refused)) if flag] == ["n1", "n4"]


def test_an_index_of_terms_made_after_pods_moved_counts_where_they_are_now():
    """The bound pods with affinity are noted while the snapshot is bound; an index made after
    a placement and an eviction must count the cluster as it is then, not as it was bound."""
    snapshot = cluster(3, [("web", 0), ("web", 1)])
    state = ClusterState(snapshot)
    state.evict(state.pods[1][0], 1)
    state.place(build_snapshot([anti_pod("new", "web")]).pods[0], 2)
    probe = build_snapshot([pod("probe", labels={"app": "web"})]).pods[0]
    (_, counts), = term_index(state).matching("anti", probe)
    assert counts.vector.tolist() == [1, 0, 1]
    fresh = ClusterState(snapshot)
    (_, counts), = term_index(fresh).matching("anti", probe)
    assert counts.vector.tolist() == [1, 1, 0]


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 6), st.lists(st.tuples(apps, st.integers(0, 5)), max_size=10),
       st.lists(st.lists(st.integers(0, 5), max_size=3), min_size=1, max_size=4),
       st.lists(st.tuples(apps, st.integers(0, 5), st.booleans()), max_size=6))
def test_karpenter_hostname_groups_count_the_pods_on_nodes_not_taken_out(nodes, bound, runs, moves):
    """Karpenter's hostname groups take their counts per node from an index kept while the cluster
    stands still, less the nodes a run takes out: run after run (as consolidation's simulations
    take out different candidates), and after pods come and go, they count what is there."""
    from karptui.sim.karpenter.topology import Topology

    items = [node(f"n{i}", ZONES[i % 3], labels={HOST: f"host-{i}"}) for i in range(nodes)]
    items += [anti_pod(f"b{k}", app, on=f"n{i % nodes}") for k, (app, i) in enumerate(bound)]
    items += [pod("spread-web", labels={"app": "web"}, topologySpreadConstraints=[
        {"maxSkew": 1, "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule",
         "labelSelector": {"matchLabels": {"app": "web"}}, "nodeTaintsPolicy": "Honor"}])]
    snapshot = build_snapshot(items)
    state = ClusterState(snapshot)
    pending = [anti_pod("p-web", "web"), anti_pod("p-db", "db")]
    pending = list(build_snapshot(pending).pods) + [p for p in snapshot.pods if p.name == "spread-web"]
    extra = iter(build_snapshot([anti_pod(f"m{k}", app) for k, (app, _, _) in enumerate(moves)]).pods)
    for k, taken_out in enumerate(runs):
        if k and k - 1 < len(moves):  # the cluster changes between some runs
            app, i, evict = moves[k - 1]
            i %= nodes
            present = [p for p in state.pods[i] if p.labels.get("app") == app]
            if evict and present:
                state.evict(present[0], i)
            else:
                state.place(next(extra), i)
        out = sorted({i % nodes for i in taken_out})
        state.excluded[out] = True
        try:
            topology = Topology(state, {}, pending)
            for group in topology.groups.values():
                if group.key != HOST:
                    continue
                app = group.selector.match_labels[0][1]
                want = {f"host-{i}": n for i in range(nodes) if i not in out
                        for n in [sum(1 for p in state.pods[i] if p.labels.get("app") == app)] if n}
                assert {h: c for h, c in group.domains.items() if c} == want
        finally:
            state.excluded[out] = False


tiers = st.sampled_from(["gold", "silver"])
taint_sets = st.lists(st.sampled_from(["dedicated", "gpu"]), unique=True, max_size=2)


@settings(max_examples=80, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(ZONES), st.one_of(st.none(), tiers), taint_sets), min_size=1, max_size=6),
       st.one_of(st.none(), tiers), st.lists(st.sampled_from(ZONES), unique=True, max_size=2),
       st.lists(st.sampled_from(["dedicated", "gpu"]), unique=True, max_size=2),
       st.sampled_from(["Honor", "Ignore"]), st.sampled_from(["Honor", "Ignore"]))
def test_a_spread_node_filter_over_every_node_answers_as_it_does_node_by_node(
        nodes, selector, zones, tolerated, taint_policy, affinity_policy):
    """Karpenter's topology counts a spread constraint's pods on the nodes its filter admits; the
    filter worked out over every node at once (from masks kept per toleration set and per
    requirement set) must admit exactly the nodes it admits one by one."""
    from karptui.sim.karpenter.requirements import Reqs
    from karptui.model.taints import tolerates_all
    from karptui.sim.karpenter.topologygroup import NodeFilter

    items = [node(f"n{i}", zone, labels={"tier": tier} if tier else {},
                  taints=[{"key": t, "value": "true", "effect": "NoSchedule"} for t in taints])
             for i, (zone, tier, taints) in enumerate(nodes)]
    spec: dict = {"tolerations": [{"key": t, "operator": "Exists"} for t in tolerated]}
    if selector:
        spec["nodeSelector"] = {"tier": selector}
    if zones:
        spec["affinity"] = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": ZONE, "operator": "In", "values": zones}]},
            {"matchExpressions": [{"key": "tier", "operator": "Exists"}]}]}}}
    snapshot = build_snapshot([*items, pod("p", **spec)])
    node_filter = NodeFilter.for_pod(snapshot.pods[0], taint_policy, affinity_policy)
    reqs = [Reqs.from_labels(n.labels) for n in snapshot.nodes]
    one_by_one = [node_filter.matches(n.taints, reqs[i]) for i, n in enumerate(snapshot.nodes)]
    at_once = node_filter.over(
        len(reqs), lambda r: np.array([mine.compatible(r, why=False) is None for mine in reqs]),
        lambda t: np.array([tolerates_all(n.taints, t) for n in snapshot.nodes]))
    assert at_once.tolist() == one_by_one


def test_karpenter_existing_nodes_have_less_room_once_moved_pods_settle():
    """After a delete is carried out, the pods it moved take room on the nodes that got them:
    the room kept per pod size must shrink with it, or the next simulation overfills them."""
    from karptui.catalog import bundled_catalog
    from karptui.sim.karpenter.existingnode import ExistingPool, base_vector, existing_nodes

    snapshot = build_snapshot([node("n0", ZONES[0], cpu="2", pods="10"), node("n1", ZONES[1], cpu="2", pods="10"),
                               pod("a", node="n0", cpu="1500m")])
    state = ClusterState(snapshot)
    pool = ExistingPool(existing_nodes(state, snapshot, [], bundled_catalog("us-east-1", ZONES), set()))
    moving = snapshot.pods[0]
    need = base_vector(moving.requests)
    need[2] = 1
    assert pool.fitting(need).tolist() == [False, True]
    pool.settle([(moving, state.index["n1"])])
    assert pool.fitting(need).tolist() == [False, False]


def test_karpenter_node_masks_answer_as_each_node_does_whichever_equal_key_asks():
    """The masks kept per toleration set and per requirement set (looked up by the set object
    first) give each node's own answer, and an equal set made apart gets the same answer."""
    from karptui.model.taints import tolerates_all
    from karptui.sim.karpenter.nodemasks import NodeMasks
    from karptui.sim.karpenter.requirements import Reqs

    snapshot = build_snapshot([
        node("n0", ZONES[0], labels={"tier": "gold"}, taints=[{"key": "gpu", "value": "true", "effect": "NoSchedule"}]),
        node("n1", ZONES[1], labels={"tier": "silver"}),
        pod("p", tolerations=[{"key": "gpu", "operator": "Exists"}], nodeSelector={"tier": "gold"}),
        pod("q", nodeSelector={"tier": "gold"})])
    nodes = snapshot.nodes
    reqs = [Reqs.from_labels(n.labels) for n in nodes]
    masks = NodeMasks([n.taints for n in nodes], reqs.__getitem__)
    for p in snapshot.pods:
        want = [tolerates_all(n.taints, p.tolerations) for n in nodes]
        assert masks.tolerated(p.tolerations).tolist() == want
        assert masks.tolerated(tuple(p.tolerations)).tolist() == want
        selector = Reqs.from_labels(p.node_selector)
        assert masks.admitted(selector).tolist() == [r.compatible(selector, why=False) is None for r in reqs]
        assert masks.admitted(Reqs.from_labels(dict(p.node_selector))).tolist() == [True, False]
    assert masks.tolerated(()).tolist() == [False, True]


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["n0", "n1", "n2", "gone", None]),
                          st.sampled_from(["Running", "Pending", "Succeeded", "Failed"]),
                          st.integers(1, 4)), max_size=14),
       st.booleans())
def test_binding_walks_the_snapshots_pods_in_order_and_accounts_each_bound_one_on_its_node(pods, some_nodes):
    """The state binds the snapshot's bound pods in the snapshot's order (Snapshot.bound_pods),
    not node by node: each node still holds its pods in that order, as pods_by_node gives
    them, and what they request adds up per node; finished pods, pending pods and pods bound to a
    node the state leaves out (or that is gone) are not on any node."""
    items = [node(f"n{i}", ZONES[i]) for i in range(3)]
    for k, (on, phase, cpu) in enumerate(pods):
        raw = pod(f"p{k}", node=on, cpu=f"{cpu}00m")
        raw["status"]["phase"] = phase
        items.append(raw)
    snap = build_snapshot(items)
    kept = [n for n in snap.nodes if n.name != "n1"] if some_nodes else None
    state = ClusterState(snap, kept)
    wanted = {n.name: [p.name for p in snap.pods
                       if p.node_name == n.name and p.phase not in ("Succeeded", "Failed")]
              for n in state.nodes}
    assert [p.name for p in snap.bound_pods] == [p.name for p in snap.pods
                                                 if p.node_name and p.phase not in ("Succeeded", "Failed")]
    assert {n.name: [p.name for p in state.pods[i]] for i, n in enumerate(state.nodes)} == wanted
    assert {n.name: [p.name for p in snap.pods_by_node[n.name]] for n in state.nodes} == wanted
    cpu = {f"p{k}": c * 100 for k, (_, _, c) in enumerate(pods)}
    assert [int(v) for v in state.requested["cpu"]] == [sum(cpu[name] for name in wanted[n.name]) for n in state.nodes]
    assert [int(v) for v in state.requested["pods"]] == [len(wanted[n.name]) for n in state.nodes]


# ---- the term groups a pod looks up, filed by namespace and label, against testing every group

label_keys = st.sampled_from(["app", "tier", "team"])
label_values = st.sampled_from(["web", "db", "batch"])
some_labels = st.dictionaries(label_keys, label_values, max_size=3)
namespaces = st.sampled_from(["default", "jobs", "web"])
expressions = st.builds(lambda key, op, values: {"key": key, "operator": op, **({"values": values} if op in ("In", "NotIn") else {})},
                        label_keys, st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
                        st.lists(label_values, min_size=1, max_size=2))
# absent (selects nothing), empty (everything), matchLabels, expressions or both
selectors = st.one_of(st.none(), st.just({}), st.builds(lambda labels, exprs: {
    **({"matchLabels": labels} if labels else {}), **({"matchExpressions": exprs} if exprs else {})},
    some_labels, st.lists(expressions, max_size=2)))
# the pod's own namespace, a list, or every namespace (an empty namespaceSelector)
term_namespaces_ = st.one_of(st.just({}), st.builds(lambda ns: {"namespaces": ns}, st.lists(namespaces, min_size=1, max_size=2)),
                             st.just({"namespaceSelector": {}}))
terms = st.builds(lambda selector, ns, key: {**({"labelSelector": selector} if selector is not None else {}), **ns,
                                             "topologyKey": key},
                  selectors, term_namespaces_, st.sampled_from([HOST, ZONE]))


def _affinity(anti, preferred):
    out = {}
    if anti:
        out["podAntiAffinity"] = {"requiredDuringSchedulingIgnoredDuringExecution": anti}
    if preferred:
        out["podAffinity"] = {"preferredDuringSchedulingIgnoredDuringExecution": [
            {"weight": 10 + k, "podAffinityTerm": t} for k, t in enumerate(preferred)]}
    return out


bound_pods = st.lists(st.tuples(some_labels, namespaces, st.lists(terms, max_size=2), st.lists(terms, max_size=2)),
                      max_size=10)


@settings(max_examples=150, deadline=None)
@given(bound_pods, bound_pods, st.lists(st.tuples(some_labels, namespaces), min_size=1, max_size=6))
def test_a_pod_finds_the_term_groups_that_select_it_as_testing_every_group_finds(before, after, probes):
    """The groups a pod looks up (filed under namespaces and a label its selector requires) are
    every group whose term selects it, in the groups' order: for pods asking first, and again
    after placements made new groups."""
    from karptui.sim.plugins.inter_pod_affinity import pair_matches

    def bound(specs, first):
        return [pod(f"b{first + k}", node=f"n{k % 3}", labels=labels, namespace=ns, affinity=_affinity(anti, pref))
                for k, (labels, ns, anti, pref) in enumerate(specs)]

    snapshot = build_snapshot([node(f"n{i}", ZONES[i]) for i in range(3)] + bound(before, 0)
                              + [pod(f"probe-{k}", labels=labels, namespace=ns) for k, (labels, ns) in enumerate(probes)])
    state = ClusterState(snapshot)
    index = term_index(state)
    pending = [p for p in snapshot.pods if p.name.startswith("probe-")]

    def check():
        for p in pending:
            for which, groups in (("anti", index.anti), ("scored", index.scored)):
                want = [(key, counts) for key, counts in groups.items() if pair_matches(key[0], p)]
                got = index.matching(which, p)
                assert [key for key, _ in got] == [key for key, _ in want]
                assert all(a is b for (_, a), (_, b) in zip(got, want))

    check()
    for k, p in enumerate(build_snapshot(bound(after, 100)).pods):
        state.place(p, k % 3)
    check()
    copy = state.copy()
    index = term_index(copy)
    check()


# ---- node affinity's masks, asked per distinct label value, against asking each node

node_labels = st.dictionaries(st.sampled_from(["tier", "size", "pool"]), st.sampled_from(["a", "b", "1", "7", "12"]),
                              max_size=3)
node_exprs = st.builds(lambda key, op, values, bound: {"key": key, "operator": op, **(
    {"values": values} if op in ("In", "NotIn") else {"values": [bound]} if op in ("Gt", "Lt") else {})},
    st.sampled_from(["tier", "size", "pool", "kubernetes.io/hostname"]),
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    st.lists(st.sampled_from(["a", "b", "1", "7", "n1"]), min_size=1, max_size=2), st.sampled_from(["1", "7", "-3"]))
name_fields = st.builds(lambda op, names: {"key": "metadata.name", "operator": op, "values": names},
                        st.sampled_from(["In", "NotIn"]), st.lists(st.sampled_from(["n0", "n1", "n3", "gone"]), min_size=1, max_size=2))
node_terms = st.builds(lambda exprs, fields: {**({"matchExpressions": exprs} if exprs else {}),
                                              **({"matchFields": fields} if fields else {})},
                       st.lists(node_exprs, max_size=3), st.lists(name_fields, max_size=1))


@settings(max_examples=200, deadline=None)
@given(st.lists(node_labels, min_size=1, max_size=8), st.dictionaries(st.sampled_from(["tier", "size"]),
                                                                      st.sampled_from(["a", "b", "7"]), max_size=2),
       st.one_of(st.none(), st.lists(node_terms, max_size=3)), st.lists(st.tuples(st.integers(1, 100), node_terms), max_size=3))
def test_node_affinity_masks_answer_as_each_node_does(labels, selector, required, preferred):
    """nodeSelector, required terms (ORed, each a mix of expressions on labels, some absent, some
    numeric, and metadata.name fields) and preferred terms' weights: the Filter's mask and the
    Score's raw sums asked per distinct label value are what each node's own labels say."""
    from karptui.sim.cycle import PodCycle
    from karptui.sim.plugins import node_affinity

    affinity = {"nodeAffinity": {
        **({"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": required}} if required is not None else {}),
        **({"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": w, "preference": t} for w, t in preferred]}
           if preferred else {})}}
    snapshot = build_snapshot([node(f"n{i}", ZONES[i % 3], labels=ls) for i, ls in enumerate(labels)]
                              + [pod("p", nodeSelector=selector, affinity=affinity)])
    state = ClusterState(snapshot)
    p = snapshot.pods[0]
    ctx = PodCycle(p, state, (1, 33), {})
    assert node_affinity.required_mask(ctx).tolist() == [node_affinity.node_matches(p, n) for n in state.nodes]
    every = np.arange(len(state.nodes))
    weights = [sum(t.weight for t in p.affinity.node_preferred if t.term.matches(n.labels, n.name)) for n in state.nodes]
    top = max(weights, default=0)
    score = node_affinity.score(ctx, every)
    assert (score if isinstance(score, int) else score.tolist()) == \
        (0 if not preferred else [w * 100 // top for w in weights] if top else weights)


@settings(max_examples=300, deadline=None)
@example(bound=[({"app": "web"}, "default", 0)], pairs=[({"matchLabels": {"app": "db"}}, ["default"])],
         later=[({"app": "db"}, "default", 1)], early=True, copied=False, indexed=False)   # new labels after a counter was made
@example(bound=[({"app": "web"}, "default", 0)], pairs=[({"matchLabels": {"app": "db"}}, ["default"])],
         later=[({"app": "db"}, "default", 1)], early=True, copied=False, indexed=True)   # a group made after the index
@given(st.lists(st.tuples(some_labels, namespaces, st.integers(0, 2)), max_size=12),
       st.lists(st.tuples(selectors | st.builds(lambda exprs: {"matchExpressions": exprs}, st.lists(expressions, min_size=1, max_size=2)),
                          st.one_of(st.none(), st.lists(namespaces, min_size=1, max_size=2))), min_size=1, max_size=2),
       st.lists(st.tuples(some_labels, namespaces, st.integers(0, 2)), max_size=6), st.booleans(), st.booleans(),
       st.booleans())
def test_pods_counted_for_a_selector_are_those_it_selects_on_each_node(bound, pairs, later, early, copied, indexed):
    """A counter made for a selector (and namespaces) counts, per node, the bound pods that every
    pair selects: whether another counter was made before pods with new labels came (``early``)
    or not, and in a copy of the state; with the groups indexed by label from the first counter
    (``indexed``: a large cluster's state indexes them after a few) or walked whole."""
    from karptui.model.selectors import parse_label_selector

    items = [node(f"n{i}", ZONES[i]) for i in range(3)]
    items += [pod(f"b{k}", node=f"n{i}", labels=labels, namespace=ns) for k, (labels, ns, i) in enumerate(bound)]
    state = ClusterState(build_snapshot(items))
    if indexed:
        state.INDEX_AFTER = 0
    selectors = tuple((parse_label_selector(raw, "s"), None if spaces is None else frozenset(spaces)) for raw, spaces in pairs)
    other = tuple(reversed(selectors))
    if early:   # a counter of every namespace, before pods with new labels come
        state.counts(((parse_label_selector({"matchLabels": {"app": "none"}}, "s"), frozenset(["default", "jobs", "web"])),))
    for k, p in enumerate(build_snapshot([pod(f"l{k}", labels=labels, namespace=ns) for k, (labels, ns, _) in enumerate(later)]).pods):
        state.place(p, later[k][2])
    if copied:
        state = state.copy(label_groups=True)
        if indexed:
            state.INDEX_AFTER = 0

    def selected(p, chosen):
        return all(s is not None and (ns is None or p.namespace in ns) and s.matches(p.labels) for s, ns in chosen)

    for chosen in (selectors, other):
        want = [sum(1 for p in pods if selected(p, chosen)) for pods in state.pods]
        assert state.counts(chosen).tolist() == want


GPU = "nvidia.com/gpu"


def gpu_pod(name, gpus, priority, on=None):
    raw = pod(name, node=on, priority=priority)
    if gpus:
        raw["spec"]["containers"][0]["resources"]["requests"][GPU] = str(gpus)
    return raw


@settings(max_examples=60, deadline=None)
@given(st.integers(1, 5), st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 10]), st.integers(0, 4)),
                                   max_size=8),
       st.lists(st.tuples(st.integers(0, 2), st.sampled_from([0, 10]), st.integers(0, 4), st.booleans()), max_size=10),
       st.integers(0, 10), st.booleans())
def test_an_extended_resource_counts_what_every_pod_asks_whenever_it_is_first_asked(nodes, bound, moves, ask_at, copy):
    """The first ask for a resource beyond the base four reads the bound pods off the first walk's
    note and walks only the nodes pods came to or left since (a copy walks all): the vectors, in all
    and per priority level, are what each node's pods ask for."""
    items = [node(f"n{i}") for i in range(nodes)]
    items += [gpu_pod(f"b{k}", gpus, prio, on=f"n{i % nodes}") for k, (gpus, prio, i) in enumerate(bound)]
    state = ClusterState(build_snapshot(items))
    placed = []
    for step, (gpus, prio, where, evict) in enumerate(moves):
        if step == ask_at:
            state.extended(GPU)
        if evict and placed:
            p, i = placed.pop(where % len(placed))
            state.evict(p, i)
        else:
            p = build_snapshot([gpu_pod(f"m{step}", gpus, prio)]).pods[0]
            state.place(p, where % nodes)
            placed.append((p, where % nodes))
    if copy:
        state = state.copy()
    _, requested = state.extended(GPU)
    assert requested.tolist() == [sum(p.requests.get(GPU, 0) for p in pods) for pods in state.pods]
    for level, vectors in state._by_priority.items():
        assert vectors[GPU].tolist() == [sum(p.requests.get(GPU, 0) for p in pods if p.priority == level)
                                         for pods in state.pods]
