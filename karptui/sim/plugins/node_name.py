"""NodeName: a pod that names its node fits only there.

Pending pods never carry spec.nodeName (the kubelet would run them without the
scheduler), so this only matters for pods a what-if pins to a node.
"""

from __future__ import annotations

import numpy as np

from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE

NAME = "NodeName"
REASON = "node(s) didn't match the requested node name"


def filter(ctx: PodCycle) -> list[Failure]:
    wanted = ctx.pod.node_name
    if not wanted:
        return []
    mask = np.array([n.name != wanted for n in ctx.state.nodes], dtype=bool)
    return [Failure(mask, REASON, UNRESOLVABLE)]
