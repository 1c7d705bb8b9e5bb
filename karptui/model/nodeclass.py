"""Karpenter node classes (EC2NodeClass v1/v1beta1, AWSNodeTemplate v1alpha1), in one shape."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_list, as_map, as_str, as_str_map
from .kubelet import KubeletConfig, parse_kubelet
from .meta import KubeObject, meta_fields

AWS_GROUP = "karpenter.k8s.aws"


@dataclass(frozen=True, slots=True)
class NodeClassRef:
    """Which node class a NodePool / NodeClaim uses, whatever the API version said."""

    group: str
    kind: str
    name: str


def parse_node_class_ref(raw: object, where: str, default_kind: str = "EC2NodeClass") -> NodeClassRef | None:
    """v1 ``{group, kind, name}``, v1beta1 ``{apiVersion, kind, name}``, v1alpha5 ``providerRef``."""
    if raw is None:
        return None
    data = as_map(raw, where)
    group = as_str(data.get("group"), f"{where}.group")
    if not group:
        group = as_str(data.get("apiVersion"), f"{where}.apiVersion").split("/")[0] or AWS_GROUP
    return NodeClassRef(
        group=group,
        kind=as_str(data.get("kind"), f"{where}.kind", default_kind) or default_kind,
        name=as_str(data.get("name"), f"{where}.name"),
    )


@dataclass(frozen=True, slots=True, kw_only=True)
class NodeClass(KubeObject):
    api_version: str
    kind: str
    ami_family: str = ""
    role: str = ""
    subnet_selectors: tuple[Mapping, ...] = ()
    security_group_selectors: tuple[Mapping, ...] = ()
    subnet_zones: tuple[str, ...] = ()
    tags: Mapping[str, str]
    kubelet: KubeletConfig | None = None
    ready: bool | None = None
    # status.capacityReservations' ids: the reservations the class's selector terms found, which its
    # NodePools may launch into (None: no status captured, so unknown)
    capacity_reservations: tuple[str, ...] | None = None

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


def _ami_family(spec: Mapping) -> str:
    """v1 names the family through an alias such as ``al2023@latest``."""
    family = as_str(spec.get("amiFamily"), "spec.amiFamily")
    if family:
        return family
    for i, term in enumerate(as_list(spec.get("amiSelectorTerms"), "spec.amiSelectorTerms")):
        alias = as_str(as_map(term, f"spec.amiSelectorTerms[{i}]").get("alias"), "alias")
        if alias:
            name = alias.split("@")[0]
            return {"al2": "AL2", "al2023": "AL2023", "bottlerocket": "Bottlerocket",
                    "windows2019": "Windows2019", "windows2022": "Windows2022"}.get(name, name)
    return "Custom" if spec.get("amiSelectorTerms") else ""


def _selector_terms(spec: Mapping, terms_key: str, legacy_key: str) -> tuple[Mapping, ...]:
    """v1beta1+/v1 selector terms, or v1alpha1's single tag map as one term."""
    if spec.get(terms_key) is not None:
        return tuple(as_map(t, terms_key) for t in as_list(spec.get(terms_key), f"spec.{terms_key}"))
    legacy = as_str_map(spec.get(legacy_key), f"spec.{legacy_key}")
    return ({"tags": legacy},) if legacy else ()


def build_node_class(obj: Mapping, api_version: str, kind: str) -> NodeClass:
    spec = as_map(obj.get("spec"), "spec")
    status = as_map(obj.get("status"), "status")
    zones: list[str] = []
    for i, subnet in enumerate(as_list(status.get("subnets"), "status.subnets")):
        zone = as_str(as_map(subnet, f"status.subnets[{i}]").get("zone"), "zone")
        if zone and zone not in zones:
            zones.append(zone)
    reservations = None
    if status:  # the list is left out when the class selects none (omitempty)
        reservations = tuple(
            as_str(as_map(r, f"status.capacityReservations[{i}]").get("id"), f"status.capacityReservations[{i}].id")
            for i, r in enumerate(as_list(status.get("capacityReservations"), "status.capacityReservations")))
    ready = None
    for cond in as_list(status.get("conditions"), "status.conditions"):
        if isinstance(cond, Mapping) and cond.get("type") == "Ready":
            ready = cond.get("status") == "True"
    return NodeClass(
        **meta_fields(obj),
        api_version=api_version,
        kind=kind,
        ami_family=_ami_family(spec),
        role=as_str(spec.get("role") or spec.get("instanceProfile"), "spec.role"),
        subnet_selectors=_selector_terms(spec, "subnetSelectorTerms", "subnetSelector"),
        security_group_selectors=_selector_terms(spec, "securityGroupSelectorTerms", "securityGroupSelector"),
        subnet_zones=tuple(zones),
        tags=as_str_map(spec.get("tags"), "spec.tags"),
        kubelet=parse_kubelet(spec.get("kubelet"), "spec.kubelet"),
        ready=ready,
        capacity_reservations=reservations,
    )
