"""``karptui`` with no command (the live cluster) and ``karptui snapshot save``.

Credentials are loaded and the API server is asked for its version before the
TUI takes the screen, so an expired token or an unreachable server is one line
on stderr, not a broken screen.
"""

from __future__ import annotations

import argparse
import threading
import time
from contextlib import contextmanager
from dataclasses import replace

from ..errors import InputError
from ..model.errors import ModelError
from ..model.fields import parse_duration
from ..text import visible
from .output import StatusLine, say

SYNC_WAIT = 60.0  # seconds to wait for the first full picture before showing what there is
PARTIAL_AFTER = 2.0  # a big cluster still listing, every kind's pages arriving: show it filling in after this


def logs_since(text: str | None, default: float | None) -> float | None:
    """``--logs-since 10m`` in seconds; 0 turns log reading off."""
    if text is None:
        return default
    try:
        seconds = parse_duration(text, "--logs-since")
    except ModelError as exc:
        raise InputError("--logs-since", str(exc).removeprefix("--logs-since: ")) from None
    if seconds is None or seconds < 0:
        raise InputError("--logs-since", f"{text!r} is not a duration such as 10m, 1h or 0")
    return seconds


def _connect(args: argparse.Namespace, namespace: str | None):
    from ..cluster.connect import connect

    with _slow_reads():
        return connect(args.kubeconfig, args.context, namespace)  # ClusterUnavailable: one line, exit 1 or 2


def check_connection(args: argparse.Namespace, namespace: str | None) -> None:
    """The kubeconfig, credentials and API server tried once and let go: ``karptui serve`` says a
    problem in one line before it listens, instead of in every browser session."""
    _connect(args, namespace).close()


@contextmanager
def _slow_reads(every: float = 0.5):
    """While the block runs, a read from the cluster that takes long is named on stderr, on one
    line rewritten in place ("karptui: listing pods: 12 s so far"), when stderr is a terminal;
    the line is cleared at the end, so what follows (an error, the TUI) starts clean."""
    from ..cluster.guard import slowest

    line = StatusLine()
    if not line.tty:
        yield
        return
    done = threading.Event()

    def watch() -> None:
        while not done.wait(every):
            slow = slowest()
            if slow:
                line.show(f"karptui: {slow}")

    thread = threading.Thread(target=watch, name="slow-reads", daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()
        line.clear()


def run_live(args: argparse.Namespace) -> int:
    from ..cluster.live import LiveCluster
    from ..tui.themes import check_theme_name

    if args.theme:
        check_theme_name(args.theme)
    since = logs_since(getattr(args, "logs_since", None), 600.0)
    from ..catalog.discounts import find_discounts

    discounts = find_discounts(getattr(args, "discounts", None))  # a bad file: one line before connecting
    from .karpenter_settings import flags_given, set_by
    from .karpenter_version import flag_text

    version = flag_text(args)  # a bad one: one line before connecting
    settings = flags_given(args)
    connection = _connect(args, args.namespace)
    with _slow_reads():  # API discovery
        live = LiveCluster(connection, karpenter_version=version, karpenter_settings=(settings, set_by(settings))).start()
    if not _wait_with_progress(live, connection.context):
        say(f"karptui: {_not_listed(live)}")
    from ..tui.app import KarptuiApp
    from .tui import play

    try:
        return play(KarptuiApp(live.snapshot(), theme=args.theme, live=live, logs_since=since, discounts=discounts))
    finally:
        live.stop()
        connection.close()


def _not_listed(live) -> str:
    """Which kinds are missing from the first picture, and why (the first reason given)."""
    missing = [i for i in live.informers if not i.synced.is_set()]
    names = ", ".join(i.resource.name for i in missing)
    why = next((i.note or i.slow() for i in missing if i.note or i.slow()), "")
    return (f"not every kind listed after {SYNC_WAIT:.0f} s ({names}{': ' + why if why else ''}); "
            "showing what there is")


def _every_kind_under_way(live) -> bool:
    """Every kind listed, or its first list reading pages (so the screen fills in as they arrive)."""
    return all(i.synced.is_set() or (i.progress() or (0,))[0] > 0 for i in live.informers)


def _wait_with_progress(live, context: str) -> bool:
    """Wait for the first full listing, saying how far it got and what is slow (on one line, when
    stderr is a terminal); on a big cluster, once every kind's pages are arriving (after
    PARTIAL_AFTER), the screen opens and fills in as they come, its header saying how far."""
    start, line = time.monotonic(), StatusLine()
    total = len(live.informers)
    while time.monotonic() - start < SYNC_WAIT:
        done = sum(1 for i in live.informers if i.synced.is_set())
        slow = live.slow()
        text = (f"karptui: reading {context}: {done}/{total} kinds listed, {time.monotonic() - start:.1f} s"
                + (f" ({slow})" if slow else ""))
        if done == total:
            line.clear()
            say(text)
            return True
        if time.monotonic() - start >= PARTIAL_AFTER and _every_kind_under_way(live):
            line.clear()
            say(text + f"; showing it as it arrives ({live.progress()})")
            return True
        line.show(text)
        live.wait_synced(0.5)
    line.clear()
    return False


def run_snapshot_save(args: argparse.Namespace) -> int:
    from pathlib import Path

    from ..cluster.capture import capture
    from ..sources.atomic import check_target
    from ..sources.snapshot_file import write_snapshot

    out = Path(args.out)
    check_target(out)  # a read-only or missing target is found now, not after listing the whole cluster
    since = logs_since(args.logs_since, 3600.0)
    connection = _connect(args, None)
    try:
        with _slow_reads():
            objects, meta, notes = capture(connection, since)
    finally:
        connection.close()
    try:
        write_snapshot(out, objects, meta)
    except OSError as exc:
        raise InputError(args.out, exc.strerror or str(exc)) from None
    for note in notes:
        say(f"karptui: warning: {note}")
    lines = len(meta.logs_text.splitlines())
    print(visible(f"saved {len(objects)} objects and {lines} Karpenter log lines from {meta.context} to {out}"))
    return 0


def captured_snapshot(args: argparse.Namespace, namespace: str | None = None, logs_default: float = 3600.0):
    """The live cluster as ``snapshot save`` would write it (its objects, recent Karpenter log and
    what could not be read), held in memory instead: for ``karptui mcp`` and ``karptui check`` with
    no SNAPSHOT. ``logs_default``: seconds of log read when ``--logs-since`` is not given."""
    from ..cluster.capture import capture
    from ..model.build import SnapshotBuilder

    since = logs_since(getattr(args, "logs_since", None), logs_default)
    connection = _connect(args, namespace)
    try:
        objects, meta, notes = capture(connection, since)
    finally:
        connection.close()
    builder = SnapshotBuilder()
    for obj in objects:
        builder.add(obj, f"live {meta.context}")
    return builder.build(replace(meta, source=f"live {meta.context}"), notes)
