"""The immutable cluster model. Imports neither textual nor kubernetes."""

from .build import SnapshotBuilder, build_snapshot
from .errors import ModelError
from .node import Node
from .nodeclaim import NodeClaim
from .nodeclass import NodeClass
from .nodepool import NodePool
from .pod import Pod
from .resources import Resources
from .snapshot import Snapshot, SnapshotMeta
from .workloads import Workload

__all__ = [
    "ModelError", "Node", "NodeClaim", "NodeClass", "NodePool", "Pod", "Resources",
    "Snapshot", "SnapshotBuilder", "SnapshotMeta", "Workload", "build_snapshot",
]
