"""The live cluster as a stream of immutable Snapshots.

One informer per kind (Karpenter's discovered), all feeding one version counter;
``snapshot()`` assembles whatever the stores hold now. The TUI polls ``version``
and asks for a new Snapshot at most every so often, so a burst of watch events
becomes one redraw and the simulator always works on a frozen picture.
"""

from __future__ import annotations

import threading
from collections import defaultdict
from dataclasses import replace
from datetime import datetime, timezone

from ..model import Snapshot, SnapshotMeta
from ..model.build import KINDS, api_group, assemble
from .connect import Connection
from .informer import ABSENT, FORBIDDEN, Informer, wait_all
from .resources import BUILTIN, KARPENTER_CRD, Resource, discover


class LiveCluster:
    def __init__(self, connection: Connection, resources: list[Resource] | None = None,
                 karpenter_version: str | None = None,
                 karpenter_settings: tuple[dict[str, str], dict[str, str]] | None = None,
                 **informer_options) -> None:
        """``karpenter_version``: ``--karpenter-version``, set on every snapshot (checked already);
        ``karpenter_settings``: Karpenter's settings given as flags (``--preference-policy`` ...:
        setting -> value, and setting -> which flag set it; checked already), likewise."""
        self.connection = connection
        self.karpenter_version = karpenter_version
        self.karpenter_settings = karpenter_settings or ({}, {})
        self.notes: list[str] = []
        if resources is None:
            karpenter, self.notes = discover(connection.api)
            resources = [*BUILTIN, KARPENTER_CRD, *karpenter]
        self.version = 0
        self._lock = threading.Lock()
        self.informers = [Informer(r, r.lister(connection.api, connection.namespace), self._changed,
                                   **informer_options) for r in resources]

    def _changed(self) -> None:
        with self._lock:
            self.version += 1

    def start(self) -> LiveCluster:
        for informer in self.informers:
            informer.start()
        return self

    def wait_synced(self, timeout: float) -> bool:
        """Every kind listed once (or known forbidden / absent) within ``timeout`` seconds."""
        return wait_all(self.informers, timeout)

    def stop(self) -> None:
        for informer in self.informers:
            informer.stop()
        for informer in self.informers:
            informer.join(2)

    def status(self) -> list[str]:
        """What an operator should know about the picture: kinds we may not see, retries, -n."""
        notes = list(self.notes)
        if self.connection.namespace:
            notes.append(f"namespaced objects only from {self.connection.namespace} (-n); nodes show only "
                         "those pods' requests")
        for informer in self.informers:
            slow = informer.slow()
            if slow:
                notes.append(slow)
            if informer.note:
                notes.append(informer.note)
            bad = informer.counts["malformed"] + informer.counts["skipped"]
            if bad:
                notes.append(f"{informer.resource.name}: {bad} malformed event(s) or object(s) skipped")
        return notes

    def slow(self) -> str:
        """The request taking longest right now, if any takes long ("listing pods: 12 s so far")."""
        slow = [i for i in self.informers if i.slow()]
        return min(slow, key=lambda i: i.listing_since or 0.0).slow() if slow else ""

    def progress(self) -> str:
        """How far the first list has got, while it is under way: ``synced 12,000/50,000 pods…``
        (the kind with most to read; its total as the server counts it, when it says), else ""."""
        listing = [(i, p) for i in self.informers if (p := i.progress()) is not None]
        if not listing:
            return ""
        informer, (read, expected) = max(listing, key=lambda ip: ip[1][1] or ip[1][0])
        of = f"/{expected:,}" if expected is not None else ""
        return f"synced {read:,}{of} {informer.resource.name}…"

    def unavailable(self) -> set[str]:
        """Kinds (``Pod``, ``NodePool``, ...) that are forbidden or absent: panes say so."""
        return {i.resource.kind for i in self.informers if i.state in (FORBIDDEN, ABSENT)}

    def manifest(self, kind: str, namespace: str, name: str) -> dict | None:
        """The object as the API server has it now (``y`` on a pod: the model keeps no pod
        manifests); None when karptui does not read that kind. Raises the client's errors."""
        resource = next((i.resource for i in self.informers if i.resource.kind == kind), None)
        if resource is None:
            return None
        return resource.read(self.connection.api, namespace, name)

    def snapshot(self) -> Snapshot:
        fields: dict[str, list] = defaultdict(list)
        for informer in self.informers:
            entry = KINDS.get((api_group(informer.resource.api_version), informer.resource.kind))
            if entry is not None:
                fields[entry[0]].extend(informer.values())
        meta = SnapshotMeta(source=f"live {self.connection.context}", name=self.connection.context,
                            captured_at=datetime.now(timezone.utc), context=self.connection.context,
                            cluster=self.connection.server, kubernetes_version=self.connection.version)
        snapshot = assemble(fields, meta, warnings=self.status())
        if self.karpenter_version:
            snapshot = replace(snapshot, karpenter_version=self.karpenter_version,
                               karpenter_version_set_by="--karpenter-version")
        if self.karpenter_settings[0]:
            snapshot = replace(snapshot, karpenter_settings=dict(self.karpenter_settings[0]),
                               karpenter_settings_set_by=dict(self.karpenter_settings[1]))
        return snapshot
