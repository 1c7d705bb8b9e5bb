"""The topology-spread rule, in one place: the global minimum and the skew a placement would make.

kube-scheduler's PodTopologySpread filter, ``--explain``'s account of a pending
pod and Karpenter's topology groups all ask these two questions, the same way:

- the *global minimum* is the fewest matching pods in any domain the pod could
  use; when fewer such domains exist than the constraint's ``minDomains``, it
  is 0 (the missing domains count as empty), and with no domain at all it is 0;
- a domain *allows* the pod when ``count + (1 if the pod matches its own
  selector) - global minimum <= maxSkew``.

Counts may be plain integers or numpy vectors (the filter asks for every node at once).
"""

from __future__ import annotations

from typing import TypeVar

import numpy as np

Count = TypeVar("Count", int, np.ndarray)


def global_minimum(counts, min_domains: int | None = None) -> int:
    """The global minimum over the eligible domains' counts (any iterable or array of ints)."""
    values = np.asarray(list(counts) if not isinstance(counts, np.ndarray) else counts)
    if values.size == 0 or (min_domains is not None and values.size < min_domains):
        return 0
    return int(values.min())


def skew(count: Count, self_match: int, floor: int) -> Count:
    """The skew placing the pod in a domain with ``count`` matching pods would make."""
    return count + self_match - floor


def ceiling(self_match: int, floor: int, max_skew: int) -> int:
    """The most matching pods a domain may hold and still take the pod: ``allows`` as one bound,
    so a vector of counts is compared once (a filter over 20,000 hostnames, pod after pod)."""
    return max_skew + floor - self_match


def allows(count: Count, self_match: int, floor: int, max_skew: int) -> Count:
    """Whether the domain may take the pod (elementwise for vectors)."""
    return count <= ceiling(self_match, floor, max_skew)

