"""``karpenter.sh/do-not-disrupt`` on a pod, as the release simulated reads it.

Before v1.12.0 only ``"true"`` holds a pod (``HasDoNotDisrupt``, ``pkg/utils/pod/scheduling.go`` at
v1.9.1); any other value holds nothing. From v1.12.0 a positive duration (``"5m"``) holds the pod
until it has run that long (``IsDoNotDisruptActive``, kubernetes-sigs/karpenter#2874), and a value
that is neither is ignored. The reading itself is :meth:`karptui.model.Pod.blocks_disruption`;
this module says which releases read durations.
"""

from __future__ import annotations

from .versions import V1_12, karpenter_version


def reads_durations(snapshot) -> bool:
    """Whether the release simulated reads a duration in ``karpenter.sh/do-not-disrupt``."""
    return karpenter_version(snapshot) >= V1_12
