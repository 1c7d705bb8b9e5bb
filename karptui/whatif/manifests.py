"""Changed manifests as a what-if: each object changed as ``kubectl apply`` would change it.

``karptui check --apply nodepool.yaml`` asks what a pull request's manifests would do once
applied. Rather than a second way of changing a snapshot, each object becomes a what-if edit
(:mod:`karptui.whatif.edits`), so the change runs through the one what-if path (the session,
the drift preview, the controllers):

* an object the snapshot holds becomes a ``patch`` edit carrying what ``kubectl apply`` (client
  side, its default) sends: the manifest's fields, plus the deletion of every field the
  previous apply set and this manifest leaves out. kubectl knows the previous apply from the
  object's ``kubectl.kubernetes.io/last-applied-configuration`` annotation; a snapshot saved by
  ``karptui snapshot save`` drops that annotation (it copies the whole object), so there
  nothing is deleted and a field the manifest leaves out stays as captured -- said in a note.
  The patch type is kubectl's (its apply patcher, k8s.io/kubectl ``pkg/cmd/apply/patcher.go``:
  a three-way JSON merge patch for a kind its scheme does not register, else a three-way
  strategic merge patch): strategic for Kubernetes' own kinds (containers merge by name, ...),
  JSON merge for custom resources (NodePool, EC2NodeClass: every list, requirements and taints
  too, is replaced whole). kubectl reads the live object in the manifest's API version; a
  snapshot holds it in the version captured, so a manifest of another version (a
  ``karpenter.sh/v1`` NodePool over a captured ``v1beta1`` one) is merged field by field,
  without the conversion Karpenter's webhook makes;
* an object the snapshot does not hold becomes a ``create`` edit with its manifest.

A manifest is read as YAML, one object per document or a ``kind: List``; a directory is its
``.yaml``, ``.yml`` and ``.json`` files in name order (``kubectl apply -f DIR``); ``status`` and the
server's metadata (uid, resourceVersion, managedFields...) are left out, as the API server
ignores them. A namespaced object without ``metadata.namespace`` goes to ``default``, the
namespace kubectl uses without a context's. Kinds karptui does not model (ConfigMap, Secret,
Ingress...) are skipped with a note: a pull request's directory may hold them. Headless.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from .. import limits
from ..errors import InputError
from ..model.build import api_group
from ..model.snapshot import Snapshot
from ..sources.decode import read_text, size_text
from ..sources.yaml_load import load_all
from .controllers.common import FIELD_OF_KIND, kind_of
from .edits import CLUSTER_SCOPED, TARGET_KINDS, Create, Edit, Patch, Target, WhatIf, edits_over_cap
from .patch import DIRECTIVE, KEY_DEFAULTS, MERGE, MERGE_KEYS, STRATEGIC

LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"
# API groups of Kubernetes' own kinds: kubectl sends these a strategic merge patch; any other
# group is a custom resource's, which gets a JSON merge patch.
BUILT_IN_GROUPS = frozenset({"", "apps", "extensions", "batch", "policy", "scheduling.k8s.io",
                             "storage.k8s.io", "events.k8s.io", "apiextensions.k8s.io"})
# The metadata a manifest may set; the rest (uid, resourceVersion, managedFields, ...) is the server's.
KEPT_METADATA = ("name", "namespace", "labels", "annotations")
DEFAULT_NAMESPACE = "default"
MANIFEST_SUFFIXES = (".yaml", ".yml", ".json")


def read_manifests(paths: Sequence[str | Path]) -> list[tuple[str | Path, list[Mapping]]]:
    """Each manifest file of ``paths`` (directories expanded) and its objects: every file read and
    checked, so a bad one is one line before a live cluster is listed for the snapshot."""
    return [(path, _objects(path)) for path in manifest_files(paths)]


def whatif_from_manifests(snapshot: Snapshot, paths: Sequence[str | Path],
                          read: list[tuple[str | Path, list[Mapping]]] | None = None) -> tuple[WhatIf, list[str]]:
    """The what-if that applies ``paths``' objects in order (``read``: as :func:`read_manifests`
    read them already), and notes on how they were read (skipped kinds, a namespace defaulted, no
    last-applied configuration to delete fields by)."""
    edits: list[Edit] = []
    notes: list[str] = []
    applied: dict[Target, Mapping] = {}  # objects applied earlier in this run: their manifest is the last applied
    read = read_manifests(paths) if read is None else read
    paths = [path for path, _ in read]
    for path, objects in read:
        for number, doc in enumerate(objects, 1):
            edit = _edit(snapshot, doc, applied, notes, f"{path}: object {number}")
            if edit is not None:
                edits.append(edit)
                too_many = edits_over_cap(len(edits))
                if too_many:
                    raise InputError(path, f"object {number}: {too_many}")
    if not edits:
        raise InputError(str(paths[0]) if len(paths) == 1 else None,
                         "no object karptui models in the manifests (NodePool, EC2NodeClass, Deployment, ...)")
    names = ", ".join(Path(p).name for p in paths)
    return WhatIf(name=f"apply {names}", edits=tuple(edits), description="kubectl apply of " + names,
                  source=str(paths[0]) if len(paths) == 1 else names), notes


def manifest_files(paths: Sequence[str | Path]) -> list[str | Path]:
    """``paths`` with each directory replaced by its ``.yaml``, ``.yml`` and ``.json`` files in name
    order, as ``kubectl apply -f DIR`` reads one (not its subdirectories)."""
    out: list[str | Path] = []
    for path in paths:
        if Path(path).is_dir():
            found = sorted(str(f) for f in Path(path).iterdir() if f.suffix in MANIFEST_SUFFIXES and f.is_file())
            if not found:
                raise InputError(path, "a directory with no .yaml, .yml or .json files")
            out += found
        else:
            out.append(path)
    return out


def _objects(path: str | Path) -> list[Mapping]:
    """The objects of one manifest file: each YAML document, a ``List``'s items in their place."""
    text = read_text(path, small=True)
    if len(text.encode("utf-8", "surrogatepass")) > limits.MAX_SMALL_FILE_BYTES:
        raise InputError(path, f"more than the {size_text(limits.MAX_SMALL_FILE_BYTES)} karptui reads of a manifest")
    out: list[Mapping] = []
    for number, doc in enumerate(load_all(text, str(path)), 1):
        if doc is None:
            continue
        if not isinstance(doc, Mapping):
            raise InputError(path, f"document {number}: expected an object (apiVersion, kind, metadata), "
                                   f"got a {type(doc).__name__}")
        if isinstance(doc.get("kind"), str) and doc["kind"].endswith("List") and "items" in doc:
            items = doc["items"]
            if not isinstance(items, list) or not all(isinstance(i, Mapping) for i in items):
                raise InputError(path, f"document {number}: a {doc['kind']}'s items must be a list of objects")
            out.extend(items)
        else:
            out.append(doc)
    return out


def _edit(snapshot: Snapshot, doc: Mapping, applied: dict[Target, Mapping], notes: list[str],
          where: str) -> Edit | None:
    kind, api_version = doc.get("kind"), doc.get("apiVersion")
    if not isinstance(kind, str) or not kind or not isinstance(api_version, str) or not api_version:
        raise InputError(None, f"{where}: apiVersion and kind missing")
    meta = doc.get("metadata")
    if not isinstance(meta, Mapping) or not isinstance(meta.get("name"), str) or not meta["name"]:
        raise InputError(None, f"{where}: {kind} has no metadata.name")
    if kind not in TARGET_KINDS:
        notes.append(f"{where}: {kind}/{meta['name']} skipped: karptui does not model {kind} objects")
        return None
    manifest = _clean(doc)
    if kind not in CLUSTER_SCOPED and not manifest["metadata"].get("namespace"):
        manifest["metadata"]["namespace"] = DEFAULT_NAMESPACE
        notes.append(f"{where}: {kind}/{meta['name']} has no namespace: applied to {DEFAULT_NAMESPACE}, "
                     "as kubectl does without a context namespace")
    try:
        target = Target(kind, meta["name"], manifest["metadata"].get("namespace", "") if kind not in CLUSTER_SCOPED else "")
        current = applied.get(target)
        existing = _find(snapshot, target)
        if current is None and existing is None:
            edit: Edit = Create(manifest)
        else:
            patch_type = STRATEGIC if api_group(api_version) in BUILT_IN_GROUPS else MERGE
            original = current if current is not None else _last_applied(existing)
            if original is None:
                notes.append(f"{where}: {target}: the snapshot keeps no last-applied configuration, so fields "
                             "this manifest leaves out stay as captured (kubectl apply deletes those its last "
                             "apply set)")
            edit = Patch(target, _apply_patch(original, manifest, patch_type), patch_type)
    except ValueError as exc:
        raise InputError(None, f"{where}: {exc}") from None
    applied[target] = manifest
    return edit


def _find(snapshot: Snapshot, target: Target) -> Any:
    return next((o for o in getattr(snapshot, FIELD_OF_KIND[target.kind])
                 if kind_of(o) == target.kind and o.name == target.name and o.namespace == target.namespace), None)


def _clean(doc: Mapping) -> dict:
    """The manifest as the API server takes it in: no status, only the metadata a user sets."""
    out = {k: copy.deepcopy(v) for k, v in doc.items() if k != "status"}
    meta = {k: copy.deepcopy(v) for k, v in doc["metadata"].items() if k in KEPT_METADATA}
    if isinstance(meta.get("annotations"), Mapping):
        meta["annotations"] = {k: v for k, v in meta["annotations"].items() if k != LAST_APPLIED}
        if not meta["annotations"]:
            del meta["annotations"]
    out["metadata"] = meta
    return out


def _last_applied(obj: Any) -> Mapping | None:
    """What kubectl applied last, from the annotation it keeps on the object (a kubectl dump has it)."""
    raw = getattr(obj, "raw", None) or {}
    text = ((raw.get("metadata") or {}).get("annotations") or {}).get(LAST_APPLIED)
    if not isinstance(text, str):
        return None
    try:
        found = json.loads(text)
    except ValueError:
        return None
    return _clean(found) if isinstance(found, Mapping) and isinstance(found.get("metadata"), Mapping) else None


def _apply_patch(original: Mapping | None, manifest: Mapping, patch_type: str) -> dict:
    """The patch ``kubectl apply`` sends: the manifest, with every field ``original`` set and the
    manifest leaves out deleted (``null``; in a strategic patch's keyed lists ``$patch: delete``)."""
    patch = copy.deepcopy(dict(manifest))
    if original is not None:
        _delete_dropped(original, patch, strategic=patch_type == STRATEGIC)
    return patch


def _delete_dropped(original: Mapping, patch: dict, *, strategic: bool) -> None:
    for key, old in original.items():
        if key not in patch:
            patch[key] = None
            continue
        new = patch[key]
        if isinstance(old, Mapping) and isinstance(new, dict):
            _delete_dropped(old, new, strategic=strategic)
        elif strategic and key in MERGE_KEYS and isinstance(old, list) and isinstance(new, list):
            keys = MERGE_KEYS[key]
            kept = {_identity(item, keys): item for item in new if isinstance(item, dict)}
            for item in old:
                if not isinstance(item, Mapping):
                    continue
                match = kept.get(_identity(item, keys))
                if match is None:
                    new.append({DIRECTIVE: "delete", **{k: item[k] for k in keys if k in item}})
                else:
                    _delete_dropped(item, match, strategic=strategic)


def _identity(item: Mapping, keys: tuple[str, ...]) -> tuple:
    return tuple(json.dumps(item.get(k, KEY_DEFAULTS.get(k)), sort_keys=True) for k in keys)
