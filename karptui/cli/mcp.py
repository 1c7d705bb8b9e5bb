"""``karptui mcp [SNAPSHOT] [--logs FILE] [--max-output BYTES] [...]``: karptui's answers as a Model
Context Protocol server over stdio (docs/mcp.md).

Every flag is checked before the server starts (a bad one is one line and exit status 2, as
elsewhere); the snapshot or the live cluster is read on the first tool call, so a client starting
the server does not wait for a big cluster's listing.
"""

from __future__ import annotations

import argparse
from functools import partial

from ..errors import InputError
from ..mcp.cap import DEFAULT_MAX_OUTPUT, MIN_MAX_OUTPUT
from .karpenter_settings import flags_given, with_flags
from .karpenter_version import flag_text, with_flag
from .simulate import feature_gates

INSTALL = "karptui mcp needs the MCP Python SDK: pip install 'karptui[mcp]' (or pip install 'mcp>=2.3,<3')"
#: What the SDK brings: an import error from one of these means it is not installed (or broken).
SDK_MODULES = ("mcp", "mcp_types", "pydantic", "pydantic_core", "anyio", "starlette", "httpx2")
#: The largest answer ``--max-output`` allows: the cap on a what-if file, the largest input karptui takes.
MAX_MAX_OUTPUT = 64 << 20


def run_mcp(args: argparse.Namespace) -> int:
    try:
        from ..mcp.server import serve
    except ImportError as exc:
        if (exc.name or "").split(".")[0] not in SDK_MODULES:
            raise
        raise InputError(None, INSTALL) from None
    if not MIN_MAX_OUTPUT <= args.max_output <= MAX_MAX_OUTPUT:
        raise InputError("--max-output", f"{args.max_output:,} is not between {MIN_MAX_OUTPUT:,} and "
                                         f"{MAX_MAX_OUTPUT:,} bytes")
    version, settings = flag_text(args), flags_given(args)
    gates = feature_gates(args.feature_gates)
    discounts = getattr(args, "discounts", None)
    if discounts:
        from ..catalog.discounts import find_discounts

        find_discounts(discounts)  # a bad file is one line now, not on the first call
    namespace = getattr(args, "namespace", None)
    if args.snapshot:
        from ..sources import resolve_snapshot_path
        from ..sources.files import snapshot_files

        path = resolve_snapshot_path(args.snapshot)
        snapshot_files(path)  # a missing file or an empty directory: one line now, not on the first call
        load = partial(_from_file, path, args.logs)
    else:
        if args.logs:
            raise InputError("--logs", "attaches a log to a SNAPSHOT; live, Karpenter's log is read from the "
                                       "cluster (--logs-since)")
        from .live import logs_since

        logs_since(getattr(args, "logs_since", None), 3600.0)  # a bad duration: one line now
        load = partial(_live, args, namespace)
    from ..mcp.answers import Answers

    answers = Answers(lambda: with_flags(with_flag(load(), version), settings), gates=gates,
                      instance_types=args.instance_types, discounts=discounts, namespace=namespace)
    return serve(answers, args.max_output)


def _from_file(path, logs: str | None):
    from ..sources import load_snapshot
    from ..sources.logs import attach_logs

    snapshot = load_snapshot(path)
    return attach_logs(snapshot, logs) if logs else snapshot


def _live(args: argparse.Namespace, namespace: str | None):
    from .live import captured_snapshot

    return captured_snapshot(args, namespace)


__all__ = ["DEFAULT_MAX_OUTPUT", "INSTALL", "run_mcp"]
