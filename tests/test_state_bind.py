"""ClusterState binds the snapshot's pods in one walk, working out once per shared object what
replicas share (requests, owner references): every vector, note and label group it makes is what
the pods one by one, each asked through the model, say."""

from __future__ import annotations

from collections import Counter

import pytest

from karptui.model.affinity import NO_AFFINITY

from karptui.sim.state import ClusterState, _group_key, non_zero
from tests.test_existing_lazy import CASES, _snapshot


def _owners_of_every_kind(items, rng) -> None:
    """Pods whose owner references say less than their first one: a DaemonSet reference that is not
    the controller, one before the controller, and several pods sharing one such reference."""
    pods = [o for o in items if o["kind"] == "Pod" and o["spec"].get("nodeName")]
    shared = {"apiVersion": "apps/v1", "kind": "DaemonSet", "name": "not-mine", "uid": "uid-not-mine",
              "controller": False}
    for pod in pods[::7]:
        refs = pod["metadata"].setdefault("ownerReferences", [])
        choice = rng.randrange(3)
        if choice == 0:
            pod["metadata"]["ownerReferences"] = [dict(shared)]
        elif choice == 1:
            pod["metadata"]["ownerReferences"] = [dict(shared)] + refs
        else:
            pod["metadata"]["ownerReferences"] = refs + [dict(shared)]
        if rng.random() < 0.3:
            pod["spec"]["containers"][0]["ports"] = [{"containerPort": 9100, "hostPort": 9100 + rng.randrange(3)}]


@pytest.mark.parametrize("shape,nodes,seed", CASES)
def test_the_bulk_walk_is_the_pods_one_by_one(shape, nodes, seed, tmp_path):
    snapshot = _snapshot(shape, nodes, seed, tmp_path, edit=_owners_of_every_kind)
    state = ClusterState(snapshot)
    assert sum(map(len, state.pods)) > 0
    resources = set(state.requested)
    daemons = 0
    for i, pods in enumerate(state.pods):
        for r in resources:
            assert state.requested[r][i] == (len(pods) if r == "pods" else sum(p.requests.get(r, 0) for p in pods))
        assert state.non_zero_cpu[i] == sum(non_zero(p)[0] for p in pods)
        assert state.non_zero_memory[i] == sum(non_zero(p)[1] for p in pods)
        assert state.min_priority[i] == min((p.priority for p in pods), default=state.min_priority[i])
        for level, vectors in state._by_priority.items():
            assert vectors["pods"][i] == sum(1 for p in pods if p.priority == level)
            assert vectors["cpu"][i] == sum(p.requests.get("cpu", 0) for p in pods if p.priority == level)
        expected = [p for p in pods if p.is_daemonset_pod]
        daemons += len(expected)
        assert list(state.daemonset_pods(i)) == expected
        assert list(state.other_requests(i)) == [(r, a) for p in pods for r, a in p.requests.items()
                                                 if r not in ("cpu", "memory", "ephemeral-storage", "pods")]
        assert state.host_ports.get(i, []) == [port for p in pods for port in p.host_ports]
    assert daemons, "no DaemonSet pod: nothing compared"
    assert state.resource_names == {r for pods in state.pods for p in pods for r in p.requests}
    assert sorted((id(p), i) for p, i in state.bound_with_affinity()) == \
        sorted((id(p), i) for i, pods in enumerate(state.pods) for p in pods if p.affinity is not NO_AFFINITY)
    groups = {key: dict(per_node) for key, (_, per_node) in state._groups.items()}
    walked = Counter((_group_key(p), i) for i, pods in enumerate(state.pods) for p in pods)
    assert groups == {key: {i: n for (k, i), n in walked.items() if k == key} for key in {k for k, _ in walked}}
    for key, (representative, _) in state._groups.items():
        assert _group_key(representative) == key
