"""What every Kubernetes object carries: identity, labels, owners, times."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime

from .errors import ModelError
from .fields import as_list, as_map, as_str, as_str_map, parse_time


@dataclass(frozen=True, slots=True)
class OwnerReference:
    kind: str
    name: str
    uid: str = ""
    controller: bool = False
    api_version: str = ""


@dataclass(frozen=True, slots=True, kw_only=True)
class KubeObject:
    """The metadata fields the model keeps. Builders never mutate the dicts."""

    name: str
    namespace: str = ""
    uid: str = ""
    labels: Mapping[str, str]
    annotations: Mapping[str, str]
    owners: tuple[OwnerReference, ...] = ()
    created: datetime | None = None
    deleted: datetime | None = None
    raw: Mapping | None = field(default=None, repr=False, compare=False)
    """The object as read, for what-if patches; not kept for Pods and Events (too many)."""

    KIND = "Object"

    @property
    def key(self) -> str:
        """``namespace/name`` (or just ``name`` for cluster-scoped objects)."""
        return f"{self.namespace}/{self.name}" if self.namespace else self.name

    @property
    def ref(self) -> str:
        return f"{self.KIND}/{self.key}"

    @property
    def controller(self) -> OwnerReference | None:
        for owner in self.owners:  # a loop, not next(generator): asked of every pod, many times a run
            if owner.controller:
                return owner
        return None


def _owner(raw: object, where: str) -> OwnerReference:
    ref = as_map(raw, where)
    return OwnerReference(
        kind=as_str(ref.get("kind"), f"{where}.kind"),
        name=as_str(ref.get("name"), f"{where}.name"),
        uid=as_str(ref.get("uid"), f"{where}.uid"),
        controller=ref.get("controller") is True,
        api_version=as_str(ref.get("apiVersion"), f"{where}.apiVersion"),
    )


def meta_fields(obj: Mapping, keep_raw: bool = True) -> dict:
    """Keyword arguments for :class:`KubeObject` from ``obj["metadata"]``."""
    meta = as_map(obj.get("metadata"), "metadata")
    name = meta.get("name")
    if type(name) is not str:
        name = as_str(name, "metadata.name")
    if not name:
        raise ModelError("metadata.name: missing")
    owners = meta.get("ownerReferences")
    return {
        "name": name,
        "namespace": as_str(meta.get("namespace"), "metadata.namespace"),
        "uid": as_str(meta.get("uid"), "metadata.uid"),
        "labels": as_str_map(meta.get("labels"), "metadata.labels"),
        "annotations": as_str_map(meta.get("annotations"), "metadata.annotations"),
        "owners": tuple(
            _owner(raw, f"metadata.ownerReferences[{i}]")
            for i, raw in enumerate(as_list(owners, "metadata.ownerReferences"))
        ) if owners else (),
        "created": parse_time(meta.get("creationTimestamp"), "metadata.creationTimestamp"),
        "deleted": parse_time(meta.get("deletionTimestamp"), "metadata.deletionTimestamp"),
        "raw": obj if keep_raw else None,
    }


def describe(obj: object) -> str:
    """``Kind namespace/name`` for warnings, from a raw dict, as far as it goes."""
    if not isinstance(obj, Mapping):
        return f"a {type(obj).__name__} where an object was expected"
    kind = obj.get("kind") if isinstance(obj.get("kind"), str) else "object"
    meta = obj.get("metadata") if isinstance(obj.get("metadata"), Mapping) else {}
    name = meta.get("name") if isinstance(meta.get("name"), str) else None
    ns = meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    if name is None:
        return f"{kind} without a name"
    return f"{kind} {ns}/{name}" if ns else f"{kind} {name}"
