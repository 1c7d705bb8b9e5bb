"""PriorityClass and StorageClass: cluster policy the scheduler consults."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from .fields import as_bool_field, as_int32, as_list, as_map, as_str, as_str_list
from .meta import KubeObject, meta_fields
from .selectors import IN, Requirement


@dataclass(frozen=True, slots=True, kw_only=True)
class PriorityClass(KubeObject):
    value: int = 0
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"

    KIND = "PriorityClass"


@dataclass(frozen=True, slots=True, kw_only=True)
class StorageClass(KubeObject):
    provisioner: str = ""
    volume_binding_mode: str = "Immediate"
    # allowedTopologies: ORed terms, each a list of key In [values]
    allowed_topologies: tuple[tuple[Requirement, ...], ...] = ()

    KIND = "StorageClass"

    @property
    def is_default(self) -> bool:
        """Marked the cluster's default class (the annotation, or its older beta spelling)."""
        return any(self.annotations.get(key) == "true" for key in DEFAULT_CLASS_ANNOTATIONS)


DEFAULT_CLASS_ANNOTATIONS = ("storageclass.kubernetes.io/is-default-class",
                             "storageclass.beta.kubernetes.io/is-default-class")


def default_storage_class(classes: Iterable[StorageClass]) -> str:
    """The class a claim that names none gets: of the classes marked default, the newest (then the
    first by name), as the DefaultStorageClass admission and the PV controller's retroactive
    assignment choose; "" when none is marked."""
    marked = [c for c in classes if c.is_default]
    if not marked:
        return ""
    newest = max(c.created.timestamp() if c.created else float("-inf") for c in marked)
    return min(c.name for c in marked if (c.created.timestamp() if c.created else float("-inf")) == newest)


def build_priority_class(obj: Mapping) -> PriorityClass:
    return PriorityClass(
        **meta_fields(obj),
        value=as_int32(obj.get("value"), "value", 0),
        global_default=as_bool_field(obj.get("globalDefault"), "globalDefault"),
        preemption_policy=as_str(obj.get("preemptionPolicy"), "preemptionPolicy", "PreemptLowerPriority"),
    )


def build_storage_class(obj: Mapping) -> StorageClass:
    return StorageClass(
        **meta_fields(obj),
        provisioner=as_str(obj.get("provisioner"), "provisioner"),
        volume_binding_mode=as_str(obj.get("volumeBindingMode"), "volumeBindingMode", "Immediate"),
        allowed_topologies=tuple(
            tuple(Requirement(as_str(e.get("key"), f"allowedTopologies[{i}].key"), IN,
                              as_str_list(e.get("values"), f"allowedTopologies[{i}].values"))
                  for e in (as_map(x, f"allowedTopologies[{i}]") for x in as_list(
                      as_map(term, f"allowedTopologies[{i}]").get("matchLabelExpressions"), "matchLabelExpressions")))
            for i, term in enumerate(as_list(obj.get("allowedTopologies"), "allowedTopologies"))),
    )
