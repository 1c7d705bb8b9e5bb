"""``karptui record OUT``: a bounded history of the live cluster (docs/record.md)."""

from __future__ import annotations

import argparse
import math
import signal

from ..errors import InputError
from ..model.errors import ModelError
from ..model.fields import parse_duration
from ..text import visible
from .output import say

DEFAULT_EVERY, DEFAULT_MAX_SIZE = "5m", "1GiB"


def duration(text: str, option: str, allow_zero: bool = False) -> float:
    """``--every 5m``, ``--for 24h`` in seconds; one line naming the option otherwise."""
    try:
        seconds = parse_duration(text, option)
    except ModelError as exc:
        raise InputError(option, str(exc).removeprefix(f"{option}: ")) from None
    if seconds is None or seconds < 0 or (seconds == 0 and not allow_zero):
        raise InputError(option, f"{text!r} is not a duration such as 30s, 5m or 24h")
    return seconds


def _terminate(signum, frame) -> None:
    raise KeyboardInterrupt  # SIGTERM (kill, a pod's end) ends as Ctrl-C does: the interval so far is written


def run_record(args: argparse.Namespace) -> int:
    from ..cluster.recorder import Recorder
    from ..recording import RecordingWriter, parse_size
    from ..sources.decode import size_text as human_bytes
    from .live import _connect, _slow_reads, logs_since

    every = duration(args.every, "--every")
    total = duration(args.duration, "--for") if args.duration is not None else None
    cap = parse_size(args.max_size) if args.max_size != "0" else None
    since = logs_since(args.logs_since, 3600.0)
    checkpoint = duration(args.checkpoint_every, "--checkpoint-every", allow_zero=True)
    writer = RecordingWriter(args.out, cap, checkpoint_every=math.ceil(checkpoint / every) if checkpoint else 0)
    writer.check()  # a directory that cannot hold a recording is said now, before the cluster is read
    connection = _connect(args, None)
    recorder = Recorder(connection, writer, every, logs_since=since,
                        on_note=lambda note: say(f"karptui: {note}"))
    previous = signal.signal(signal.SIGTERM, _terminate)
    try:
        with _slow_reads():
            notes = recorder.start()
        for note in notes:
            say(f"karptui: warning: {note}")
        said_cap = f", kept under {human_bytes(cap)}" if cap else ""
        say(f"karptui: recording {connection.context} to {args.out} every {args.every}{said_cap}; "
            f"{len(recorder.state):,} objects in the base segment")
        try:
            recorder.run(total, lambda changes: say(
                f"karptui: interval {recorder.intervals}: {changes:,} change(s), {human_bytes(writer.size())} on disk"))
        except KeyboardInterrupt:
            recorder.flush()  # what the interval gathered so far is kept
    finally:
        signal.signal(signal.SIGTERM, previous)
        recorder.stop()
        connection.close()
    rotated = f"; {writer.dropped} oldest interval(s) folded into a newer base" if writer.dropped else ""
    rotated += f"; {writer.checkpoints} checkpoint(s) written" if writer.checkpoints else ""
    print(visible(f"recorded {recorder.intervals} interval(s) of {connection.context} to {args.out} "
                  f"({human_bytes(writer.size())}{rotated})"))
    return 0
