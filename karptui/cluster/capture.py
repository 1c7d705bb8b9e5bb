"""``karptui snapshot save``: everything the panes use, plus recent Karpenter logs, in one file.

Only GETs; Secrets and ConfigMaps are never read. Of every object listed, only the
fields karptui reads are kept, by the one allow-list per kind in
:mod:`karptui.cluster.redact`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

from kubernetes.client.rest import ApiException

from ..model import SnapshotMeta
from .connect import TIMEOUT, Connection
from .informer import PAGE
from .karpenter_logs import recent_log
from .redact import redact
from .resources import BUILTIN, KARPENTER_CRD, Resource, discover, list_pages


def list_all(connection: Connection, resource: Resource) -> Iterator[dict]:
    """Every object of a kind, cut to what karptui reads (:mod:`.redact`), with kind and apiVersion filled in."""
    for listing in list_pages(resource.lister(connection.api, connection.namespace), PAGE, TIMEOUT):
        for item in listing.get("items") or ():
            if isinstance(item, dict):
                yield redact(resource.typed(item))


def capture(connection: Connection, logs_since: float | None = 3600) -> tuple[list[dict], SnapshotMeta, list[str]]:
    """(objects, metadata, notes): a 403 or an absent kind is a note, not a failure."""
    karpenter, notes = discover(connection.api)
    objects: list[dict] = []
    for resource in (*BUILTIN, KARPENTER_CRD, *karpenter):
        try:
            objects.extend(list_all(connection, resource))
        except ApiException as exc:
            if exc.status in (403, 404):
                notes.append(f"{resource.name}: {'forbidden' if exc.status == 403 else 'not served'}; not captured")
                continue
            raise
    source, text = "", ""
    if logs_since != 0:
        try:
            source, text = recent_log(connection.api, logs_since)
        except ApiException as exc:
            notes.append(f"Karpenter logs: {exc.status} {exc.reason}; not captured")
        if not source:
            notes.append("no Karpenter controller pods found: no logs captured")
    meta = SnapshotMeta(name=connection.context, captured_at=datetime.now(timezone.utc).replace(microsecond=0),
                        context=connection.context, cluster=connection.server,
                        kubernetes_version=connection.version, logs_source=source, logs_text=text)
    return objects, meta, notes
