"""Following the Karpenter controller's log on a live cluster.

Karpenter runs two replicas; only the leader (holder of the
``karpenter-leader-election`` Lease) acts, so only its log is worth reading.
We find the controller pods by label in any namespace, follow the leader's
``controller`` container, switch when the lease moves, and pick up again after a
restart or a dropped connection, from where the last line left off.
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
from kubernetes.watch.watch import iter_resp_lines

from .connect import TIMEOUT, Connection

LABEL = "app.kubernetes.io/name=karpenter"
LEASE = "karpenter-leader-election"
CONTAINER = "controller"
FOLLOW_READ_TIMEOUT = 60       # a quiet leader still logs now and then; reconnect after this
LEASE_POLL = 10.0


def karpenter_pods(api: client.ApiClient) -> list[dict]:
    """The controller pods, anywhere (raw JSON)."""
    response = client.CoreV1Api(api).list_pod_for_all_namespaces(
        label_selector=LABEL, _preload_content=False, _request_timeout=TIMEOUT)
    return [p for p in json.loads(response.data).get("items") or [] if isinstance(p, dict)]


def leader(api: client.ApiClient, pods: list[dict]) -> dict | None:
    """The pod holding the leader lease (looked up in each namespace the pods run in);
    with no readable lease, the newest running pod."""
    running = [p for p in pods if (p.get("status") or {}).get("phase") == "Running"] or pods
    if not running:
        return None
    for namespace in dict.fromkeys(p["metadata"].get("namespace", "") for p in running):
        try:
            response = client.CoordinationV1Api(api).read_namespaced_lease(
                LEASE, namespace, _preload_content=False, _request_timeout=TIMEOUT)
            holder = (json.loads(response.data).get("spec") or {}).get("holderIdentity") or ""
        except ApiException:
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
    kwargs = {"container": container_of(pod), "_preload_content": False, "_request_timeout": TIMEOUT}
    if since_seconds:
        kwargs["since_seconds"] = int(since_seconds)
    response = client.CoreV1Api(api).read_namespaced_pod_log(meta["name"], meta["namespace"], **kwargs)
    return f"pod {meta['namespace']}/{meta['name']} container {kwargs['container']}", \
        response.data.decode("utf-8", "replace")


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
            except (urllib3.exceptions.HTTPError, OSError, ValueError, KeyError) as exc:
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
        kwargs = {"container": container_of(pod), "follow": True, "_preload_content": False,
                  "_request_timeout": (TIMEOUT[0], self.read_timeout)}
        since = self.since_seconds if self._last_line_at is None else time.time() - self._last_line_at + 2
        if since:
            kwargs["since_seconds"] = max(1, int(since))  # the API takes whole seconds only
        response = client.CoreV1Api(self.api).read_namespaced_pod_log(name, namespace, **kwargs)
        self._response = response
        watchdog = threading.Thread(target=self._watch_lease, args=(name, response), daemon=True)
        watchdog.start()
        try:
            batch: list[str] = []
            for line in iter_resp_lines(response):
                if self._stop.is_set():
                    return
                if line and line not in self._recent:
                    self._recent.append(line)
                    batch.append(line)
                    self._last_line_at = time.time()
                if batch:
                    self.on_lines(batch)
                    batch = []
        finally:
            self._response = None
            response.close()
            response.release_conn()

    def _watch_lease(self, name: str, response) -> None:
        """While following ``name``: if another pod takes the lease, end the stream so run() switches."""
        while not self._stop.wait(self.lease_poll) and self._response is response:
            try:
                current = leader(self.api, karpenter_pods(self.api))
            except (ApiException, urllib3.exceptions.HTTPError, OSError, ValueError):
                continue
            if current is not None and current["metadata"]["name"] != name:
                self._close()
                return
