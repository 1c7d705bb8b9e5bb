"""karptui's own snapshot format: one metadata document, then a ``kind: List``.

YAML snapshots are two documents (metadata, then the List); JSON snapshots are
one List whose first item is the metadata object. Either may be gzipped (a name
ending in ``.gz``). Any kubectl dump is a valid snapshot without the metadata.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterable, Mapping
from functools import cache
from pathlib import Path

from .. import __version__
from ..model import SnapshotMeta
from ..model.errors import ModelError
from ..model.fields import as_map, as_str, parse_time

META_API_VERSION = "karptui/v1"
META_KIND = "KarptuiSnapshot"


@cache
def _dumper() -> type:
    """PyYAML's dumper (LibYAML's where built) that writes objects shared in memory out in full, never
    as anchors and aliases: kubectl never writes them, and karptui's reader refuses more than a few
    (issue 12). Made when a YAML snapshot is written: reading one needs no PyYAML dumper, and
    reading a JSON file no PyYAML at all."""
    import yaml

    class _Dumper(getattr(yaml, "CSafeDumper", yaml.SafeDumper)):  # type: ignore[misc]
        def ignore_aliases(self, data: object) -> bool:
            return True

    return _Dumper


def snapshot_meta(docs: list[tuple[Mapping, str]], source: str) -> tuple[SnapshotMeta, list[str]]:
    """The SnapshotMeta from the metadata document(s) found, plus warnings."""
    if not docs:
        return SnapshotMeta(source=source), []
    notes = [f"{origin}: extra {META_KIND} document ignored" for _, origin in docs[1:]]
    doc, origin = docs[0]
    try:
        logs = as_map(doc.get("logs"), "logs")
        meta = SnapshotMeta(
            source=source,
            name=as_str(as_map(doc.get("metadata"), "metadata").get("name"), "metadata.name"),
            captured_at=parse_time(doc.get("capturedAt"), "capturedAt"),
            context=as_str(doc.get("context"), "context"),
            cluster=as_str(doc.get("cluster"), "cluster"),
            karptui_version=as_str(doc.get("karptuiVersion"), "karptuiVersion"),
            kubernetes_version=as_str(doc.get("kubernetesVersion"), "kubernetesVersion"),
            logs_source=as_str(logs.get("source"), "logs.source"),
            logs_text=as_str(logs.get("text"), "logs.text"),
            karpenter_version=as_str(doc.get("karpenterVersion"), "karpenterVersion"),
        )
    except ModelError as exc:
        return SnapshotMeta(source=source), notes + [f"{origin}: {META_KIND} document ignored: {exc}"]
    return meta, notes


def meta_document(meta: SnapshotMeta) -> dict:
    """The metadata document for ``meta`` (the inverse of :func:`snapshot_meta`)."""
    doc: dict = {"apiVersion": META_API_VERSION, "kind": META_KIND, "metadata": {"name": meta.name or "snapshot"}}
    if meta.captured_at:
        doc["capturedAt"] = meta.captured_at.isoformat().replace("+00:00", "Z")
    for key, value in (
        ("context", meta.context), ("cluster", meta.cluster),
        ("karptuiVersion", meta.karptui_version or __version__),
        ("kubernetesVersion", meta.kubernetes_version),
        ("karpenterVersion", meta.karpenter_version),
    ):
        if value:
            doc[key] = value
    if meta.logs_text or meta.logs_source:
        doc["logs"] = {"source": meta.logs_source, "text": meta.logs_text}
    return doc


def encode_snapshot(objects: Iterable[Mapping], meta: SnapshotMeta, fmt: str) -> bytes:
    """The bytes of a snapshot file in ``fmt`` ("yaml" or "json")."""
    items = list(objects)
    listing = {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}
    if fmt == "json":
        listing["items"] = [meta_document(meta), *items]
        return json.dumps(listing, separators=(",", ":")).encode()
    import yaml

    text = yaml.dump_all([meta_document(meta), listing], Dumper=_dumper(), sort_keys=False, allow_unicode=True)
    return text.encode()


def write_snapshot(path: str | Path, objects: Iterable[Mapping], meta: SnapshotMeta) -> None:
    """Save raw objects with ``meta`` (:func:`.atomic.atomic_write`); the name picks JSON/YAML and gzip."""
    name = Path(path).name.removesuffix(".gz")
    data = encode_snapshot(objects, meta, "json" if name.endswith(".json") else "yaml")
    if str(path).endswith(".gz"):
        data = gzip.compress(data, mtime=0)
    from .atomic import atomic_write  # here: reading a snapshot writes nothing

    atomic_write(path, data)
