"""A small in-process fake Kubernetes API server for tests (stdlib only, plus pyyaml).

It exists so the live-cluster code can be tested through the *real* ``kubernetes``
client, over real HTTP, including the awkward parts: paginated lists, expiring
continue tokens, watches that replay history, bookmarks, 410 Gone, dropped
connections, forbidden kinds and followed pod logs.

What it implements:

* Read-only GETs of the core, apps, policy, storage, coordination and (optionally)
  Karpenter resources, plus any resource registered with :meth:`FakeAPI.add_resource`:
  collection LIST (cluster, all-namespaces and namespaced paths) and single-object GET.
* Discovery: ``/api``, ``/api/v1``, ``/apis``, ``/apis/{group}/{version}``, ``/version``.
* LIST with ``limit``/``continue`` (opaque tokens, expirable; continued pages read the
  first page's picture, as the real server's consistent lists do), ``labelSelector``
  (``k=v``, ``k==v``, ``k!=v``, ``k``, ``!k``) and ``fieldSelector`` (``a.b.c=v`` or
  ``!=`` on any dotted path). Like the real server, items of built-in kinds come
  without ``apiVersion``/``kind``; custom resources keep theirs.
* WATCH: chunked newline-delimited JSON events, replay from ``resourceVersion`` out
  of a bounded per-collection history, 410 ERROR events for compacted versions,
  ``allowWatchBookmarks``, ``timeoutSeconds``, and injected faults
  (dropped connections, garbage lines).
* Pod logs with ``container``, ``follow``, ``tailLines``, ``sinceSeconds``, ``timestamps``.
* Faults per plural or path: 403 Forbidden, slow responses, failing the next request.
* Hostile servers per plural or path (:meth:`FakeAPI.hostile`): a slowloris that sends
  the whole response (status line, headers, body) a byte at a time; a body that never
  ends; a Content-Length of 10 GiB (both paced, so a client that does not stop them
  fails a test rather than exhausting memory); a garbage body. With the default
  filling an endless body is also an endless line (no newline, ever): a watch event
  or a log line.
* ``/version`` and discovery documents as a server may really send them:
  :meth:`FakeAPI.set_version` (any dict, or raw bytes such as non-UTF-8) and
  ``minimal_discovery`` (resources without ``singularName``, ``verbs`` and the other
  optional fields).
* Every request is recorded; any non-GET method is answered 405.

What it does not do: TLS, authentication checks (tokens are only recorded),
writes through HTTP, server-side apply, protobuf or Table output, set-based
selectors, ``resourceVersion`` on LIST (always the latest state),
``resourceVersionMatch``/``sendInitialEvents``, and the "object stopped matching
the selector" DELETED events a real watch sends.
"""

from __future__ import annotations

import base64
import datetime as dt
import json
import queue
import socket
import threading
import time
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

import yaml

__all__ = ["FakeAPI", "Resource"]


@dataclass(frozen=True)
class Resource:
    """One served resource type; ``path`` (its cluster-wide collection URL) is its store key."""

    group: str
    version: str
    plural: str
    kind: str
    namespaced: bool
    builtin: bool = True

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def prefix(self) -> str:
        return f"/apis/{self.group}/{self.version}" if self.group else f"/api/{self.version}"

    @property
    def path(self) -> str:
        return f"{self.prefix}/{self.plural}"


_DEFAULT_RESOURCES = [
    ("", "v1", "nodes", "Node", False),
    ("", "v1", "pods", "Pod", True),
    ("", "v1", "events", "Event", True),
    ("", "v1", "persistentvolumes", "PersistentVolume", False),
    ("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    ("", "v1", "podtemplates", "PodTemplate", True),
    ("", "v1", "namespaces", "Namespace", False),
    ("apps", "v1", "deployments", "Deployment", True),
    ("apps", "v1", "replicasets", "ReplicaSet", True),
    ("apps", "v1", "statefulsets", "StatefulSet", True),
    ("apps", "v1", "daemonsets", "DaemonSet", True),
    ("batch", "v1", "jobs", "Job", True),
    ("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    ("storage.k8s.io", "v1", "storageclasses", "StorageClass", False),
    ("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    ("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
    ("coordination.k8s.io", "v1", "leases", "Lease", True),
    ("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False),
]

_KARPENTER_RESOURCES = [
    ("karpenter.sh", "v1", "nodepools", "NodePool", False),
    ("karpenter.sh", "v1", "nodeclaims", "NodeClaim", False),
    ("karpenter.k8s.aws", "v1", "ec2nodeclasses", "EC2NodeClass", False),
]

_REASONS = {400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound",
            405: "MethodNotAllowed", 409: "Conflict", 410: "Expired", 429: "TooManyRequests",
            500: "InternalError", 503: "ServiceUnavailable", 504: "Timeout"}


# The client's VersionInfo model refuses to deserialize without every one of these.
_VERSION = {"major": "1", "minor": "30", "gitVersion": "v1.30.0", "gitCommit": "0" * 40,
            "gitTreeState": "clean", "buildDate": "2024-04-17T17:27:00Z", "goVersion": "go1.22.2",
            "compiler": "gc", "platform": "linux/amd64"}


GIB_10 = 10 << 30


@dataclass
class _Hostile:
    """How requests for one plural or path misbehave; see :meth:`FakeAPI.hostile`."""

    mode: str
    watch: bool | None
    times: int | None
    interval: float
    chunk: int
    prefix: bytes
    fill: bytes
    status: int = 200
    headers: dict = None  # type: ignore[assignment]


class _Trickle:
    """A handler's ``wfile`` that sends everything one byte at a time (a slowloris)."""

    def __init__(self, wfile, interval: float, stopping: threading.Event):
        self.wfile, self.interval, self.stopping = wfile, interval, stopping

    def write(self, data: bytes) -> int:
        for i in range(len(data)):
            if self.stopping.is_set():
                raise ConnectionAbortedError("the fake API server is stopping")
            self.wfile.write(data[i:i + 1])
            self.stopping.wait(self.interval)
        return len(data)

    def flush(self) -> None:
        self.wfile.flush()

    def __getattr__(self, name):  # closed, close, ...: the real file's
        return getattr(self.wfile, name)


def status_body(code: int, message: str, reason: str | None = None) -> dict:
    """A ``metav1.Status`` failure, the body every Kubernetes error carries."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure",
            "message": message, "reason": reason or _REASONS.get(code, "Unknown"), "code": code}


def _flag(query: dict, name: str) -> bool:
    """A boolean query parameter as Go's strconv.ParseBool reads it (the client sends ``True``)."""
    return query.get(name) in ("1", "t", "T", "true", "True", "TRUE")


def _dumps(obj) -> bytes:
    return json.dumps(obj, separators=(",", ":")).encode()


def _copy(obj):
    """Deep copy through JSON, so stored objects never alias the caller's dicts."""
    return json.loads(json.dumps(obj))


def _parse_selector(text: str) -> list[tuple[str, str, str]]:
    """``a=b,c!=d,e,!f`` as (key, op, value) requirements; set-based syntax is rejected."""
    reqs = []
    for part in (p.strip() for p in text.split(",")):
        if not part:
            continue
        if "(" in part or " in " in part or " notin " in part:
            raise ValueError(f"unsupported selector {part!r}")
        for op in ("!=", "==", "="):
            if op in part:
                key, value = part.split(op, 1)
                reqs.append((key.strip(), "!=" if op == "!=" else "=", value.strip()))
                break
        else:
            reqs.append((part.lstrip("!").strip(), "!" if part.startswith("!") else "exists", ""))
    return reqs


def _field(obj: dict, dotted: str):
    cur = obj
    for key in dotted.split("."):
        if not isinstance(cur, dict) or key not in cur:
            return None
        cur = cur[key]
    return cur


def _matches(reqs, lookup) -> bool:
    for key, op, value in reqs:
        got = lookup(key)
        if op == "exists" and got is None or op == "!" and got is not None:
            return False
        if op == "=" and (got is None or str(got) != value):
            return False
        if op == "!=" and got is not None and str(got) == value:
            return False
    return True


class _Filter:
    """Namespace + label + field selection, shared by LIST and WATCH."""

    def __init__(self, namespace: str | None, query: dict):
        self.namespace = namespace
        self.labels = _parse_selector(query.get("labelSelector", ""))
        fields = _parse_selector(query.get("fieldSelector", ""))
        # An empty field value means "unset" (spec.nodeName= selects unscheduled pods).
        self.fields = [(k, "!" if op == "=" and v == "" else op, v) for k, op, v in fields]

    def __call__(self, obj: dict) -> bool:
        meta = obj.get("metadata", {})
        if self.namespace is not None and meta.get("namespace") != self.namespace:
            return False
        labels = meta.get("labels") or {}
        return _matches(self.labels, labels.get) and _matches(self.fields, lambda k: _field(obj, k))


class _Sub:
    """An open watch or log follower: the handler thread drains ``q``."""

    def __init__(self, key, want=None, bookmarks: bool = False):
        self.key = key
        self.want = want
        self.bookmarks = bookmarks
        self.q: queue.Queue = queue.Queue()


@dataclass
class _Route:
    resource: Resource
    namespace: str | None
    name: str | None
    sub: str | None


class _Done(Exception):
    """Raised inside a handler once a response has been fully sent."""


class _Handler(BaseHTTPRequestHandler):
    """Thin HTTP layer: all behaviour lives in :meth:`FakeAPI._serve`."""

    protocol_version = "HTTP/1.1"
    server_version = "fakeapi/1"

    def log_message(self, *args):  # keep pytest output clean
        pass

    def setup(self):
        super().setup()
        self.server.fake._connections_add(self.connection)

    def finish(self):
        try:
            super().finish()
        except OSError:
            pass
        finally:
            self.server.fake._connections_remove(self.connection)

    def handle(self):
        try:
            super().handle()
        except ConnectionError:  # a client that hung up (one that gave up on a hostile answer, say)
            self.close_connection = True

    def do_GET(self):
        self.server.fake._serve(self)

    do_POST = do_PUT = do_PATCH = do_DELETE = do_HEAD = do_OPTIONS = do_GET

    # -- response helpers --------------------------------------------------

    def send_body(self, code: int, body: bytes, content_type: str = "application/json"):
        self.send_response(code)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def send_json(self, code: int, obj):
        self.send_body(code, _dumps(obj))

    def send_status(self, code: int, message: str, reason: str | None = None):
        self.send_json(code, status_body(code, message, reason))

    def start_stream(self, content_type: str):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache, private")
        self.end_headers()

    def chunk(self, data: bytes):
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def end_stream(self):
        """Clean end: the terminating zero-length chunk, connection stays usable."""
        self.wfile.write(b"0\r\n\r\n")

    def abort(self):
        """Abrupt end: no terminating chunk, the socket just goes away."""
        self.close_connection = True
        try:
            self.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass


class FakeAPI:
    """A fake kube-apiserver on 127.0.0.1; see the module docstring for its scope."""

    def __init__(self, *, karpenter: bool = True, bookmark_interval: float = 1.0,
                 history_size: int = 1000, start_rv: int = 1000, user: str = "fake"):
        self.bookmark_interval = bookmark_interval
        self.history_size = history_size
        self.user = user
        self.requests: list[tuple[str, str, dict]] = []
        self.request_headers: list[dict] = []  # parallel to ``requests``, lower-cased names
        self._lock = threading.RLock()
        self._rv = start_rv
        self._resources: dict[tuple[str, str, str], Resource] = {}
        self._by_kind: dict[tuple[str, str], Resource] = {}
        self._objects: dict[str, dict[tuple, dict]] = {}
        self._history: dict[str, list[tuple[int, bytes, dict]]] = {}
        self._floor: dict[str, int] = {}
        self._watchers: list[_Sub] = []
        self._followers: list[_Sub] = []
        self._logs: dict[tuple[str, str, str], list[tuple[dt.datetime, str]]] = {}
        self._token_generation = 0
        self._forbidden: set[str] = set()
        self._slow: dict[str, float] = {}
        self._failures: dict[str, list[int]] = {}
        self._hostile: dict[str, _Hostile] = {}
        self._version: dict | bytes = dict(_VERSION)
        self.minimal_discovery = False
        self._listings: dict[str, tuple[list, str]] = {}  # continue token -> the first page's picture
        self._connections: set[socket.socket] = set()
        self._stopping = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        for spec in _DEFAULT_RESOURCES:
            self.add_resource(*spec, builtin=True)
        if karpenter:
            for spec in _KARPENTER_RESOURCES:
                self.add_resource(*spec)

    # -- lifecycle ---------------------------------------------------------

    def start(self) -> "FakeAPI":
        server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
        server.daemon_threads = True
        server.fake = self
        self._server = server
        self._stopping.clear()
        self._thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05},
                                        name="fakeapi", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Cut every stream and connection, then shut down; returns well within a second."""
        if self._server is None:
            return
        self._stopping.set()
        self.drop_watches()
        self._server.shutdown()
        self._server.server_close()
        with self._lock:
            conns = list(self._connections)
        for conn in conns:
            try:
                conn.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(timeout=1)
        self._server = None

    def __enter__(self) -> "FakeAPI":
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host}:{port}"

    def kubeconfig(self, path, context: str = "fake", namespace: str | None = None,
                   token: str = "t0k3n", exec_command: list[str] | None = None) -> str:
        """Write a kubeconfig pointing at this server; bearer token or exec credential plugin."""
        if exec_command:
            user = {"exec": {"apiVersion": "client.authentication.k8s.io/v1beta1",
                             "command": exec_command[0], "args": list(exec_command[1:]),
                             "interactiveMode": "Never"}}
        else:
            user = {"token": token}
        ctx = {"cluster": context, "user": context}
        if namespace:
            ctx["namespace"] = namespace
        config = {"apiVersion": "v1", "kind": "Config", "preferences": {},
                  "clusters": [{"name": context, "cluster": {"server": self.url}}],
                  "users": [{"name": context, "user": user}],
                  "contexts": [{"name": context, "context": ctx}],
                  "current-context": context}
        path = Path(path)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(yaml.safe_dump(config, sort_keys=False))
        return str(path)

    # -- resources and objects ---------------------------------------------

    def add_resource(self, group: str, version: str, plural: str, kind: str,
                     namespaced: bool = False, *, builtin: bool = False) -> Resource:
        """Serve another resource type (a CRD unless ``builtin``)."""
        res = Resource(group, version, plural, kind, namespaced, builtin)
        with self._lock:
            self._resources[(group, version, plural)] = res
            self._by_kind[(res.api_version, kind)] = res
            self._objects.setdefault(res.path, {})
            self._history.setdefault(res.path, [])
            self._floor.setdefault(res.path, self._rv)
        return res

    @property
    def resource_version(self) -> str:
        """The latest resourceVersion handed out (what a LIST right now would report)."""
        return str(self._rv)

    def add(self, obj: dict) -> dict:
        """Create ``obj`` (ADDED); fills in uid/creationTimestamp like the apiserver would."""
        return self._write("ADDED", obj)

    def modify(self, obj: dict) -> dict:
        """Replace an existing object (MODIFIED)."""
        return self._write("MODIFIED", obj)

    def delete(self, obj: dict) -> dict:
        """Remove an object (DELETED); also ends log follows of a deleted pod."""
        return self._write("DELETED", obj)

    def get(self, obj: dict) -> dict | None:
        """The stored copy of ``obj`` (matched by apiVersion, kind, namespace, name)."""
        res, key = self._locate(obj)
        with self._lock:
            stored = self._objects[res.path].get(key)
            return _copy(stored) if stored else None

    def _locate(self, obj: dict) -> tuple[Resource, tuple]:
        res = self._by_kind.get((obj.get("apiVersion"), obj.get("kind")))
        if res is None:
            raise KeyError(f"no resource registered for {obj.get('apiVersion')} {obj.get('kind')}")
        meta = obj.get("metadata") or {}
        ns = meta.get("namespace") if res.namespaced else None
        if res.namespaced and not ns:
            raise ValueError(f"{res.kind} {meta.get('name')!r} needs metadata.namespace")
        return res, (ns, meta["name"])

    def _write(self, kind: str, obj: dict) -> dict:
        res, key = self._locate(obj)
        with self._lock:
            store = self._objects[res.path]
            exists = key in store
            if kind == "ADDED" and exists:
                raise ValueError(f"{res.kind} {key} already exists; use modify()")
            if kind != "ADDED" and not exists:
                raise KeyError(f"{res.kind} {key} does not exist")
            obj = _copy(obj if kind != "DELETED" else store[key])
            meta = obj.setdefault("metadata", {})
            if kind == "ADDED":
                meta.setdefault("uid", str(uuid.uuid4()))
                meta.setdefault("creationTimestamp",
                                dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"))
            self._rv += 1
            meta["resourceVersion"] = str(self._rv)
            if kind == "DELETED":
                del store[key]
            else:
                store[key] = obj
            self._emit(res, kind, obj)
            if kind == "DELETED" and res.path == "/api/v1/pods":
                for sub in self._followers:
                    if sub.key[:2] == key:
                        sub.q.put(("end",))
            return _copy(obj)

    def _emit(self, res: Resource, kind: str, obj: dict) -> None:
        """Record the event in history and hand it to every matching open watch (lock held)."""
        line = _dumps({"type": kind, "object": obj}) + b"\n"
        history = self._history[res.path]
        history.append((self._rv, line, obj))
        while len(history) > self.history_size:
            self._floor[res.path] = history.pop(0)[0]
        for sub in self._watchers:
            if sub.key == res.path and sub.want(obj):
                sub.q.put(("data", line))

    def compact(self, rv: int | str | None = None) -> None:
        """Forget watch history up to ``rv`` (default: everything); older watches get 410."""
        with self._lock:
            rv = self._rv if rv is None else int(rv)
            for path, history in self._history.items():
                history[:] = [h for h in history if h[0] > rv]
                self._floor[path] = max(self._floor[path], rv)

    # -- fault injection ---------------------------------------------------

    def forbid(self, what: str) -> None:
        """Answer 403 for a plural (``"pods"``) or a path (``"/api/v1/namespaces/a/pods"``)."""
        with self._lock:
            self._forbidden.add(what)

    def slow(self, what: str, seconds: float) -> None:
        """Delay every response for ``what`` by ``seconds``."""
        with self._lock:
            self._slow[what] = seconds

    def fail_next(self, what: str, status: int = 500, times: int = 1) -> None:
        """Fail the next ``times`` requests for ``what`` with ``status``."""
        with self._lock:
            self._failures.setdefault(what, []).extend([status] * times)

    def hostile(self, what: str, mode: str, *, watch: bool | None = None, times: int | None = None,
                interval: float = 0.05, chunk: int = 16 << 10, prefix: bytes = b'{"kind":"List","items":[',
                fill: bytes = b'{"metadata":{"name":"x"}},', status: int = 200,
                headers: dict[str, str] | None = None) -> None:
        """Answer requests for ``what`` (a plural such as ``"pods"``, or a path such as
        ``"/version"``) like a hostile or broken server, ``mode`` being one of:

        * ``"slowloris"``: the normal response, every byte of it, one byte each ``interval`` s;
        * ``"endless"``: 200, then a chunked body that never ends: ``prefix``, then ``fill``
          over and over, ``chunk`` bytes each ``interval`` s (no newline in the default fill);
        * ``"huge"``: 200 with ``Content-Length: 10 GiB``, then the same filling at the same pace;
        * ``"garbage"``: 200 and ``prefix`` as the whole body (an HTML error page, non-UTF-8 bytes).

        ``watch`` limits it to watches (True) or to other requests (False); ``times`` to the
        next so many requests; ``status`` is the endless and huge modes' status code;
        ``headers`` go with the garbage mode's body (``Content-Encoding: gzip``, say). The endless modes last until the client hangs up or the
        server stops.
        """
        if mode not in ("slowloris", "endless", "huge", "garbage"):
            raise ValueError(f"unknown hostile mode {mode!r}")
        with self._lock:
            self._hostile[what] = _Hostile(mode, watch, times, interval, chunk, prefix, fill, status,
                                           dict(headers or {}))

    def set_version(self, body: dict | bytes) -> None:
        """What ``/version`` answers: a JSON document, or raw bytes (non-UTF-8, say)."""
        with self._lock:
            self._version = body

    def clear_faults(self) -> None:
        with self._lock:
            self._forbidden.clear()
            self._slow.clear()
            self._failures.clear()
            self._hostile.clear()

    def expire_continue_tokens(self) -> None:
        """Every continue token handed out so far now answers 410 Expired."""
        with self._lock:
            self._token_generation += 1

    def bookmark_now(self) -> None:
        """Send a BOOKMARK to every open watch that asked for bookmarks."""
        with self._lock:
            for sub in self._watchers:
                if sub.bookmarks:
                    self._queue_bookmark(sub)

    def drop_watches(self) -> None:
        """Cut every open watch and log follow mid-stream, without a terminating chunk."""
        with self._lock:
            for sub in self._watchers + self._followers:
                sub.q.put(("drop",))

    def send_garbage(self, line: bytes = b"this is not json") -> None:
        """Write a non-JSON line into every open watch."""
        with self._lock:
            for sub in self._watchers:
                sub.q.put(("data", line + b"\n"))

    @property
    def open_streams(self) -> int:
        """How many watches and log follows are currently connected."""
        with self._lock:
            return len(self._watchers) + len(self._followers)

    def wait_for_streams(self, count: int = 1, timeout: float = 60.0) -> None:
        """Block until ``count`` streams are open, so a test can act knowing the client listens."""
        deadline = time.monotonic() + timeout
        while self.open_streams < count:
            if time.monotonic() > deadline:
                raise TimeoutError(f"only {self.open_streams} of {count} streams opened")
            time.sleep(0.01)

    def wait_for_no_streams(self, timeout: float = 60.0) -> None:
        """Block until every stream has closed: a stream cut a moment ago is still listed until its
        handler thread ends, and on a busy machine a test's next wait_for_streams would count it."""
        deadline = time.monotonic() + timeout
        while self.open_streams:
            if time.monotonic() > deadline:
                raise TimeoutError(f"{self.open_streams} stream(s) still open")
            time.sleep(0.01)

    def _queue_bookmark(self, sub: _Sub) -> None:
        # Queued under the lock, so the bookmark's version never overtakes an event still queued.
        res = self._resource_by_path(sub.key)
        event = {"type": "BOOKMARK", "object": {"kind": res.kind, "apiVersion": res.api_version,
                                                "metadata": {"resourceVersion": str(self._rv)}}}
        sub.q.put(("data", _dumps(event) + b"\n"))

    def _resource_by_path(self, path: str) -> Resource:
        return next(r for r in self._resources.values() if r.path == path)

    # -- pod logs ------------------------------------------------------------

    def append_log(self, namespace: str, pod: str, container: str, line: str,
                   ts: dt.datetime | None = None) -> None:
        """Append one log line (no trailing newline) and push it to followers."""
        ts = ts or dt.datetime.now(dt.timezone.utc)
        with self._lock:
            self._logs.setdefault((namespace, pod, container), []).append((ts, line))
            for sub in self._followers:
                if sub.key == (namespace, pod, container):
                    sub.q.put(("line", ts, line))

    def end_log(self, namespace: str, pod: str, container: str) -> None:
        """End follow streams of a container cleanly (as when it exits)."""
        with self._lock:
            for sub in self._followers:
                if sub.key == (namespace, pod, container):
                    sub.q.put(("end",))

    # -- HTTP ------------------------------------------------------------------

    def _connections_add(self, conn):
        with self._lock:
            self._connections.add(conn)

    def _connections_remove(self, conn):
        with self._lock:
            self._connections.discard(conn)

    def _serve(self, h: _Handler) -> None:
        parts = urlsplit(h.path)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        with self._lock:
            self.requests.append((h.command, parts.path, query))
            self.request_headers.append({k.lower(): v for k, v in h.headers.items()})
        if h.command != "GET":
            if int(h.headers.get("Content-Length") or 0):
                h.rfile.read(int(h.headers["Content-Length"]))
            h.send_status(405, f"the fake API server is read-only; {h.command} is not allowed")
            return
        try:
            self._dispatch(h, parts.path, query)
        except _Done:
            pass
        except (BrokenPipeError, ConnectionError):
            h.close_connection = True
        except ValueError as exc:
            h.send_status(400, str(exc))

    def _dispatch(self, h: _Handler, path: str, query: dict) -> None:
        segs = [s for s in path.split("/") if s]
        with self._lock:  # discovery and /version fail on request too (an expired token answers 401 here first)
            key = next((k for k in (path, path.rstrip("/")) if self._failures.get(k)), None)
            failure = self._failures[key].pop(0) if key else None
        if failure is not None:
            return h.send_status(failure, f"injected failure {failure} for {path}")
        self._misbehave(h, {path, path.rstrip("/")}, query)
        if segs == ["version"]:
            with self._lock:
                version = self._version
            return h.send_body(200, version) if isinstance(version, bytes) else h.send_json(200, version)
        if segs == ["api"]:
            host, port = self._server.server_address[:2]
            return h.send_json(200, {"kind": "APIVersions", "versions": ["v1"],
                                     "serverAddressByClientCIDRs": [
                                         {"clientCIDR": "0.0.0.0/0", "serverAddress": f"{host}:{port}"}]})
        if segs == ["apis"]:
            return h.send_json(200, self._group_list())
        if len(segs) >= 2 and segs[0] == "api":
            group, version, rest = "", segs[1], segs[2:]
        elif len(segs) >= 3 and segs[0] == "apis":
            group, version, rest = segs[1], segs[2], segs[3:]
        else:
            return self._not_found(h)
        with self._lock:
            served = [r for r in self._resources.values() if (r.group, r.version) == (group, version)]
        if not served:
            return self._not_found(h)
        if not rest:
            return h.send_json(200, self._resource_list(group, version, served))
        route = self._route(group, version, rest)
        if route is None:
            return self._not_found(h)
        self._apply_faults(h, path, route, query)
        if route.sub == "log":
            return self._serve_log(h, route, query)
        if route.sub is not None:
            return self._not_found(h)
        if route.name is not None:
            return self._serve_get(h, route)
        if _flag(query, "watch"):
            return self._serve_watch(h, route, query)
        return self._serve_list(h, route, query)

    def _route(self, group: str, version: str, rest: list[str]) -> _Route | None:
        namespace = None
        if rest[0] == "namespaces" and len(rest) >= 3:
            namespace, rest = rest[1], rest[2:]
        res = self._resources.get((group, version, rest[0]))
        if res is None or len(rest) > 3 or (namespace is not None and not res.namespaced):
            return None
        name = rest[1] if len(rest) > 1 else None
        sub = rest[2] if len(rest) > 2 else None
        if name is not None and res.namespaced and namespace is None:
            return None
        if sub == "log" and res.path != "/api/v1/pods":
            return None
        return _Route(res, namespace, name, sub)

    def _not_found(self, h: _Handler) -> None:
        h.send_status(404, "the server could not find the requested resource")

    def _group_list(self) -> dict:
        groups: dict[str, list[str]] = {}
        with self._lock:
            for res in self._resources.values():
                if res.group and res.version not in groups.setdefault(res.group, []):
                    groups[res.group].append(res.version)
        return {"kind": "APIGroupList", "apiVersion": "v1", "groups": [
            {"name": g, "versions": [{"groupVersion": f"{g}/{v}", "version": v} for v in vs],
             "preferredVersion": {"groupVersion": f"{g}/{vs[0]}", "version": vs[0]}}
            for g, vs in groups.items()]}

    def _resource_list(self, group: str, version: str, served: list[Resource]) -> dict:
        resources = []
        for res in served:
            if self.minimal_discovery:  # only what every server sends
                resources.append({"name": res.plural, "namespaced": res.namespaced, "kind": res.kind})
                continue
            resources.append({"name": res.plural, "singularName": res.kind.lower(),
                              "namespaced": res.namespaced, "kind": res.kind,
                              "verbs": ["get", "list", "watch"]})
            if res.path == "/api/v1/pods":
                resources.append({"name": "pods/log", "singularName": "", "namespaced": True,
                                  "kind": "Pod", "verbs": ["get"]})
        return {"kind": "APIResourceList", "apiVersion": "v1",
                "groupVersion": f"{group}/{version}" if group else version, "resources": resources}

    def _misbehave(self, h: _Handler, keys: set[str], query: dict) -> None:
        """Act out a hostile mode registered for one of ``keys``: a slowloris swaps the
        handler's output for a trickle and lets the request go on; the endless modes send
        their body here, until the client hangs up or the server stops (raises _Done)."""
        if getattr(h, "misbehaved", None) is h.requestline:  # acted out already (path, then route)
            return
        watching = _flag(query, "watch")
        with self._lock:
            key = next((k for k in keys if k in self._hostile and self._hostile[k].watch in (None, watching)), None)
            if key is None:
                return
            spec = self._hostile[key]
            if spec.times is not None:
                spec.times -= 1
                if spec.times <= 0:
                    del self._hostile[key]
        h.misbehaved = h.requestline
        h.close_connection = True  # the next request on this connection gets a well-behaved one
        if spec.mode == "slowloris":
            h.wfile = _Trickle(h.wfile, spec.interval, self._stopping)
            return
        if spec.mode == "garbage":
            h.send_response(200)
            for name, value in {"Content-Type": "application/json", **spec.headers}.items():
                h.send_header(name, value)
            h.send_header("Content-Length", str(len(spec.prefix)))
            h.end_headers()
            h.wfile.write(spec.prefix)
            raise _Done
        h.send_response(spec.status)
        h.send_header("Content-Type", "application/json")
        if spec.mode == "huge":
            h.send_header("Content-Length", str(GIB_10))
        else:
            h.send_header("Transfer-Encoding", "chunked")
        h.end_headers()
        filling = spec.fill * max(1, spec.chunk // max(1, len(spec.fill)))
        send = h.wfile.write if spec.mode == "huge" else h.chunk
        try:
            if spec.prefix:  # an empty chunk would end the body
                send(spec.prefix)
            while not self._stopping.wait(spec.interval):
                send(filling)
        except OSError:  # the client hung up: what a client should do
            pass
        raise _Done

    def _fault_keys(self, path: str, route: _Route) -> set[str]:
        return {route.resource.plural, route.resource.path, path}

    def _apply_faults(self, h: _Handler, path: str, route: _Route, query: dict) -> None:
        """Delay, fail or forbid as configured; raises _Done once an error was sent."""
        keys = self._fault_keys(path, route)
        with self._lock:
            delay = max((self._slow.get(k, 0) for k in keys), default=0)
        if delay:
            self._stopping.wait(delay)
        with self._lock:
            failure = next((self._failures[k].pop(0) for k in keys if self._failures.get(k)), None)
            forbidden = bool(keys & self._forbidden)
        if failure is not None:
            h.send_status(failure, f"injected failure {failure} for {path}")
            raise _Done
        self._misbehave(h, keys, query)
        if forbidden:
            res = route.resource
            verb = "get" if route.name else "watch" if _flag(query, "watch") else "list"
            what = res.plural + (f"/{route.sub}" if route.sub else "")
            subject = f'{res.plural} "{route.name}"' if route.name else res.plural
            scope = f'in the namespace "{route.namespace}"' if route.namespace else "at the cluster scope"
            h.send_status(403, f'{subject} is forbidden: User "{self.user}" cannot {verb} resource '
                               f'"{what}" in API group "{res.group}" {scope}')
            raise _Done

    def _serve_get(self, h: _Handler, route: _Route) -> None:
        res = route.resource
        with self._lock:
            obj = self._objects[res.path].get((route.namespace, route.name))
            body = _dumps(obj) if obj else None
        if body is None:
            return h.send_status(404, f'{res.plural}{"." + res.group if res.group else ""} '
                                      f'"{route.name}" not found')
        h.send_body(200, body)

    def _serve_list(self, h: _Handler, route: _Route, query: dict) -> None:
        res = route.resource
        want = _Filter(route.namespace, query)
        offset = 0
        if query.get("continue"):
            try:
                token = json.loads(base64.urlsafe_b64decode(query["continue"]))
                offset, generation = int(token["offset"]), token["generation"]
            except (ValueError, KeyError, TypeError):
                return h.send_status(400, "continue key is not valid")
            if generation != self._token_generation:
                return h.send_status(410, "The provided continue parameter is too old to display a "
                                          "consistent list result. You can start a new list without "
                                          "the continue parameter.")
        limit = int(query.get("limit") or 0)
        listing = token.get("listing") if query.get("continue") else None
        with self._lock:
            # A continued list reads the same consistent picture as its first page, as the
            # real server's does (and the next page costs a slice, not a scan).
            kept = self._listings.get(listing) if listing else None
            if kept is None:
                matching = [o for o in self._objects[res.path].values() if want(o)]
                rv = str(self._rv)
            else:
                matching, rv = kept
            generation = self._token_generation
        page = matching[offset:offset + limit] if limit > 0 else matching[offset:]
        meta = {"resourceVersion": rv}
        remaining = len(matching) - offset - len(page)
        if limit > 0 and remaining > 0:
            if listing is None or kept is None:
                listing = uuid.uuid4().hex
                with self._lock:
                    self._listings[listing] = (matching, rv)
                    while len(self._listings) > 64:
                        self._listings.pop(next(iter(self._listings)))
            token = {"offset": offset + len(page), "rv": rv, "generation": generation, "listing": listing}
            meta["continue"] = base64.urlsafe_b64encode(json.dumps(token).encode()).decode()
            meta["remainingItemCount"] = remaining
        if res.builtin:  # the real server leaves apiVersion/kind off items of typed lists
            page = [{k: v for k, v in o.items() if k not in ("apiVersion", "kind")} for o in page]
        h.send_json(200, {"kind": f"{res.kind}List", "apiVersion": res.api_version,
                          "metadata": meta, "items": page})

    def _serve_watch(self, h: _Handler, route: _Route, query: dict) -> None:
        res = route.resource
        sub = _Sub(res.path, _Filter(route.namespace, query),
                   bookmarks=_flag(query, "allowWatchBookmarks"))
        rv_param = query.get("resourceVersion", "")
        expired = None
        with self._lock:
            if rv_param in ("", "0"):
                for obj in self._objects[res.path].values():
                    if sub.want(obj):
                        sub.q.put(("data", _dumps({"type": "ADDED", "object": obj}) + b"\n"))
            elif int(rv_param) < self._floor[res.path]:
                expired = status_body(410, f"too old resource version: {rv_param} ({self._floor[res.path]})")
            else:
                for erv, line, obj in self._history[res.path]:
                    if erv > int(rv_param) and sub.want(obj):
                        sub.q.put(("data", line))
            if expired is None:
                self._watchers.append(sub)
        h.start_stream("application/json")
        if expired is not None:
            h.chunk(_dumps({"type": "ERROR", "object": expired}) + b"\n")
            return h.end_stream()
        try:
            self._pump(h, sub, query)
        finally:
            with self._lock:
                self._watchers.remove(sub)

    def _pump(self, h: _Handler, sub: _Sub, query: dict) -> None:
        """Copy queued events to the socket until timeout, an injected end, or a drop."""
        now = time.monotonic()
        timeout = query.get("timeoutSeconds")
        deadline = now + int(timeout) if timeout else None
        next_bookmark = now + self.bookmark_interval if sub.bookmarks else None
        while True:
            now = time.monotonic()
            if deadline is not None and now >= deadline:
                return h.end_stream()
            waits = [t - now for t in (deadline, next_bookmark) if t is not None]
            try:
                msg = sub.q.get(timeout=max(0.0, min(waits)) if waits else None)
            except queue.Empty:
                if next_bookmark is not None and time.monotonic() >= next_bookmark:
                    with self._lock:
                        self._queue_bookmark(sub)
                    next_bookmark = time.monotonic() + self.bookmark_interval
                continue
            if msg[0] == "data":
                h.chunk(msg[1])
            elif msg[0] == "end":
                return h.end_stream()
            elif msg[0] == "drop":
                return h.abort()

    def _serve_log(self, h: _Handler, route: _Route, query: dict) -> None:
        ns, name = route.namespace, route.name
        with self._lock:
            pod = self._objects["/api/v1/pods"].get((ns, name))
            known = [c for (n, p, c) in self._logs if (n, p) == (ns, name)]
        if pod is None:
            return h.send_status(404, f'pods "{name}" not found')
        spec = pod.get("spec") or {}
        declared = [c.get("name") for c in spec.get("containers") or []]
        container = query.get("container")
        if not container:
            if len(declared) > 1:
                return h.send_status(400, f"a container name must be specified for pod {name}, "
                                          f"choose one of: [{' '.join(declared)}]")
            container = (declared or known or [""])[0]
        elif container not in declared + [c.get("name") for c in spec.get("initContainers") or []] + known:
            return h.send_status(400, f"container {container} is not valid for pod {name}")
        key = (ns, name, container)
        stamps = _flag(query, "timestamps")
        cutoff = None
        if query.get("sinceSeconds"):
            cutoff = dt.datetime.now(dt.timezone.utc) - dt.timedelta(seconds=int(query["sinceSeconds"]))

        def fmt(ts: dt.datetime, line: str) -> bytes:
            prefix = ts.strftime("%Y-%m-%dT%H:%M:%S.%f") + "000Z " if stamps else ""
            return f"{prefix}{line}\n".encode()

        follow = _flag(query, "follow")
        sub = _Sub(key)
        with self._lock:
            lines = [(ts, ln) for ts, ln in self._logs.get(key, []) if cutoff is None or ts >= cutoff]
            if query.get("tailLines"):
                tail = int(query["tailLines"])
                lines = lines[-tail:] if tail else []
            if follow:
                self._followers.append(sub)
        backlog = b"".join(fmt(ts, ln) for ts, ln in lines)
        if not follow:
            return h.send_body(200, backlog, "text/plain")
        try:
            h.start_stream("text/plain")
            if backlog:
                h.chunk(backlog)
            while True:
                msg = sub.q.get()
                if msg[0] == "line":
                    h.chunk(fmt(msg[1], msg[2]))
                elif msg[0] == "end":
                    return h.end_stream()
                elif msg[0] == "drop":
                    return h.abort()
        finally:
            with self._lock:
                self._followers.remove(sub)

