"""Persistent volumes and claims: a bound zonal volume pins its pod to a zone, and every
attached volume takes one of its node's slots for its CSI driver (:mod:`.csi`)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from . import labels as L
from .fields import as_map, as_str, as_str_list
from .meta import KubeObject, meta_fields
from .resources import Resources
from .csi import PV_SOURCES
from .selectors import IN, NodeSelector, parse_node_selector

ZONE_KEYS = (L.ZONE, L.ZONE_BETA, "topology.ebs.csi.aws.com/zone")


@dataclass(frozen=True, slots=True, kw_only=True)
class PersistentVolume(KubeObject):
    capacity: Resources
    storage_class: str = ""
    node_affinity: NodeSelector | None = None
    claim: str = ""  # namespace/name of the bound claim
    phase: str = ""
    driver: str = ""      # spec.csi.driver, for a CSI volume
    handle: str = ""      # the volume's ID: spec.csi.volumeHandle, or the in-tree source's volume ID
    in_tree: str = ""     # the in-tree plugin of a volume that is not CSI (kubernetes.io/aws-ebs), if known

    KIND = "PersistentVolume"

    @property
    def zones(self) -> tuple[str, ...]:
        """Zones the volume lives in, from node affinity or the legacy zone labels."""
        found: list[str] = []
        for term in self.node_affinity.terms if self.node_affinity else ():
            for req in term.match_expressions:
                if req.key in ZONE_KEYS and req.operator == IN:
                    found.extend(v for v in req.values if v not in found)
        for key in (L.ZONE, L.ZONE_BETA):
            for value in self.labels.get(key, "").split("__"):
                if value and value not in found:
                    found.append(value)
        return tuple(found)


@dataclass(frozen=True, slots=True, kw_only=True)
class PersistentVolumeClaim(KubeObject):
    volume_name: str = ""
    # spec.storageClassName as written; None when the field is absent, which is not "" (no class):
    # the cluster's default class applies then (VolumeIndex.class_name, the one place that says so)
    storage_class: str | None = None
    phase: str = ""
    access_modes: tuple[str, ...] = ()
    requests: Resources

    KIND = "PersistentVolumeClaim"

    @property
    def selected_node(self) -> str:
        """The node a WaitForFirstConsumer claim was provisioned for."""
        return self.annotations.get(L.SELECTED_NODE, "")


def build_pv(obj: Mapping) -> PersistentVolume:
    spec = as_map(obj.get("spec"), "spec")
    claim = as_map(spec.get("claimRef"), "spec.claimRef")
    csi = as_map(spec.get("csi"), "spec.csi")
    affinity = as_map(spec.get("nodeAffinity"), "spec.nodeAffinity")
    handle = as_str(csi.get("volumeHandle"), "spec.csi.volumeHandle")
    in_tree = ""
    if not csi:
        for source, (plugin, id_field) in PV_SOURCES.items():
            found = spec.get(source)
            if found is not None:
                in_tree = plugin
                handle = as_str(as_map(found, f"spec.{source}").get(id_field), f"spec.{source}.{id_field}")
                if source == "awsElasticBlockStore" and handle.startswith("aws://"):
                    handle = handle.rpartition("/")[2]   # aws://<zone>/vol-...: the EBS volume ID, as its CSI PV has it
                break
    return PersistentVolume(
        **meta_fields(obj),
        capacity=Resources.parse(spec.get("capacity"), "spec.capacity"),
        storage_class=as_str(spec.get("storageClassName"), "spec.storageClassName"),
        node_affinity=parse_node_selector(affinity.get("required"), "spec.nodeAffinity.required"),
        claim=f"{as_str(claim.get('namespace'), 'ns')}/{as_str(claim.get('name'), 'name')}" if claim else "",
        phase=as_str(as_map(obj.get("status"), "status").get("phase"), "status.phase"),
        driver=as_str(csi.get("driver"), "spec.csi.driver"),
        handle=handle,
        in_tree=in_tree,
    )


def build_pvc(obj: Mapping) -> PersistentVolumeClaim:
    spec = as_map(obj.get("spec"), "spec")
    resources = as_map(spec.get("resources"), "spec.resources")
    return PersistentVolumeClaim(
        **meta_fields(obj),
        volume_name=as_str(spec.get("volumeName"), "spec.volumeName"),
        storage_class=None if spec.get("storageClassName") is None else
        as_str(spec.get("storageClassName"), "spec.storageClassName"),
        phase=as_str(as_map(obj.get("status"), "status").get("phase"), "status.phase"),
        access_modes=as_str_list(spec.get("accessModes"), "spec.accessModes"),
        requests=Resources.parse(resources.get("requests"), "spec.resources.requests"),
    )
