"""Which kube-scheduler wording to use: the cluster's Kubernetes version."""

from __future__ import annotations

import re

from ..model import Snapshot

NEWEST = (1, 33)
_VERSION = re.compile(r"v?(\d+)\.(\d+)")


def parse(text: str) -> tuple[int, int] | None:
    match = _VERSION.match(text or "")
    return (int(match.group(1)), int(match.group(2))) if match else None


def cluster_version(snapshot: Snapshot) -> tuple[int, int]:
    """The control plane's minor version: recorded at capture, else the newest kubelet's.

    Kubelets may lag the control plane by a few minors but never lead it, so the
    newest kubelet is the best lower bound a plain kubectl dump offers.
    """
    recorded = parse(snapshot.meta.kubernetes_version)
    if recorded:
        return recorded
    # a cluster runs a handful of kubelet versions: each distinct one is parsed once
    seen = [v for v in map(parse, {n.kubelet_version for n in snapshot.nodes}) if v]
    return max(seen) if seen else NEWEST
