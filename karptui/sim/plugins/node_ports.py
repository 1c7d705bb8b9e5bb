"""NodePorts: a hostPort can be taken once per node (per protocol and address)."""

from __future__ import annotations

import numpy as np

from ...model import Pod
from ...model.pod import HostPort
from ..cycle import Failure, PodCycle
from ..status import UNSCHEDULABLE

NAME = "NodePorts"
REASON = "node(s) didn't have free ports for the requested pod ports"
_ANY = "0.0.0.0"


def conflicts(wanted: HostPort, used: HostPort) -> bool:
    if wanted.port != used.port or wanted.protocol != used.protocol:
        return False
    return wanted.host_ip == used.host_ip or _ANY in (wanted.host_ip, used.host_ip)


def blind_to_evictions(ctx: PodCycle, leaving: list[Pod]) -> bool:
    """Whether taking the bound pods ``leaving`` away cannot change this filter's verdict on the
    pod (see ``framework.only_resources_see_evictions``): it asks for no hostPort, or they hold none."""
    return not ctx.pod.host_ports or not any(pod.host_ports for pod in leaving)


def filter(ctx: PodCycle, nodes: np.ndarray | None = None) -> list[Failure]:
    """``nodes`` (indices) asks about those nodes only, the mask then being over them."""
    if not ctx.pod.host_ports:
        return []
    wanted, in_use = ctx.pod.host_ports, ctx.state.host_ports
    # the nodes asked about and the ports in use there: only the nodes that use some port
    asked = in_use.items() if nodes is None else (
        (k, in_use[i]) for k, i in enumerate(nodes.tolist()) if i in in_use)
    mask = np.zeros(ctx.size if nodes is None else len(nodes), dtype=bool)
    for k, used in asked:
        if any(conflicts(w, u) for w in wanted for u in used):
            mask[k] = True
    return [Failure(mask, REASON, UNSCHEDULABLE)] if mask.any() else []
