"""VolumeZone: a volume labelled with a zone only attaches to nodes in that zone."""

from __future__ import annotations

import numpy as np

from ...model import labels as L
from ..cycle import Failure, PodCycle
from ..status import UNRESOLVABLE
from .volume_binding import bound_volumes

NAME = "VolumeZone"
REASON = "node(s) had no available volume zone"


def filter(ctx: PodCycle) -> list[Failure]:
    wanted = []
    for volume in bound_volumes(ctx, ctx.pod):
        for key in (L.ZONE, L.ZONE_BETA, L.REGION, L.REGION_BETA):
            value = volume.labels.get(key)
            if value:
                wanted.append((key, frozenset(value.split("__"))))
    if not wanted:
        return []

    def compute() -> np.ndarray:
        return np.array(
            [any(n.labels.get(key) not in values for key, values in wanted) for n in ctx.state.nodes], dtype=bool)

    mask = ctx.static((NAME, tuple(wanted)), compute)
    return [Failure(mask, REASON, UNRESOLVABLE)] if mask.any() else []
