"""CSINode and the in-tree volume plugins' CSI drivers: how many volumes a node can attach.

The kubelet writes one CSINode per node, named like the node, listing every CSI driver
registered there; ``allocatable.count`` is the most volumes of that driver the node can have
attached at once (an EBS driver on a Nitro instance says 25 or so, less the instance's other
attachments). Both kube-scheduler (NodeVolumeLimits) and Karpenter (its state nodes' volume
usage) read it, each its own way, so this module holds only the object and the Kubernetes
facts they share.

Volumes of the old in-tree plugins (``awsElasticBlockStore``, ``kubernetes.io/aws-ebs``
provisioners) are served by a CSI driver once migrated; the driver each plugin migrates to is
``k8s.io/csi-translation-lib``'s table. For most plugins migration is GA and always on; for the
others the kubelet lists the plugins it migrated in the CSINode's
``storage.alpha.kubernetes.io/migrated-plugins`` annotation.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_int32, as_list, as_map, as_str
from .meta import KubeObject, meta_fields

MIGRATED_PLUGINS = "storage.alpha.kubernetes.io/migrated-plugins"

AWS_EBS = "kubernetes.io/aws-ebs"
GCE_PD = "kubernetes.io/gce-pd"
AZURE_DISK = "kubernetes.io/azure-disk"
AZURE_FILE = "kubernetes.io/azure-file"
CINDER = "kubernetes.io/cinder"
VSPHERE = "kubernetes.io/vsphere-volume"
PORTWORX = "kubernetes.io/portworx-volume"

# in-tree plugin -> the CSI driver its volumes migrate to (csi-translation-lib)
CSI_DRIVER_OF = {
    AWS_EBS: "ebs.csi.aws.com",
    GCE_PD: "pd.csi.storage.gke.io",
    AZURE_DISK: "disk.csi.azure.com",
    AZURE_FILE: "file.csi.azure.com",
    CINDER: "cinder.csi.openstack.org",
    VSPHERE: "csi.vsphere.vmware.com",
    PORTWORX: "pxd.portworx.com",
}
# the PersistentVolume source field of each in-tree plugin, and the field holding its volume's ID
PV_SOURCES = {
    "awsElasticBlockStore": (AWS_EBS, "volumeID"),
    "gcePersistentDisk": (GCE_PD, "pdName"),
    "azureDisk": (AZURE_DISK, "diskURI"),
    "azureFile": (AZURE_FILE, "shareName"),
    "cinder": (CINDER, "volumeID"),
    "vsphereVolume": (VSPHERE, "volumePath"),
    "portworxVolume": (PORTWORX, "volumeID"),
}
# plugins whose migration kube-scheduler counts on any node with a CSINode (GA, locked on), and
# those it counts only where the CSINode's annotation lists them (kube-scheduler's
# nodevolumelimits isCSIMigrationOn; Azure File and vSphere volumes it never counts)
ALWAYS_MIGRATED = frozenset({AWS_EBS, GCE_PD, AZURE_DISK, CINDER})
MIGRATED_WHEN_LISTED = frozenset({PORTWORX})


@dataclass(frozen=True, slots=True)
class CSIDriverLimit:
    """One driver registered on the node. ``allocatable``: the driver reports an allocatable
    section at all; ``count``: its volume count, None when it gives none (no limit)."""

    name: str
    allocatable: bool = False
    count: int | None = None


@dataclass(frozen=True, slots=True, kw_only=True)
class CSINode(KubeObject):
    drivers: tuple[CSIDriverLimit, ...] = ()

    KIND = "CSINode"

    @property
    def limits(self) -> dict[str, int]:
        """Driver -> the most volumes it can attach here, for drivers that give a count."""
        return {d.name: d.count for d in self.drivers if d.count is not None}

    @property
    def migrated_plugins(self) -> frozenset[str]:
        """The in-tree plugins the kubelet says it migrated (the annotation, comma-separated)."""
        text = self.annotations.get(MIGRATED_PLUGINS, "")
        return frozenset(p for p in text.split(",") if p)

    def migrated(self, plugin: str) -> bool:
        """Whether kube-scheduler counts ``plugin``'s volumes against its CSI driver on this node."""
        return plugin in ALWAYS_MIGRATED or (plugin in MIGRATED_WHEN_LISTED and plugin in self.migrated_plugins)


def csi_driver_of(provisioner: str) -> str:
    """A StorageClass provisioner or in-tree plugin name as the CSI driver that serves it
    (``kubernetes.io/aws-ebs`` -> ``ebs.csi.aws.com``); other names are CSI drivers already."""
    return CSI_DRIVER_OF.get(provisioner, provisioner)


def build_csinode(obj: Mapping) -> CSINode:
    spec = as_map(obj.get("spec"), "spec")
    drivers = []
    for i, raw in enumerate(as_list(spec.get("drivers"), "spec.drivers")):
        where = f"spec.drivers[{i}]"
        driver = as_map(raw, where)
        allocatable = driver.get("allocatable")
        count = as_int32(as_map(allocatable, f"{where}.allocatable").get("count"), f"{where}.allocatable.count") \
            if allocatable is not None else None
        drivers.append(CSIDriverLimit(as_str(driver.get("name"), f"{where}.name"), allocatable is not None, count))
    return CSINode(**meta_fields(obj, keep_raw=False), drivers=tuple(drivers))
