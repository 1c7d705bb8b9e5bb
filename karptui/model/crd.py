"""Karpenter's CustomResourceDefinitions, as far as they tell which Karpenter installed them.

A dump may hold the CRDs (``kubectl get crd -o yaml``) but no controller pod (another namespace, no
RBAC), and live mode and ``snapshot save`` read Karpenter's NodePool CRD (karptui.cluster.resources):
the CRDs' served API versions and a few schema details then bound the Karpenter release
(karptui.sim.karpenter.versions reads them; Karpenter's charts label their CRDs with no release). Only CRDs of Karpenter's groups are kept, and of
them only what bounds the release: the rest of a schema is large and says nothing karptui uses.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_list, as_map, as_str
from .meta import KubeObject, meta_fields

KARPENTER_GROUPS = ("karpenter.sh", "karpenter.k8s.aws")


@dataclass(frozen=True, slots=True, kw_only=True)
class KarpenterCRD(KubeObject):
    """One CRD of Karpenter's: its group, kind, served versions, and for NodePools what the
    ``spec.disruption`` schema requires and which consolidation policies it accepts."""

    group: str
    kind: str
    served: tuple[str, ...]
    disruption_required: tuple[str, ...] = ()
    consolidation_policies: tuple[str, ...] = ()

    KIND = "CustomResourceDefinition"


def _disruption_schema(version: Mapping) -> Mapping:
    schema = as_map(as_map(version.get("schema"), "schema").get("openAPIV3Schema"), "openAPIV3Schema")
    spec = as_map(as_map(schema.get("properties"), "properties").get("spec"), "spec")
    return as_map(as_map(spec.get("properties"), "spec.properties").get("disruption"), "disruption")


def build_karpenter_crd(obj: Mapping) -> KarpenterCRD | None:
    """The CRD when it is one of Karpenter's groups, else None (karptui keeps no other CRD)."""
    spec = as_map(obj.get("spec"), "spec")
    group = as_str(spec.get("group"), "spec.group")
    if group not in KARPENTER_GROUPS:
        return None
    names = as_map(spec.get("names"), "spec.names")
    versions = [as_map(v, f"spec.versions[{i}]") for i, v in enumerate(as_list(spec.get("versions"), "spec.versions"))]
    served = tuple(as_str(v.get("name"), "spec.versions[].name") for v in versions if v.get("served") is not False)
    required: tuple[str, ...] = ()
    policies: tuple[str, ...] = ()
    storage = next((v for v in versions if v.get("storage") is True), versions[0] if versions else {})
    disruption = _disruption_schema(storage) if storage else {}
    if disruption:
        required = tuple(str(r) for r in as_list(disruption.get("required"), "disruption.required"))
        policy = as_map(as_map(disruption.get("properties"), "disruption.properties").get("consolidationPolicy"),
                        "consolidationPolicy")
        policies = tuple(str(p) for p in as_list(policy.get("enum"), "consolidationPolicy.enum"))
    return KarpenterCRD(**meta_fields(obj, keep_raw=False), group=group,
                        kind=as_str(names.get("kind"), "spec.names.kind"), served=served,
                        disruption_required=required, consolidation_policies=policies)
