"""``karptui open`` and ``karptui demo``: load first, then start the TUI."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from ..errors import InputError
from ..model import Snapshot
from ..sources import bundled_snapshot, load_snapshot, resolve_snapshot_path
from ..sources.collector import collector_paused, settle_for_simulation
from ..sources.logs import attach_logs
from ..text import visible
from .karpenter_settings import flags_given, with_flags
from .karpenter_version import flag_text, with_flag


def _run(snapshot: Snapshot, theme: str | None = None, follow_logs: str | None = None,
         follow_from: int | None = None, namespace: str | None = None, discounts: str | None = None,
         recording=None, prepare=None) -> int:
    from ..catalog.discounts import find_discounts
    from ..tui.app import KarptuiApp  # bad input has failed by now, before the screen is taken
    from ..tui.themes import check_theme_name

    if theme:
        check_theme_name(theme)
    found = find_discounts(discounts)
    return play(KarptuiApp(snapshot, theme=theme, follow_logs=follow_logs, follow_from=follow_from,
                           namespace=namespace, discounts=found, recording=recording, prepare=prepare))


@contextmanager
def _for_the_session() -> Iterator[None]:
    """Where a session's snapshot is loaded: it lives as long as the session, as ``simulate``'s does, so it
    leaves the collector's passes before the collector is back on (``settle_for_simulation``). Left in their
    sight, a full collection walked its objects every few what-if runs (at 5,000 nodes a +1 replica run took
    1.3-2.3 s, 1.1-1.5 s frozen), and the screen's imports set off full collections over it (6.8 s of the web
    shape's launch at 20,000 nodes). A live session's snapshots come and go: not there."""
    with collector_paused():
        yield
        settle_for_simulation()


def play(app) -> int:
    """Run a TUI session to its end; its exit status. An internal error that ended it is said in
    one line on stderr, its traceback saved where the line says (the terminal is back by then)."""
    app.run()
    _ENDED.append(True)
    if not app.crash:
        return app.return_code or 0
    last = app.crash.rstrip().splitlines()[-1]
    where = _save_crash(app.crash)
    kept = f"; the details are in {where}" if where else ""
    print(f"karptui: internal error, the session ended: {visible(last)}{kept}", file=sys.stderr)
    return 1


def _save_crash(text: str) -> str:
    """The traceback in the user's state folder (the newest crash only); "" when it cannot be written."""
    from platformdirs import user_state_path

    from ..sources.atomic import atomic_write

    from ..errors import InputError

    folder = user_state_path("karptui")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        return str(atomic_write(folder / "crash.txt", text.encode()))
    except (OSError, InputError):
        return ""


_ENDED: list[bool] = []   # a TUI session ran in this process and gave the screen back


def leave_at_once(code: int) -> None:
    """End the process now, when a TUI session has ended (the console script's ``main`` asks; an
    in-process caller such as a test never does). The interpreter's own teardown freed a 50,000-pod
    session object by object: 1.5 s after `q` before the shell prompt came back, 16 s on a busy
    machine. A forked simulation still running is stopped first, as a normal exit would."""
    import multiprocessing

    from .output import exit_now

    if not _ENDED:
        return
    for child in multiprocessing.active_children():
        child.kill()
        child.join(1)
    exit_now(code)


def run_open(args: argparse.Namespace) -> int:
    version, settings = flag_text(args), flags_given(args)
    from ..recording import Recording, is_recording

    where = resolve_snapshot_path(args.snapshot)
    if is_recording(where):  # karptui record's directory (or a bundled one's name): its newest state, scrubbable
        if args.logs:
            raise InputError("--logs", f"{args.snapshot} is a recording: it carries its own Karpenter log")
        recording = Recording(where)

        def prepare(snapshot: Snapshot) -> Snapshot:
            return with_flags(with_flag(snapshot, version), settings)

        with _for_the_session():
            snapshot = prepare(recording.snapshot_at(recording.end))
        return _run(snapshot, args.theme, namespace=getattr(args, "namespace", None),
                    discounts=getattr(args, "discounts", None), recording=recording, prepare=prepare)
    follow, offset = None, None
    with _for_the_session():
        snapshot = with_flags(with_flag(load_snapshot(resolve_snapshot_path(args.snapshot)), version), settings)
        if args.logs:
            snapshot = attach_logs(snapshot, args.logs)
            # A plain file keeps growing while Karpenter runs: tail it from where the read ended.
            # Compressed files and stdin do not grow.
            if args.logs != "-" and not str(args.logs).endswith(".gz"):
                follow, offset = str(args.logs), Path(args.logs).stat().st_size
    return _run(snapshot, args.theme, follow, offset, getattr(args, "namespace", None),
                getattr(args, "discounts", None))


def run_demo(args: argparse.Namespace) -> int:
    version, settings = flag_text(args), flags_given(args)
    with _for_the_session():
        snapshot = with_flags(with_flag(load_snapshot(bundled_snapshot()), version), settings)
    return _run(snapshot, args.theme, namespace=getattr(args, "namespace", None),
                discounts=getattr(args, "discounts", None))
