"""What every controller module shares: the error an edit raises, the model's builders, owner refs.

The controllers change a :class:`~karptui.model.snapshot.Snapshot` through a run
(:class:`karptui.whatif.apply.Run`): ``run.snapshot`` is replaced, never changed in place, and
``run.notes`` says in words what happened, as an operator would want it said.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from ...model.build import KINDS, api_group, builder_of
from ...model.errors import ModelError
from ...model.meta import KubeObject
from ...model.snapshot import Snapshot
from ..edits import Target

# What building a model object from an edited dict can raise: the model's own complaint, or a
# field of the wrong type deeper than the builders check.
BUILD_ERRORS = (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError)
FIELD_OF_KIND = {kind: entry[0] for (_, kind), entry in KINDS.items()}


class EditError(ValueError):
    """An edit that does not fit the snapshot; becomes ``InputError("edit N: ...")``."""


def kind_of(obj: object) -> str:
    return getattr(obj, "kind", None) or obj.KIND  # type: ignore[attr-defined]


def build(raw: Mapping, target: Target) -> Any:
    """The model object for a raw dict, through the same builder the loader uses."""
    api_version = raw.get("apiVersion") if isinstance(raw.get("apiVersion"), str) else ""
    kind = raw.get("kind") if isinstance(raw.get("kind"), str) else target.kind
    entry = builder_of(api_group(api_version), kind)
    if entry is None:
        entry = builder_of(*next(key for key in KINDS if key[1] == target.kind))
    try:
        return entry[1](raw, api_version, kind)
    except BUILD_ERRORS as exc:
        raise EditError(f"{target}: the edited object is not valid: {exc}") from None


def swap(snapshot: Snapshot, field: str, old: object, new: object) -> Snapshot:
    """The snapshot with ``old`` replaced by ``new`` in ``field``, everything else shared."""
    return replace(snapshot, **{field: tuple(new if o is old else o for o in getattr(snapshot, field))})


def owner_ref(raw: Mapping, owner: KubeObject) -> dict:
    """The controller reference a controller writes on the pods (or ReplicaSets) it makes."""
    ref = {"apiVersion": raw.get("apiVersion") or "apps/v1", "kind": kind_of(owner), "name": owner.name,
           "controller": True, "blockOwnerDeletion": True}
    if owner.uid:
        ref["uid"] = owner.uid
    return ref
