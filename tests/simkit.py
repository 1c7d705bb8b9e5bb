"""Small builders for simulator tests: a cluster in a few lines, results as plain data."""

from __future__ import annotations

from karptui.model import build_snapshot
from karptui.sim import simulate
from karptui.sim.karpenter.disruption import simulation
from karptui.views.cost import cost_path
from karptui.views.simulation import simulation_json
from tests.conftest import node_obj, pod_obj


def node(name, zone="us-east-1a", cpu="4", memory="16Gi", pods="110", labels=None, **spec):
    return node_obj(name, zone, cpu=cpu, memory=memory, pods=pods, labels=labels, **spec)


def pod(name, node=None, cpu="100m", memory="128Mi", labels=None, namespace="default", priority=None, **spec):
    raw = pod_obj(name, namespace=namespace, node=node, cpu=cpu, memory=memory, labels=labels, **spec)
    if priority is not None:
        raw["spec"]["priority"] = priority
    return raw


def run(*objects, explain=False, version=None):
    return simulate(build_snapshot(objects), explain=explain, version=version)


def placed(result) -> dict[str, str | None]:
    return {a.pod.name: a.node for a in result.attempts}


def spread(key, max_skew=1, when="DoNotSchedule", selector=None, **extra):
    return {"maxSkew": max_skew, "topologyKey": key, "whenUnsatisfiable": when,
            "labelSelector": {"matchLabels": selector or {"app": "web"}}, **extra}


ZONE = "topology.kubernetes.io/zone"
HOST = "kubernetes.io/hostname"


def consolidation_document(snapshot, catalog) -> dict:
    """``simulate --consolidate -o json``'s document, as the command builds it."""
    result = simulate(snapshot, catalog=catalog, consolidate=True)
    return simulation_json(result, explain=False, cost=cost_path(result, catalog, consolidated=True), catalog=catalog)


def every_simulation_whole(monkeypatch) -> None:
    """Consolidation without its shortcuts from here on: every simulation schedules every pod (no shared
    run's answer taken, ``_apart``) from its first pop (no resumed run, ``_resumed``)."""
    monkeypatch.setattr(simulation, "_apart", lambda *args: None)
    monkeypatch.setattr(simulation, "_resumed", lambda *args: True)
