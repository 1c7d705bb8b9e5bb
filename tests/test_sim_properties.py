"""Properties of any simulation: nothing over-committed, every hard constraint kept."""

from collections import Counter, defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.model import build_snapshot
from karptui.sim import simulate
from tests.simkit import HOST, ZONE, node, pod

ZONES = ("zone-a", "zone-b", "zone-c")

nodes_strategy = st.lists(
    st.tuples(st.sampled_from(ZONES), st.sampled_from(["1", "2", "4"]), st.sampled_from(["x", "y"])),
    min_size=1, max_size=8,
)
workload_strategy = st.fixed_dictionaries({
    "replicas": st.integers(min_value=1, max_value=6),
    "cpu": st.sampled_from(["100m", "300m", "700m"]),
    "zone_skew": st.none() | st.integers(min_value=1, max_value=2),
    "host_skew": st.none() | st.integers(min_value=1, max_value=2),
    "anti": st.booleans(),
    "pool": st.none() | st.sampled_from(["x", "y"]),
})


def objects(nodes, workloads) -> list[dict]:
    """A node per entry, a Deployment-like group of pending pods per workload entry."""
    items = [node(f"n{i}", zone, cpu=cpu, labels={"pool": pool}) for i, (zone, cpu, pool) in enumerate(nodes)]
    for w, spec in enumerate(workloads):
        app = {"app": f"w{w}"}
        extra = {}
        spreads = []
        if spec["zone_skew"]:
            spreads.append({"maxSkew": spec["zone_skew"], "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule",
                            "labelSelector": {"matchLabels": app}})
        if spec["host_skew"]:
            spreads.append({"maxSkew": spec["host_skew"], "topologyKey": HOST, "whenUnsatisfiable": "DoNotSchedule",
                            "labelSelector": {"matchLabels": app}})
        if spreads:
            extra["topologySpreadConstraints"] = spreads
        if spec["anti"]:
            extra["affinity"] = {"podAntiAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [
                {"labelSelector": {"matchLabels": app}, "topologyKey": HOST}]}}
        if spec["pool"]:
            extra["nodeSelector"] = {"pool": spec["pool"]}
        items += [pod(f"w{w}-{r}", cpu=spec["cpu"], labels=app, **extra) for r in range(spec["replicas"])]
    return items


def build(nodes, workloads):
    return build_snapshot(objects(nodes, workloads))


@settings(max_examples=120)
@given(nodes_strategy, st.lists(workload_strategy, min_size=1, max_size=3))
def test_simulation_keeps_every_hard_constraint(nodes, workloads):
    snapshot = build(nodes, workloads)
    result = simulate(snapshot)
    by_node = defaultdict(list)
    for attempt in result.attempts:
        if attempt.node:
            by_node[attempt.node].append(attempt.pod)
        else:
            assert attempt.reason.startswith(f"0/{len(nodes)} nodes are available: ")
    for name, pods in by_node.items():  # nothing over-committed
        n = snapshot.node_by_name[name]
        assert sum(p.requests["cpu"] for p in pods) <= n.allocatable["cpu"]
        assert len(pods) <= n.allocatable["pods"]
    for w, spec in enumerate(workloads):
        placed = [(p, name) for name, pods in by_node.items() for p in pods if p.labels["app"] == f"w{w}"]
        if spec["pool"]:
            assert all(snapshot.node_by_name[n].labels["pool"] == spec["pool"] for _, n in placed)
        if spec["anti"]:
            assert len({n for _, n in placed}) == len(placed)
        for key, skew in ((ZONE, spec["zone_skew"]), (HOST, spec["host_skew"])):
            if not skew:
                continue
            eligible = [n for n in snapshot.nodes if not spec["pool"] or n.labels["pool"] == spec["pool"]]
            domains = {n.labels[key] for n in eligible}
            counts = Counter(snapshot.node_by_name[n].labels[key] for _, n in placed)
            floor = min(counts.get(d, 0) for d in domains) if domains else 0
            assert all(c - floor <= skew for c in counts.values()), (key, counts, skew)
