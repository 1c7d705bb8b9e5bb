"""Following the Karpenter controller's log on a live cluster.

Karpenter runs two replicas; only the leader (holder of the
``karpenter-leader-election`` Lease) acts, so only its log is worth reading.
We find the controller pods by label in any namespace, follow the leader's
``controller`` container, switch when the lease moves, and pick up again after a
restart or a dropped connection, from where the last line left off.

Bounds (limits.py): each line is cut at MAX_LOG_LINE_BYTES and marked; one request
reads at most MAX_LOG_BYTES (asked of the server as ``limitBytes`` too); one follow
stays open LOG_FOLLOW_DEADLINE at most, then picks up from its last line.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Callable

import urllib3
from kubernetes import client
from kubernetes.client.rest import ApiException

from .. import limits
from ..errors import ClusterUnavailable
from .connect import TIMEOUT, Connection
from .guard import DeadlineExceeded, bounded, lines

LABEL = "app.kubernetes.io/name=karpenter"
LEASE = "karpenter-leader-election"
CONTAINER = "controller"
FOLLOW_READ_TIMEOUT = 60       # a quiet leader still logs now and then; reconnect after this
LEASE_POLL = 10.0


def karpenter_pods(api: client.ApiClient) -> list[dict]:
    """The controller pods, anywhere (raw JSON)."""
    with bounded("listing the Karpenter controller pods"):
        body = client.CoreV1Api(api).list_pod_for_all_namespaces(
            label_selector=LABEL, _preload_content=False, _request_timeout=TIMEOUT).data
    listing = json.loads(body)
    items = listing.get("items") if isinstance(listing, dict) else None
    return [p for p in items or [] if isinstance(p, dict) and isinstance(p.get("metadata"), dict)]


def leader(api: client.ApiClient, pods: list[dict]) -> dict | None:
    """The pod holding the leader lease (looked up in each namespace the pods run in);
    with no readable lease, the newest running pod."""
    running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"] or pods
    if not running:
        return None
    for namespace in dict.fromkeys(p["metadata"].get("namespace", "") for p in running):
        try:
            with bounded(f"reading the lease {namespace}/{LEASE}", max_bytes=limits.MAX_OBJECT_BYTES):
                body = client.CoordinationV1Api(api).read_namespaced_lease(
                    LEASE, namespace, _preload_content=False, _request_timeout=TIMEOUT).data
            holder = (json.loads(body).get("spec") or {}).get("holderIdentity") or ""
        except (ApiException, ValueError, AttributeError):
            continue
        for pod in running:
            meta = pod["metadata"]
            if meta.get("namespace") == namespace and holder and \
                    (holder == meta.get("name") or holder.startswith(f"{meta.get('name')}_")):
                return pod
    return max(running, key=lambda p: p["metadata"].get("creationTimestamp", ""))


def container_of(pod: dict) -> str:
    names = [c.get("name", "") for c in (pod.get("spec") or {}).get("containers") or []]
    return CONTAINER if CONTAINER in names or not names else names[0]


def recent_log(api: client.ApiClient, since_seconds: int | None) -> tuple[str, str]:
    """(source, text) of the leader's log for ``snapshot save``; ("", "") with no Karpenter pods."""
    pods = karpenter_pods(api)
    pod = leader(api, pods)
    if pod is None:
        return "", ""
    meta = pod["metadata"]
    kwargs = {"container": container_of(pod), "limit_bytes": limits.MAX_LOG_BYTES,
              "_preload_content": False, "_request_timeout": TIMEOUT}
    if since_seconds:
        kwargs["since_seconds"] = int(since_seconds)
    what = f"reading the log of {meta['namespace']}/{meta['name']}"
    with bounded(what, max_bytes=None):  # capped below, keeping what came
        response = client.CoreV1Api(api).read_namespaced_pod_log(meta["name"], meta["namespace"], **kwargs)
        try:
            text = "\n".join(lines(_Capped(response, limits.MAX_LOG_BYTES), limits.MAX_LOG_LINE_BYTES, what,
                                   cut=True))
        finally:
            response.close()
            response.release_conn()
    return f"pod {meta['namespace']}/{meta['name']} container {kwargs['container']}", text


class _Capped:
    """A response that ends after ``cap`` bytes (the server should have stopped at limitBytes)."""

    def __init__(self, response, cap: int) -> None:
        self.response, self.left = response, cap

    def read1(self, amt: int) -> bytes:
        if self.left <= 0:
            return b""
        data = self.response.read1(min(amt, self.left))
        self.left -= len(data)
        return data


class KarpenterLogs:
    """Calls ``on_lines(lines)`` with each batch of the leader's new log lines, until stopped."""

    def __init__(self, connection: Connection, on_lines: Callable[[list[str]], None],
                 since_seconds: int | None = 600, on_note: Callable[[str], None] = lambda note: None,
                 lease_poll: float = LEASE_POLL, read_timeout: float = FOLLOW_READ_TIMEOUT) -> None:
        self.api = connection.api
        self.on_lines, self._on_note = on_lines, on_note
        self.note = ""
        self.since_seconds = since_seconds
        self.lease_poll, self.read_timeout = lease_poll, read_timeout
        self.following = ""          # namespace/name of the pod being followed
        self.switches = 0
        self._stop = threading.Event()
        self._response = None
        self._last_line_at: float | None = None
        self._recent: deque[str] = deque(maxlen=20)  # to drop the lines a reconnect repeats

    def on_note(self, note: str) -> None:
        """Say it once: a retry loop repeating the same trouble is not news."""
        if note != self.note:
            self.note = note
            self._on_note(note)

    def stop(self) -> None:
        self._stop.set()
        self._close()

    def _close(self) -> None:
        response = self._response
        if response is not None:
            try:
                response.shutdown() if hasattr(response, "shutdown") else response.close()
            except Exception:  # noqa: BLE001 - closing a stream that is already gone
                pass

    def run(self) -> None:
        """Blocking; meant for a thread (the TUI's worker)."""
        backoff = 1.0
        while not self._stop.is_set():
            try:
                pod = leader(self.api, karpenter_pods(self.api))
                if pod is None:
                    self.on_note("no Karpenter controller pods found (label app.kubernetes.io/name=karpenter)")
                    self._stop.wait(self.lease_poll)
                    continue
                self._follow(pod)
                backoff = 1.0
                self.note = ""
            except ApiException as exc:
                if exc.status == 403:
                    self.on_note("Karpenter logs: forbidden (RBAC: pods/log or leases)")
                    return
                backoff = self._retry(f"Karpenter logs: {exc.status} {exc.reason}", backoff)
            except (urllib3.exceptions.HTTPError, OSError, ValueError, KeyError, ClusterUnavailable) as exc:
                backoff = self._retry(f"Karpenter logs: {' '.join(str(exc).split())[:160]}", backoff)

    def _retry(self, note: str, backoff: float) -> float:
        if not self._stop.is_set():
            self.on_note(note + "; retrying")
        self._stop.wait(backoff)
        return min(30.0, backoff * 2)

    def _follow(self, pod: dict) -> None:
        meta = pod["metadata"]
        name, namespace = meta["name"], meta["namespace"]
        where = f"{namespace}/{name}"
        if where != self.following:
            if self.following:
                self.switches += 1
                self.on_note(f"Karpenter leader moved to {where}")
            self.following = where
        kwargs = {"container": container_of(pod), "follow": True, "limit_bytes": limits.MAX_LOG_BYTES,
                  "_preload_content": False, "_request_timeout": (TIMEOUT[0], self.read_timeout)}
        since = self.since_seconds if self._last_line_at is None else time.time() - self._last_line_at + 2
        if since:
            kwargs["since_seconds"] = max(1, int(since))  # the API takes whole seconds only
        what = f"following the log of {where}"
        with bounded(what, limits.LOG_FOLLOW_DEADLINE, None, stream=True):  # capped by _Capped and per line
            response = client.CoreV1Api(self.api).read_namespaced_pod_log(name, namespace, **kwargs)
        self._response = response
        watchdog = threading.Thread(target=self._watch_lease, args=(name, response), daemon=True)
        watchdog.start()
        try:
            batch: list[str] = []
            for line in lines(_Capped(response, limits.MAX_LOG_BYTES), limits.MAX_LOG_LINE_BYTES, what, cut=True):
                if self._stop.is_set():
                    return
                if line and line not in self._recent:
                    self._recent.append(line)
                    batch.append(line)
                    self._last_line_at = time.time()
                if batch:
                    self.on_lines(batch)
                    batch = []
        except DeadlineExceeded:
            return  # this follow's time is up: run() picks up again from the last line
        finally:
            self._response = None
            response.close()
            response.release_conn()

    def _watch_lease(self, name: str, response) -> None:
        """While following ``name``: if another pod takes the lease, end the stream so run() switches."""
        while not self._stop.wait(self.lease_poll) and self._response is response:
            try:
                current = leader(self.api, karpenter_pods(self.api))
            except (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError, ClusterUnavailable):
                continue
            if current is not None and current["metadata"]["name"] != name:
                self._close()
                return
