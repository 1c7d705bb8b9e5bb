"""One kind kept current: list (paged), then watch from the list's resourceVersion.

Like client-go's reflector: bookmarks move the resourceVersion on, ``410 Gone``
(an expired continue token or a compacted watch) means list again, a dropped or
silent connection means watch again after a backoff, a ``403`` means this kind
is not ours to see (said once, the rest of the cluster goes on). Objects are read
as raw JSON (``_preload_content=False``) and built straight into the model, which
is several times faster than the client's own models on big clusters.

The watch loop is ours, not ``kubernetes.watch.Watch``: with ``deserialize=False``
that class neither tracks the resourceVersion nor survives an ERROR event. It uses
the client's own list functions, and a line splitter with a cap per event.

Every list page has a deadline and a byte cap, every watch call a total deadline
(its timeoutSeconds and some grace) besides the idle read timeout, and each event a
byte cap (guard.py, limits.py). Past one, the kind is noted and read again after a
backoff; an event over the cap means it is lost, so that kind is listed afresh.
While a list takes long, ``slow`` says so ("listing pods: 12 s so far").
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

import urllib3
from kubernetes.client.rest import ApiException

from .. import limits
from ..errors import ClusterUnavailable
from ..model.build import convert
from ..model.errors import ModelError
from ..sources import fast_json
from ..sources.collector import collector_paused
from .guard import ServerFault, TooLarge, bounded, lines, seconds_text
from .resources import Resource, list_pages, read_ahead

PAGE = 500
WATCH_SECONDS = 240            # the server ends each watch after this; we start another
READ_TIMEOUT = 90              # no byte (event or bookmark) for this long: reconnect
CONNECT_TIMEOUT = 5
MAX_BACKOFF = 30.0
RESYNC = 30 * 60               # list afresh this often anyway: a safety net under missed events

SYNCING, SYNCED, FORBIDDEN, ABSENT, FAILING = "syncing", "synced", "forbidden", "absent", "failing"


class Gone(Exception):
    """410: our resourceVersion or continue token is too old; list again."""


class Informer:
    """Model objects of one kind by (namespace, name), kept by a daemon thread."""

    def __init__(self, resource: Resource, lister: Callable[..., Any], on_change: Callable[[], None],
                 page: int = PAGE, watch_seconds: int = WATCH_SECONDS, read_timeout: float = READ_TIMEOUT,
                 resync: float = RESYNC, journal: Callable[[Resource, str, Any], None] | None = None) -> None:
        """``journal`` (``karptui record``): told, from this thread, each change as the API server sent
        it: ``(resource, "ADDED"|"MODIFIED"|"DELETED", raw object)`` for a watch event, and
        ``(resource, "LISTED", [raw objects])`` after each whole list (the first, and every relist
        after a 410 or a resync, when watch events may have been missed)."""
        self.resource = resource
        self.journal = journal
        self.lister = lister
        self.on_change = on_change
        self.page, self.watch_seconds, self.read_timeout = page, watch_seconds, read_timeout
        self.resync = resync
        self._listed_at = 0.0
        self.objects: dict[tuple[str, str], Any] = {}
        self.lock = threading.Lock()
        self.state = SYNCING
        self.note = ""
        self.synced = threading.Event()     # set once listed (or known forbidden/absent)
        self.counts: Counter[str] = Counter()  # events, relists, reconnects, malformed, skipped
        self.resource_version: str | None = None
        self._stop = threading.Event()
        self._response = None
        self.listing_since: float | None = None  # monotonic, while a list is under way
        self.listed = 0                     # objects read so far by the list under way
        self.expected: int | None = None    # of how many: listed + the server's remainingItemCount
        self._thread = threading.Thread(target=self._run, name=f"informer-{resource.name}", daemon=True)

    # ---- life ----------------------------------------------------------------------------
    def start(self) -> Informer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._stop.set()
        response = self._response
        if response is not None:
            try:
                response.shutdown() if hasattr(response, "shutdown") else response.close()
            except Exception:  # noqa: BLE001 - already closed or half-open: either way it is done
                pass

    def join(self, timeout: float | None = None) -> None:
        self._thread.join(timeout)

    def slow(self) -> str:
        """What is taking long right now, in words for the screen; "" when nothing is."""
        since = self.listing_since
        if since is None:
            return ""
        took = time.monotonic() - since
        if took < limits.SLOW_REQUEST_NOTICE:
            return ""
        return f"listing {self.resource.name}: {seconds_text(took)} so far"

    def values(self) -> list:
        with self.lock:
            return list(self.objects.values())

    # ---- the loop --------------------------------------------------------------------------
    def _run(self) -> None:
        backoff = 1.0
        while not self._stop.is_set():
            try:
                if self.resource_version is None or time.monotonic() - self._listed_at > self.resync:
                    if self.resource_version is not None:
                        self.counts["resyncs"] += 1
                    self._list()
                self._watch()
                backoff = 1.0
            except Gone:
                self.counts["relists"] += 1
                self.resource_version = None
            except ServerFault as exc:  # past a deadline or cap, or nonsense: the message names what was read
                if isinstance(exc, TooLarge):
                    self.resource_version = None  # an event was lost: list afresh
                backoff = self._failed(str(exc), backoff, named=True)
            except ClusterUnavailable as exc:  # credentials could not be refreshed
                backoff = self._failed(str(exc), backoff)
            except ApiException as exc:
                if exc.status == 403:
                    self._give_up(FORBIDDEN, f"{self.resource.name}: forbidden (RBAC does not let us list it)")
                    return
                if exc.status == 404:
                    self._give_up(ABSENT, f"{self.resource.name}: not served by this cluster")
                    return
                why = f"{exc.status} {exc.reason}"
                if exc.status == 401:
                    why += " (credentials expired or revoked? log in again)"
                backoff = self._failed(why, backoff)
            except (urllib3.exceptions.HTTPError, OSError, ValueError) as exc:
                backoff = self._failed(" ".join(str(exc).split())[:200] or type(exc).__name__, backoff)

    def _give_up(self, state: str, note: str) -> None:
        self.state, self.note = state, note
        self.synced.set()
        self.on_change()

    def _failed(self, why: str, backoff: float, named: bool = False) -> float:
        """Note it, wait (interruptibly), and try again a little later each time."""
        self.counts["reconnects"] += 1
        if self.state != SYNCED:  # once listed, the picture stays (with the note) while we retry
            self.state = FAILING
        self.note = f"{why if named else f'{self.resource.name}: {why}'}; retrying"
        self._stop.wait(backoff)
        return min(MAX_BACKOFF, backoff * 2)

    def _list(self) -> None:
        """List every page. The first list puts each page in the store as it arrives (the screen
        shows what there is, with ``progress``); a later one builds aside and swaps at the end,
        so the picture never shrinks while a kind is listed again."""
        first = not self.synced.is_set()
        objects: dict[tuple[str, str], Any] = {}
        if first:  # a first list tried again starts afresh: nothing left over from the attempt that failed
            with self.lock:
                self.objects = objects
        metadata: dict = {}
        raw: list[dict] | None = [] if self.journal is not None else None
        self.listing_since, self.listed, self.expected = time.monotonic(), 0, None
        # The first list keeps the collector paused from its first page to its last (and, as the
        # informers list at once, until the last kind is listed): re-enabled between pages, it
        # walked the young pages and, again and again, the whole store growing under it, a third
        # of a 200,000-pod sync's CPU. A later list pauses it per page only, the screen running.
        try:
            with collector_paused() if first else contextlib.nullcontext():
                pages = list_pages(self.lister, self.page, (CONNECT_TIMEOUT, self.read_timeout),
                                   f"listing {self.resource.name}")
                for listing in read_ahead(pages, self.resource.name):  # the next page asked for meanwhile
                    metadata = listing.get("metadata") or {}
                    if not isinstance(metadata, dict):
                        metadata = {}
                    page: dict[tuple[str, str], Any] = {}
                    with collector_paused():  # while the page is built, not while the next one is awaited
                        for item in listing.get("items") or ():
                            if isinstance(item, dict):
                                self._put(page, item)
                                if raw is not None:
                                    raw.append(item)
                    self._read(objects, page, len(listing.get("items") or ()), metadata, first)
        except ApiException as exc:
            if exc.status == 410:  # the continue token expired mid-list
                raise Gone from None
            raise
        finally:
            self.listing_since = None
        with self.lock:
            self.objects = objects
        self._listed_at = time.monotonic()
        self.resource_version = metadata.get("resourceVersion") or "0"
        self.state, self.note = SYNCED, ""
        if raw is not None:
            self.journal(self.resource, "LISTED", raw)
        self.synced.set()
        self.on_change()

    def _read(self, objects: dict, page: dict, count: int, metadata: dict, first: bool) -> None:
        """One page read: into the store at once on the first list (and said), else aside."""
        with self.lock:
            objects.update(page)
        self.listed += count
        remaining = metadata.get("remainingItemCount")
        self.expected = self.listed + remaining if isinstance(remaining, int) and remaining >= 0 else None
        if first and metadata.get("continue"):
            self.on_change()

    def progress(self) -> tuple[int, int | None] | None:
        """(objects read, of how many if the server said) while the first list is under way, else None."""
        if self.synced.is_set() or self.listing_since is None:
            return None
        return self.listed, self.expected

    def _watch(self) -> None:
        what = f"watching {self.resource.name}"
        with bounded(what, self.watch_seconds + limits.WATCH_GRACE, None, stream=True):  # capped per event below
            response = self.lister(watch=True, resource_version=self.resource_version, allow_watch_bookmarks=True,
                                   timeout_seconds=self.watch_seconds, _preload_content=False,
                                   _request_timeout=(CONNECT_TIMEOUT, self.read_timeout))
        self._response = response
        if self.note:  # connected again after trouble: say so
            self.state, self.note = SYNCED, ""
            self.on_change()
        try:
            for line in lines(response, limits.MAX_OBJECT_BYTES, what):
                if self._stop.is_set():
                    return
                if line:
                    self._event(line)
        finally:
            self._response = None
            response.close()
            response.release_conn()

    def _event(self, line: str) -> None:
        try:
            event = fast_json.loads(line)
            kind, obj = event["type"], event["object"]
            if not isinstance(obj, dict):
                raise TypeError("object is not a map")
        except (ValueError, KeyError, TypeError):
            self.counts["malformed"] += 1
            return
        version = (obj.get("metadata") or {}).get("resourceVersion")
        if kind == "ERROR":
            if obj.get("code") == 410:
                raise Gone
            raise ApiException(status=obj.get("code") or 500, reason=f"{obj.get('reason')}: {obj.get('message')}")
        if kind == "BOOKMARK":
            self.resource_version = version or self.resource_version
            return
        if kind not in ("ADDED", "MODIFIED", "DELETED"):
            self.counts["malformed"] += 1
            return
        with self.lock:
            if kind == "DELETED":
                meta = obj.get("metadata") or {}
                self.objects.pop((meta.get("namespace") or "", meta.get("name") or ""), None)
            else:
                self._put(self.objects, obj)
        if self.journal is not None:
            self.journal(self.resource, kind, obj)
        self.counts["events"] += 1
        if version:
            self.resource_version = version
        self.on_change()

    def _put(self, objects: dict, raw: dict) -> None:
        """Build the model object; a malformed one is counted and skipped, never fatal."""
        try:
            converted = convert(self.resource.typed(raw))
        except (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError):
            self.counts["skipped"] += 1
            return
        if converted is not None:
            _, (_, namespace, name), built = converted
            objects[(namespace or "", name)] = built


def wait_all(informers: list[Informer], timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    return all(i.synced.wait(max(0.0, deadline - time.monotonic())) for i in informers)
