"""``karptui serve [SNAPSHOT] [--host H] [--port P] [--public-url URL] [...]``: the TUI in a browser
(docs/serve.md), through ``textual-serve``.

textual-serve starts one process per browser session and runs it through a shell; that process
is karptui's own TUI on the same source (``karptui open SNAPSHOT`` or the live cluster) with the
same flags. The command is built as a list and joined with :func:`shlex.join`, so a snapshot path
or a flag value is one word to the shell whatever it holds.

Every flag and the source itself are checked once, before the server starts: a bad one is one line
and exit status 2 here, not a page that says "Session ended" in every browser.
"""

from __future__ import annotations

import argparse
import ipaddress
import shlex
import sys
from pathlib import Path

from ..errors import InputError
from ..text import visible, visible_lines
from .output import say

INSTALL = ("karptui serve needs textual-serve: pip install 'karptui[serve]' "
           "(or pip install 'textual-serve>=1.1,<2')")
#: What textual-serve brings: an import error from one of these means it is not installed (or broken).
SERVE_MODULES = ("textual_serve", "aiohttp", "aiohttp_jinja2", "jinja2", "multidict", "yarl")
TITLE = "karptui"


def is_loopback(host: str) -> bool:
    """Only this machine can reach ``host``: ``localhost`` or a loopback address."""
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


def public_url(host: str, port: int, given: str | None) -> str:
    """Where browsers reach the server: the page tells them to open its websocket there."""
    if given:
        return given.rstrip("/")
    name = f"[{host.strip('[]')}]" if ":" in host else host
    return f"http://{name}:{port}"


def karptui_argv() -> list[str]:
    """How to start this karptui again. The single-file build is its own interpreter
    (``sys.executable`` is the karptui binary). A Python install runs this very package, from the
    folder it was imported from: ``-P`` keeps the session's working folder off ``sys.path``, where
    another checkout's ``karptui`` would be found first."""
    if getattr(sys, "frozen", False):
        return [sys.executable]
    home = str(Path(__file__).resolve().parents[2])
    boot = f"import sys; sys.path.insert(0, {home!r}); from karptui.__main__ import main; sys.exit(main())"
    return [sys.executable, "-P", "-c", boot]


def _absolute(path: str | Path) -> str:
    return str(Path(path).expanduser().absolute())


def session_argv(args: argparse.Namespace, snapshot: Path | None) -> list[str]:
    """The command a browser session runs: the TUI on ``snapshot`` (None: the live cluster) with the
    flags ``serve`` was given. Options the top-level parser takes go before the command, where
    ``karptui`` and ``karptui open`` both read them; paths are made absolute."""
    from .karpenter_settings import as_argv

    argv = karptui_argv()
    if args.theme:
        argv += ["--theme", args.theme]
    namespace = getattr(args, "namespace", None)
    if namespace:
        argv += ["--namespace", namespace]
    discounts = getattr(args, "discounts", None)
    if discounts:
        argv += ["--discounts", _absolute(discounts)]
    version = getattr(args, "karpenter_version", None)
    if version:
        argv += ["--karpenter-version", version]
    argv += as_argv(args)
    if snapshot is not None:
        argv += ["open", str(snapshot)]
        if args.logs:
            argv += ["--logs", _absolute(args.logs)]
        return argv
    if getattr(args, "context", None):
        argv += ["--context", args.context]
    if getattr(args, "kubeconfig", None):
        argv += ["--kubeconfig", _absolute(args.kubeconfig)]
    if getattr(args, "logs_since", None) is not None:
        argv += ["--logs-since", args.logs_since]
    return argv


def _check_source(args: argparse.Namespace) -> Path | None:
    """The snapshot (absolute), loaded once to find a bad one now; None for the live cluster, whose
    credentials and API server are tried once now."""
    if args.snapshot:
        from ..sources import load_snapshot, resolve_snapshot_path

        path = resolve_snapshot_path(args.snapshot)
        snapshot = load_snapshot(path)  # errors name the path as given
        if args.logs:
            if args.logs == "-":
                raise InputError("--logs", "a served session reads its keys from standard input: give the log "
                                           "as a file")
            from ..sources.logs import attach_logs

            attach_logs(snapshot, args.logs)
        return Path(_absolute(path))
    if args.logs:
        raise InputError("--logs", "attaches a log to a SNAPSHOT; live, Karpenter's log is read from the "
                                   "cluster (--logs-since)")
    from .live import check_connection, logs_since

    logs_since(getattr(args, "logs_since", None), 600.0)
    check_connection(args, getattr(args, "namespace", None))
    return None


def _check_flags(args: argparse.Namespace) -> None:
    from ..catalog.discounts import find_discounts
    from .karpenter_settings import flags_given
    from .karpenter_version import flag_text

    if not 1 <= args.port <= 65535:
        raise InputError("--port", f"{args.port} is not a port number (1-65535)")
    if args.public_url and not args.public_url.startswith(("http://", "https://")):
        raise InputError("--public-url", f"{args.public_url!r} does not start with http:// or https://")
    if args.theme:
        from ..tui.themes import check_theme_name

        check_theme_name(args.theme)
    flag_text(args)
    flags_given(args)
    find_discounts(getattr(args, "discounts", None))


def _server_class():
    import asyncio
    import signal

    from aiohttp import web
    from textual_serve import server as textual_server
    from textual_serve.app_service import AppService
    from textual_serve.server import Server

    class KarptuiSession(AppService):
        """One browser session's TUI. When its process ends without saying so (it failed to start,
        the cluster's credentials expired), the page is told the session ended, instead of staying
        blank with the connection open; what the process said on stderr is on the server's output."""

        async def run(self) -> None:
            try:
                await super().run()
            except asyncio.CancelledError:
                # textual-serve 1.1 cancels its stderr reader at the end and awaits it, which
                # raises here when the reader had not started: the session is over all the same.
                if asyncio.current_task().cancelling():
                    raise
            # what the process said on stderr after textual-serve stopped reading it (its one line)
            if self._process is not None and self._process.stderr is not None:
                rest = await self._process.stderr.read()
                if rest:
                    print(visible_lines(rest.decode("utf-8", "replace").splitlines()))
                    sys.stdout.flush()
            await self.remote_close()

    textual_server.AppService = KarptuiSession  # the name the server makes each session with

    class KarptuiServer(Server):
        """textual-serve's server, saying what it serves in one plain line once it listens (its
        own banner comes before, and reads the command, a snapshot path, as Rich markup); a port
        that cannot be bound is an OSError out of :meth:`serve`."""

        what = ""

        async def on_startup(self, app) -> None:
            pass

        def serve(self, debug: bool = False) -> None:
            self.debug = debug
            self.initialize_logging()
            asyncio.run(self._listen())

        async def _listen(self) -> None:
            runner = web.AppRunner(await self._make_app(), handle_signals=False)
            await runner.setup()
            try:
                await web.TCPSite(runner, self.host, self.port).start()
                print(visible(f"karptui: serving {self.what} on {self.public_url} (Ctrl+C stops it)"), flush=True)
                stop = asyncio.Event()
                loop = asyncio.get_running_loop()
                for sig in (signal.SIGINT, signal.SIGTERM):
                    loop.add_signal_handler(sig, stop.set)
                await stop.wait()
            finally:
                await runner.cleanup()  # each session's TUI is told to quit

    return KarptuiServer


def run_serve(args: argparse.Namespace) -> int:
    try:
        server_class = _server_class()
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in SERVE_MODULES:
            raise
        raise InputError(None, INSTALL) from None
    _check_flags(args)
    snapshot = _check_source(args)
    url = public_url(args.host, args.port, args.public_url)
    if not is_loopback(args.host):
        say(f"karptui: warning: serving on {args.host}:{args.port}: anyone who can reach this port sees the "
            f"cluster (browsers are told to connect to {url}; --public-url changes it)")
    server = server_class(shlex.join(session_argv(args, snapshot)), host=args.host, port=args.port,
                          title=TITLE, public_url=url)
    # as the user named it: a bundled snapshot's path is inside the package (or the executable's unpacked files)
    server.what = f"the snapshot {args.snapshot}" if snapshot is not None else "the live cluster"
    try:
        server.serve()
    except OSError as exc:  # the port is taken, the address is not this machine's
        raise InputError(f"--host {args.host} --port {args.port}", exc.strerror or str(exc)) from None
    return 0
