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


# Replicas name the same owner: one OwnerReference for all of them (bounded; cleared when full).
_OWNERS: dict[tuple, OwnerReference] = {}
_OWNERS_LIMIT = 4096


def _owners(raw: object) -> tuple[OwnerReference, ...]:
    """``metadata.ownerReferences``. The common case (every field a string) is read without building
    the field paths an error would name; anything else goes through :func:`_owner`, which names it."""
    refs = []
    for i, ref in enumerate(as_list(raw, "metadata.ownerReferences")):
        if type(ref) is dict:
            kind, name, uid, api_version = ref.get("kind"), ref.get("name"), ref.get("uid"), ref.get("apiVersion")
            if type(kind) is str and type(name) is str and type(uid) is str and type(api_version) is str:
                key = (kind, name, uid, api_version, ref.get("controller") is True)
                found = _OWNERS.get(key)
                if found is None:
                    if len(_OWNERS) >= _OWNERS_LIMIT:
                        _OWNERS.clear()
                    found = _OWNERS[key] = OwnerReference(kind, name, uid, key[4], api_version)
                refs.append(found)
                continue
        refs.append(_owner(ref, f"metadata.ownerReferences[{i}]"))
    return tuple(refs)


def meta_fields(obj: Mapping, keep_raw: bool = True) -> dict:
    """Keyword arguments for :class:`KubeObject` from ``obj["metadata"]``."""
    meta = obj.get("metadata")
    if type(meta) is not dict:
        meta = as_map(meta, "metadata")
    name = meta.get("name")
    if type(name) is not str:
        name = as_str(name, "metadata.name")
    if not name:
        raise ModelError("metadata.name: missing")
    namespace, uid, owners, created = meta.get("namespace"), meta.get("uid"), meta.get("ownerReferences"), \
        meta.get("creationTimestamp")
    deleted = meta.get("deletionTimestamp")
    return {
        "name": name,
        "namespace": namespace if type(namespace) is str else as_str(namespace, "metadata.namespace"),
        "uid": uid if type(uid) is str else as_str(uid, "metadata.uid"),
        "labels": as_str_map(meta.get("labels"), "metadata.labels"),
        "annotations": as_str_map(meta.get("annotations"), "metadata.annotations"),
        "owners": _owners(owners) if owners else (),
        "created": parse_time(created, "metadata.creationTimestamp") if created is not None else None,
        "deleted": parse_time(deleted, "metadata.deletionTimestamp") if deleted is not None else None,
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
