"""The labels an instance type carries, and the ones derivable from its name.

Karpenter's AWS provider labels every node with ``karpenter.k8s.aws/instance-*``
facts about its type. A user catalog may give only a name and a size, so the
common ones are worked out here the same way (``m7gd.2xlarge``: family ``m7gd``,
size ``2xlarge``, category ``m``, generation ``7``).
"""

from __future__ import annotations

import re
from functools import lru_cache

from ..model import labels as L

AWS_PREFIX = "karpenter.k8s.aws/instance-"
INSTANCE_CATEGORY = L.INSTANCE_CATEGORY
INSTANCE_FAMILY = L.INSTANCE_FAMILY
INSTANCE_GENERATION = "karpenter.k8s.aws/instance-generation"
INSTANCE_SIZE = "karpenter.k8s.aws/instance-size"
INSTANCE_CPU = "karpenter.k8s.aws/instance-cpu"
INSTANCE_MEMORY = "karpenter.k8s.aws/instance-memory"
EC2NODECLASS = "karpenter.k8s.aws/ec2nodeclass"

ON_DEMAND, SPOT, RESERVED = "on-demand", "spot", "reserved"
CAPACITY_TYPES = (ON_DEMAND, SPOT, RESERVED)

# "u-6tb1.56xlarge" has a memory size between category and generation.
_FAMILY = re.compile(r"^([a-z]+)(?:-\d+tb)?(\d+)")
_REGION = re.compile(r"^([a-z]{2}(?:-gov|-iso[a-z]*)?-[a-z]+-\d+)")


def name_labels(name: str) -> dict[str, str]:
    """Family, size, category and generation from a name like ``c6gn.16xlarge``."""
    family, dot, size = name.partition(".")
    if not dot or not family or not size:
        return {}
    out = {INSTANCE_FAMILY: family, INSTANCE_SIZE: size}
    match = _FAMILY.match(family)
    if match:
        out[INSTANCE_CATEGORY] = match.group(1)
        out[INSTANCE_GENERATION] = str(int(match.group(2)))
    return out


def size_labels(cpu_millis: int, memory_bytes: int) -> dict[str, str]:
    """``instance-cpu`` (whole vCPUs) and ``instance-memory`` (MiB), when whole."""
    out = {}
    if cpu_millis > 0 and cpu_millis % 1000 == 0:
        out[INSTANCE_CPU] = str(cpu_millis // 1000)
    if memory_bytes > 0:
        out[INSTANCE_MEMORY] = str(memory_bytes // 2**20)
    return out


@lru_cache(maxsize=1024)
def region_of_zone(zone: str) -> str:
    """``us-east-1`` from ``us-east-1a`` or the local zone ``us-west-2-lax-1a``; else ``""``."""
    match = _REGION.match(zone)
    return match.group(1) if match else ""
