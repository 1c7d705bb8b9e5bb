"""PriorityClass and StorageClass: cluster policy the scheduler consults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .fields import as_bool_field, as_int, as_str
from .meta import KubeObject, meta_fields


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

    KIND = "StorageClass"


def build_priority_class(obj: Mapping) -> PriorityClass:
    return PriorityClass(
        **meta_fields(obj),
        value=as_int(obj.get("value"), "value", 0),
        global_default=as_bool_field(obj.get("globalDefault"), "globalDefault"),
        preemption_policy=as_str(obj.get("preemptionPolicy"), "preemptionPolicy", "PreemptLowerPriority"),
    )


def build_storage_class(obj: Mapping) -> StorageClass:
    return StorageClass(
        **meta_fields(obj),
        provisioner=as_str(obj.get("provisioner"), "provisioner"),
        volume_binding_mode=as_str(obj.get("volumeBindingMode"), "volumeBindingMode", "Immediate"),
    )
