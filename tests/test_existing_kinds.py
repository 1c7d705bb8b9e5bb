"""Karpenter's view of the existing nodes, built per node kind and from what the cluster state noted
as it bound the snapshot's pods, is the view built node by node from every label and every pod."""

from __future__ import annotations

from karptui.model import build_snapshot
from karptui.model import labels as L
from karptui.sim.karpenter import requirements
from karptui.sim.karpenter.existingnode import Daemon, existing_nodes
from karptui.sim.karpenter.requirements import Reqs
from karptui.sim.state import ClusterState
from tests.simkit import node, pod

HOST, ZONE, BETA_ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone"
LAYER = "topology.k8s.aws/network-node-layer-1"
KIND = {HOST: "kind-a", BETA_ZONE: "us-east-1a", ZONE: "us-east-1a", LAYER: "nn-1",
        "node.kubernetes.io/instance-type": "m5.large", "beta.kubernetes.io/instance-type": "m5.large",
        "karpenter.sh/nodepool": "test-existing-kinds"}


def test_a_node_of_a_kind_seen_before_has_the_requirements_its_own_labels_give():
    same_kind = [{**KIND, HOST: "kind-b", LAYER: "nn-2"}, {**KIND, HOST: "kind-c"}, dict(KIND)]
    other_kinds = [
        {**KIND, HOST: "kind-d", ZONE: "us-east-1b", BETA_ZONE: "us-east-1b"},  # an aliased key differs
        {**KIND, HOST: "kind-e", BETA_ZONE: "us-east-1b"},                       # aliases that disagree: no zone
        {LAYER: "nn-3", **{k: v for k, v in KIND.items() if k != LAYER}},        # the keys in another order
        {**KIND, "extra": "label"},
    ]
    Reqs.from_node_labels(KIND)
    kinds = len(requirements._NODE_KINDS)
    for labels in same_kind:
        assert list(Reqs.from_node_labels(labels).items()) == list(Reqs.from_labels(labels).items())
    assert len(requirements._NODE_KINDS) == kinds   # every one of them made from the first of its kind
    for labels in other_kinds:
        assert list(Reqs.from_node_labels(labels).items()) == list(Reqs.from_labels(labels).items())
    assert len(requirements._NODE_KINDS) == kinds + len(other_kinds)
    assert Reqs.from_node_labels(other_kinds[1])[L.ZONE].values == frozenset()


def _cluster():
    gpu_node = node("n1")
    gpu_node["status"]["allocatable"]["nvidia.com/gpu"] = "4"
    daemon = pod("agent-n1", node="n1", cpu="200m", memory="256Mi")
    daemon["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "agent",
                                              "uid": "uid-agent", "controller": True}]
    trainer = pod("trainer", node="n1", cpu="1")
    trainer["spec"]["containers"][0]["resources"]["requests"]["nvidia.com/gpu"] = "2"
    objects = [gpu_node, node("n2"), node("n3"), daemon, trainer, pod("web", node="n2"), pod("waiting")]
    return build_snapshot(objects)


def test_the_state_notes_each_nodes_daemonset_pods_and_other_requests_while_they_hold():
    snapshot = _cluster()
    state = ClusterState(snapshot)
    n1, n2 = state.index["n1"], state.index["n2"]
    assert [p.name for p in state.daemonset_pods(n1)] == ["agent-n1"]
    assert list(state.other_requests(n1)) == [("nvidia.com/gpu", 2)]
    assert list(state.daemonset_pods(n2)) == [] and list(state.other_requests(n2)) == []
    assert "nvidia.com/gpu" in state.resource_names
    state.place(next(p for p in snapshot.pods if p.name == "waiting"), n2)
    assert state.daemonset_pods(n2) is None and state.other_requests(n2) is None   # its pods tell now
    assert state.daemonset_pods(n1) is not None
    assert state.copy().daemonset_pods(n1) is None


def test_existing_nodes_from_the_notes_are_the_nodes_from_a_walk_over_their_pods():
    snapshot = _cluster()
    agent = next(p for p in snapshot.pods if p.name == "agent-n1")
    daemons = [Daemon.of(agent)]
    noted = ClusterState(snapshot)
    walked = ClusterState(snapshot).copy()   # a copy knows no notes: each node's pods are walked
    assert walked.daemonset_pods(0) is None
    for state in (noted, walked):
        state.place(next(p for p in snapshot.pods if p.name == "waiting"), state.index["n3"])

    def view(state):
        return [(n.name, dict(n.available.items()), list(n.reqs.items()), n.taints)
                for n in existing_nodes(state, snapshot, daemons, None, set())]

    assert view(noted) == view(walked)
    room = {name: available for name, available, _, _ in view(noted)}
    assert room["n1"]["nvidia.com/gpu"] == 2        # the trainer's GPUs, counted without a vector for them
    assert room["n2"]["cpu"] == 4000 - 100 - 200     # the web pod, and the agent still to come
    assert room["n1"]["cpu"] == 4000 - 200 - 1000    # the agent runs there already
