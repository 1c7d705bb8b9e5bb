"""A total deadline and a byte cap on every request to the API server.

The client's timeouts (urllib3's) are per socket operation: as urllib3's own
documentation says, even ``Timeout(total=...)`` is not a limit on the whole
request. A server that trickles a byte at a time, never ends a body, or announces
10 GiB holds a request, and its memory, for ever.

So every connection the client opens is one of ours (installed on its urllib3 pool
manager with :func:`install`): each response reads the socket through a reader
that, before every ``recv``, checks the request's deadline and shortens the socket
timeout to what is left of it, and counts the bytes against the request's cap. That
covers the status line, headers, chunk framing and body alike, whether the client
or we read it, and error bodies the client reads into its ApiException too.

A request takes its bounds from the innermost :func:`bounded` block of its thread
(``with bounded("listing pods"): ...``), or the defaults in karptui/limits.py.
Passing one raises :class:`LimitExceeded`, a ClusterUnavailable (exit 1: the
server's fault), which urllib3 does not retry.
"""

from __future__ import annotations

import functools
import http.client
import io
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from urllib3.connection import HTTPConnection, HTTPSConnection
from urllib3.connectionpool import HTTPConnectionPool, HTTPSConnectionPool

from .. import limits
from ..errors import ClusterUnavailable


class ServerFault(ClusterUnavailable):
    """The API server's answer is unusable; ``str()`` names what was being read. Exit 1."""

    def __init__(self, message: str) -> None:
        super().__init__(message, 1)


class LimitExceeded(ServerFault):
    """A request ran past its deadline or its byte cap; ``str()`` says which and what it was doing."""


class DeadlineExceeded(LimitExceeded):
    pass


class TooLarge(LimitExceeded):
    pass


def _size(n: int) -> str:
    for unit, shift in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if n >= 1 << shift:
            return f"{n / (1 << shift):g} {unit}"
    return f"{n} bytes"


def seconds_text(s: float) -> str:
    return f"{s:.0f} s" if s >= 10 else f"{s:.1g} s" if s < 1 else f"{s:.1f} s"


@dataclass
class Budget:
    """What a request is for and how long and how big it may be."""

    what: str                       # "listing pods": how messages name it
    seconds: float
    max_bytes: int | None           # None: a stream, bounded per line by its reader
    started: float = field(default_factory=time.monotonic)

    @property
    def deadline(self) -> float:
        return self.started + self.seconds

    def late(self) -> DeadlineExceeded:
        return DeadlineExceeded(f"{self.what}: gave up after {seconds_text(self.seconds)} "
                                "(the API server is too slow or stopped answering)")

    def too_large(self, got: int, cap: int, announced: bool = False) -> TooLarge:
        how = f"announced {_size(got)}" if announced else "sent more"
        return TooLarge(f"{self.what}: the API server {how}, over karptui's cap of {_size(cap)}")


_local = threading.local()
_under_way: dict[int, Budget] = {}  # blocks running now, in any thread (streams left out)
_under_way_lock = threading.Lock()


@contextmanager
def bounded(what: str, seconds: float | None = None, max_bytes: int | None = -1,
            stream: bool = False) -> Iterator[Budget]:
    """Requests this thread makes inside the block share one deadline ``seconds`` from now
    (default limits.REQUEST_DEADLINE) and each may read ``max_bytes`` (default
    limits.MAX_LIST_PAGE_BYTES; None for a stream). Unless ``stream`` (a watch or a log
    follow, long by design), the block counts for :func:`slowest` while it runs."""
    budget = Budget(what, limits.REQUEST_DEADLINE if seconds is None else seconds,
                    limits.MAX_LIST_PAGE_BYTES if max_bytes == -1 else max_bytes)
    outer = getattr(_local, "budget", None)
    _local.budget = budget
    if not stream:
        with _under_way_lock:
            _under_way[id(budget)] = budget
    try:
        yield budget
    finally:
        _local.budget = outer
        with _under_way_lock:
            _under_way.pop(id(budget), None)


def slowest() -> str:
    """The read running longest, in words for the screen ("listing pods: 12 s so far"), if it has
    run limits.SLOW_REQUEST_NOTICE or more; else ""."""
    with _under_way_lock:
        budgets = list(_under_way.values())
    if not budgets:
        return ""
    budget = min(budgets, key=lambda b: b.started)
    took = time.monotonic() - budget.started
    return f"{budget.what}: {seconds_text(took)} so far" if took >= limits.SLOW_REQUEST_NOTICE else ""


def _current(method: str, url: str) -> Budget:
    budget = getattr(_local, "budget", None)
    if budget is None:  # a request no caller named: still bounded
        budget = Budget(f"{method} {url.split('?')[0]}", limits.REQUEST_DEADLINE, limits.MAX_LIST_PAGE_BYTES)
    return budget


class _Raw(io.RawIOBase):
    """The socket as http.client reads it, one bounded ``recv`` at a time."""

    def __init__(self, sock, budget: Budget) -> None:
        self._sock, self._budget = sock, budget
        self._io = sock.makefile("rb", buffering=0)
        self._idle = sock.gettimeout()  # urllib3 set the read timeout just before
        self.count = 0
        self.max_bytes = budget.max_bytes  # of this response, headers and framing included

    def readable(self) -> bool:
        return True

    def fileno(self) -> int:
        return self._io.fileno()

    def readinto(self, buffer) -> int:
        budget = self._budget
        left = budget.deadline - time.monotonic()
        if left <= 0:
            raise budget.late()
        shortened = self._idle is None or left < self._idle  # else the read timeout is the nearer end
        if shortened:
            self._sock.settimeout(left)
        try:
            n = self._io.readinto(buffer)
        except TimeoutError:
            if time.monotonic() >= budget.deadline:
                raise budget.late() from None
            raise  # quiet for the read timeout: the client's own error
        finally:
            if shortened:
                try:
                    self._sock.settimeout(self._idle)
                except OSError:  # closed under us by a stop(): the read's own error says enough
                    pass
        if n:
            self.count += n
            if self.max_bytes is not None and self.count > self.max_bytes:
                raise budget.too_large(self.count, self.max_bytes)
        return n

    def close(self) -> None:
        if not self.closed:
            self._io.close()
        super().close()


class _Sock:
    """Stands in for the socket while http.client makes its file: the file is ours."""

    def __init__(self, sock, budget: Budget) -> None:
        self._sock, self._budget = sock, budget

    def makefile(self, mode: str = "rb", *args, **kwargs):
        return io.BufferedReader(_Raw(self._sock, self._budget))


class _Response(http.client.HTTPResponse):
    def __init__(self, sock, *args, budget: Budget, **kwargs) -> None:
        self._budget = budget
        super().__init__(_Sock(sock, budget), *args, **kwargs)

    def begin(self) -> None:
        super().begin()
        budget, raw = self._budget, self.fp.raw
        if not 200 <= self.status < 300:  # a Status object, read whole by the client: never a stream
            raw.max_bytes = min(raw.max_bytes or limits.MAX_OBJECT_BYTES, limits.MAX_OBJECT_BYTES)
        if self.length is not None and raw.max_bytes is not None and self.length > raw.max_bytes:
            raise budget.too_large(self.length, raw.max_bytes, announced=True)
        encoding = (self.getheader("Content-Encoding") or "identity").strip().lower()
        if encoding != "identity":  # we ask for none: a compressed body could be a bomb past the cap
            raise ServerFault(f"{budget.what}: the API server sent a {encoding} body karptui did not ask for")


class _Bounded:
    """Mixed into urllib3's connections: each request's response is a bounded one."""

    _sending: Budget | None = None  # while request() runs (it may connect)

    def request(self, method, url, *args, **kwargs):
        self._sending = budget = _current(method, url)
        self.response_class = functools.partial(_Response, budget=budget)
        try:
            return super().request(method, url, *args, **kwargs)
        finally:
            self._sending = None

    def connect(self):
        budget = getattr(_local, "budget", None) or self._sending
        if budget is not None:
            left = budget.deadline - time.monotonic()
            if left <= 0:
                raise budget.late()
            if self.timeout is None or not isinstance(self.timeout, (int, float)) or self.timeout > left:
                self.timeout = left
        return super().connect()


class BoundedHTTPConnection(_Bounded, HTTPConnection):
    pass


class BoundedHTTPSConnection(_Bounded, HTTPSConnection):
    pass


class BoundedHTTPConnectionPool(HTTPConnectionPool):
    ConnectionCls = BoundedHTTPConnection


class BoundedHTTPSConnectionPool(HTTPSConnectionPool):
    ConnectionCls = BoundedHTTPSConnection


def install(api) -> None:
    """Make every connection of the client ``api`` (a kubernetes ApiClient) a bounded one; before
    its first request. Bodies are asked for uncompressed, and refused otherwise."""
    manager = api.rest_client.pool_manager
    manager.pool_classes_by_scheme = {"http": BoundedHTTPConnectionPool, "https": BoundedHTTPSConnectionPool}
    manager.clear()
    api.set_default_header("Accept-Encoding", "identity")


# ---- reading what the client hands back unread (``_preload_content=False``) ------------------

CHUNK = 64 << 10


def lines(response, max_line: int, what: str, cut: bool = False) -> Iterator[str]:
    """The response's lines as they arrive (UTF-8, bad bytes replaced), none longer than
    ``max_line`` bytes: past it a line is cut and marked (``cut``) or refused (TooLarge)."""
    buffer = bytearray()
    skipping = False  # the rest of a line already cut
    while True:
        data = response.read1(CHUNK)
        if not data:
            break
        start = 0
        while True:
            end = data.find(b"\n", start)
            piece = data[start:] if end < 0 else data[start:end]
            if not skipping:
                buffer += piece
                if len(buffer) > max_line:
                    if not cut:
                        raise TooLarge(f"{what}: one line is over karptui's cap of {_size(max_line)}")
                    yield buffer[:max_line].decode("utf-8", "replace") + f" … [line cut at {_size(max_line)}]"
                    buffer.clear()
                    skipping = True
            if end < 0:
                break
            if not skipping:
                yield buffer.decode("utf-8", "replace")
            buffer.clear()
            skipping = False
            start = end + 1
    if buffer and not skipping:
        yield buffer.decode("utf-8", "replace")

