"""Filter outcomes as data: a reason string and kube-scheduler's status code.

Reasons are kube-scheduler's own wording; they are counted into the FitError
text only when a pod is finally reported, never formatted per node up front.
"""

from __future__ import annotations

from enum import IntEnum


class Code(IntEnum):
    """framework.Code values that matter to a simulation."""

    SUCCESS = 0
    UNSCHEDULABLE = 2
    UNSCHEDULABLE_AND_UNRESOLVABLE = 3  # preemption cannot help on this node


UNSCHEDULABLE = Code.UNSCHEDULABLE
UNRESOLVABLE = Code.UNSCHEDULABLE_AND_UNRESOLVABLE
