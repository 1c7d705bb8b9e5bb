"""``karptui snapshot save``: everything the panes use, plus recent Karpenter logs, in one file.

Only GETs; Secrets and ConfigMaps are never read. What a snapshot must not carry is
taken out before it is written: literal env values in every pod spec (pods and
workload templates), and the two places a copy of the spec hides (the
last-applied-configuration annotation and managedFields).
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime, timezone

from kubernetes.client.rest import ApiException

from ..model import SnapshotMeta
from .connect import TIMEOUT, Connection
from .informer import PAGE
from .karpenter_logs import recent_log
from .resources import BUILTIN, Resource, discover, list_pages

REDACTED = "<redacted by karptui>"
LAST_APPLIED = "kubectl.kubernetes.io/last-applied-configuration"


def list_all(connection: Connection, resource: Resource) -> Iterator[dict]:
    """Every object of a kind, redacted, with kind and apiVersion filled in."""
    for listing in list_pages(resource.lister(connection.api, connection.namespace), PAGE, TIMEOUT):
        for item in listing.get("items") or ():
            if isinstance(item, dict):
                yield redact(resource.typed(item))


def redact(obj: dict) -> dict:
    """The object without literal env values or hidden copies of its spec (changed in place)."""
    meta = obj.get("metadata")
    if isinstance(meta, dict):
        meta.pop("managedFields", None)
        annotations = meta.get("annotations")
        if isinstance(annotations, dict):
            annotations.pop(LAST_APPLIED, None)
    spec = obj.get("spec")
    if isinstance(spec, dict):
        _redact_pod_spec(spec)
        template = spec.get("template")  # workloads: Deployments, ReplicaSets, StatefulSets, DaemonSets, Jobs
        if isinstance(template, dict) and isinstance(template.get("spec"), dict):
            _redact_pod_spec(template["spec"])
    return obj


def _redact_pod_spec(spec: dict) -> None:
    for field in ("containers", "initContainers", "ephemeralContainers"):
        for container in spec.get(field) or ():
            if not isinstance(container, dict):
                continue
            for env in container.get("env") or ():
                if isinstance(env, dict) and "value" in env:
                    env["value"] = REDACTED


def capture(connection: Connection, logs_since: float | None = 3600) -> tuple[list[dict], SnapshotMeta, list[str]]:
    """(objects, metadata, notes): a 403 or an absent kind is a note, not a failure."""
    karpenter, notes = discover(connection.api)
    objects: list[dict] = []
    for resource in (*BUILTIN, *karpenter):
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
