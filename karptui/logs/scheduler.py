"""kube-scheduler's FailedScheduling messages as data (Karpenter's own events are kube_events.py's)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field


_HEAD = re.compile(r"^0/(\d+) nodes are available(?:: (.*))?$", re.S)
_COUNTED = re.compile(r"^(\d+) (.+)$")


@dataclass
class FitError:
    """``0/N nodes are available: <count> <reason>, ... preemption: ...`` as data."""

    nodes: int
    reasons: dict[str, int] = field(default_factory=dict)
    pre_filter: str = ""
    preemption: dict[str, int] = field(default_factory=dict)
    preemption_message: str = ""


def _counted(text: str) -> tuple[dict[str, int], str]:
    """``1 Insufficient cpu, 6 node(s) didn't match ...`` -> counts (or the text when not counted)."""
    counts: dict[str, int] = {}
    for part in _split(text):
        match = _COUNTED.match(part)
        if not match:
            return {}, text
        counts[match.group(2)] = counts.get(match.group(2), 0) + int(match.group(1))
    return counts, ""


def _split(text: str) -> list[str]:
    """Reasons are ", "-separated, but a reason may itself contain ", " (taints); split before digits."""
    return [p.strip() for p in re.split(r", (?=\d+ )", text) if p.strip()]


def parse_fit_error(message: str) -> FitError | None:
    """kube-scheduler's FailedScheduling text; None if the message is something else."""
    main, _, post = message.partition(" preemption: ")
    match = _HEAD.match(main.strip())
    if match is None:
        return None
    body = (match.group(2) or "").rstrip(".")
    reasons, pre_filter = _counted(body)
    error = FitError(int(match.group(1)), reasons, pre_filter)
    if post:
        inner = _HEAD.match(post.strip().rstrip("."))
        if inner:
            error.preemption, error.preemption_message = _counted((inner.group(2) or "").rstrip("."))
        else:
            error.preemption_message = post.strip()
    return error
