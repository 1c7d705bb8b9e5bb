"""Argument parsing; each subcommand's ``run`` lives in its own module."""

from __future__ import annotations

import argparse
import sys
from typing import NoReturn

from .. import __version__
from ..text import visible
from .karpenter_settings import add_flags as _karpenter_settings
from .karpenter_version import add_flag as _karpenter_version
from ..mcp.cap import DEFAULT_MAX_OUTPUT


class OneLineParser(argparse.ArgumentParser):
    """argparse that reports a usage error in one line (and exit status 2)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, f"{self.prog}: error: {visible(message)} (see --help)\n")  # it quotes argv


DISCOUNTS_HELP = ("discounts on the prices shown (Savings Plans, EDP), overall and per instance family: a YAML "
                  "file (docs/catalog-files.md); default: discounts.yaml in karptui's config dir if it exists")


def _simulation_options(command: argparse.ArgumentParser) -> None:
    """What every command that simulates takes: -n, --discounts, the Karpenter version and settings
    (the last two may also come before the command, so not reset here)."""
    _namespace(command)
    _discounts(command)
    _karpenter_version(command, suppress=True)
    _karpenter_settings(command, suppress=True)


def _discounts(command: argparse.ArgumentParser) -> None:
    """``--discounts FILE`` after the command too; SUPPRESS: given before it, it must not be reset."""
    command.add_argument("--discounts", metavar="FILE", default=argparse.SUPPRESS, help=DISCOUNTS_HELP)


NAMESPACE_HELP = ("only show pods of this namespace (live: only its pods are read; a snapshot: the panes and "
                  "`simulate` show its pods, while the simulation still runs on the whole cluster)")


def _namespace(command: argparse.ArgumentParser) -> None:
    """``-n NS`` after the command too; SUPPRESS: given before it (a global option) it must not be reset."""
    command.add_argument("-n", "--namespace", metavar="NS", default=argparse.SUPPRESS, help=NAMESPACE_HELP)


def _lazy(module: str, function: str):
    """Import a subcommand only when it runs: the TUI costs ~150 ms to import."""

    def run(args: argparse.Namespace) -> int:
        import importlib

        return getattr(importlib.import_module(module, __package__), function)(args)

    return run


def build_parser() -> OneLineParser:
    parser = OneLineParser(
        prog="karptui",
        description="Why is this pod pending, what will Karpenter do, and what if I change this constraint?",
    )
    parser.add_argument("--version", action="version", version=f"karptui {__version__}")
    parser.add_argument("--context", help="kubeconfig context (default: the current context)")
    parser.add_argument("--kubeconfig", metavar="F", help="kubeconfig file (default: $KUBECONFIG or ~/.kube/config)")
    parser.add_argument("-n", "--namespace", metavar="NS", help=NAMESPACE_HELP)
    parser.add_argument("--readonly", action="store_true",
                        help="accepted for k9s habits: karptui never writes to the cluster (it only lists and watches)")
    parser.add_argument("--theme", metavar="NAME", help="colour theme (karptui-dark, karptui-light, "
                        "karptui-high-contrast, karptui-colorblind, or one in your config dir)")
    parser.add_argument("--logs-since", metavar="DURATION", default=None,
                        help="live: how far back to start the Karpenter log (default 10m; 0: no logs)")
    parser.add_argument("--discounts", metavar="FILE", help=DISCOUNTS_HELP)
    _karpenter_version(parser)
    _karpenter_settings(parser)
    parser.set_defaults(run=_lazy(".live", "run_live"))
    commands = parser.add_subparsers(title="commands", metavar="COMMAND", parser_class=OneLineParser)

    open_cmd = commands.add_parser("open", help="explore a saved snapshot, kubectl dump or recording")
    open_cmd.add_argument("snapshot", metavar="SNAPSHOT", help="file, directory, bundled snapshot name, or a recording (karptui record)")
    open_cmd.add_argument("--logs", metavar="FILE", help="Karpenter controller log file to attach (a plain file is followed as it grows)")
    _namespace(open_cmd)
    _discounts(open_cmd)
    _karpenter_version(open_cmd, suppress=True)
    _karpenter_settings(open_cmd, suppress=True)
    open_cmd.set_defaults(run=_lazy(".tui", "run_open"))

    demo = commands.add_parser("demo", help="explore the bundled example snapshot")
    _namespace(demo)
    _discounts(demo)
    _karpenter_version(demo, suppress=True)
    _karpenter_settings(demo, suppress=True)
    demo.set_defaults(run=_lazy(".tui", "run_demo"))

    snapshot = commands.add_parser("snapshot", help="inspect snapshot files")
    snapshot_cmds = snapshot.add_subparsers(title="snapshot commands", metavar="COMMAND", parser_class=OneLineParser)
    snapshot.set_defaults(run=lambda args: _usage(snapshot))
    save = snapshot_cmds.add_parser("save", help="capture the live cluster (and recent Karpenter logs) to a file")
    save.add_argument("out", metavar="OUT", help="file to write: .yaml or .json, optionally .gz")
    # SUPPRESS: given before "snapshot" (the global options) they must not be reset here
    save.add_argument("--context", default=argparse.SUPPRESS, help="kubeconfig context")
    save.add_argument("--kubeconfig", metavar="F", default=argparse.SUPPRESS, help="kubeconfig file")
    save.add_argument("--logs-since", metavar="DURATION", default=None,
                      help="how much Karpenter log to include (default 1h; 0: none)")
    save.set_defaults(run=_lazy(".live", "run_snapshot_save"))
    record = commands.add_parser("record", help="record the live cluster's changes and Karpenter's log to a "
                                 "directory (open it with karptui open OUT)")
    record.add_argument("out", metavar="OUT", help="directory to create (or an empty one)")
    record.add_argument("--every", metavar="DURATION", default="5m", help="interval between segments (default 5m)")
    record.add_argument("--for", dest="duration", metavar="DURATION", default=None,
                        help="stop after this long (default: until interrupted)")
    record.add_argument("--max-size", metavar="SIZE", default="1GiB",
                        help="cap on the directory's size: the oldest intervals are dropped beyond it "
                             "(default 1GiB; 0: no cap)")
    record.add_argument("--checkpoint-every", metavar="DURATION", default="1h",
                        help="the state written whole at most this often, when the intervals since hold half "
                             "a state's bytes: opening or scrubbing then replays only from it (default 1h; 0: never)")
    record.add_argument("--context", default=argparse.SUPPRESS, help="kubeconfig context")
    record.add_argument("--kubeconfig", metavar="F", default=argparse.SUPPRESS, help="kubeconfig file")
    record.add_argument("--logs-since", metavar="DURATION", default=None,
                        help="how much Karpenter log before the start to include (default 1h; 0: no logs)")
    record.set_defaults(run=_lazy(".record", "run_record"))
    info = snapshot_cmds.add_parser("info", help="summarise a snapshot: counts, zones, warnings")
    info.add_argument("snapshot", metavar="SNAPSHOT", help="file, directory, or bundled snapshot name")
    info.add_argument("--output", "-o", choices=("table", "json"), default="table")
    info.set_defaults(run=_lazy(".info", "run_info"))
    sim = commands.add_parser("simulate", help="schedule the pending pods as kube-scheduler would")
    sim.add_argument("snapshot", metavar="SNAPSHOT", help="file, directory, or bundled snapshot name")
    sim.add_argument("--whatif", metavar="FILE", help="apply this what-if file first")
    sim.add_argument("--instance-types", metavar="FILE", help="instance-type catalog (default: bundled EC2 data)")
    sim.add_argument("--consolidate", action="store_true", help="also simulate Karpenter consolidation")
    sim.add_argument("--explain", action="store_true",
                     help="why, pod by pod: kube-scheduler's reason, what would have to change, what Karpenter "
                          "would do (and in JSON every node's filter verdict)")
    sim.add_argument("--feature-gates", metavar="K=V,...", help="Karpenter feature gates, e.g. SpotToSpotConsolidation=true")
    sim.add_argument("--output", "-o", choices=("table", "json"), default="table")
    _simulation_options(sim)
    sim.set_defaults(run=_lazy(".simulate", "run_simulate"))
    budgets = commands.add_parser("budgets", help="disruption budgets per NodePool and reason, now and hour by hour")
    budgets.add_argument("snapshot", metavar="SNAPSHOT", help="file, directory, or bundled snapshot name")
    budgets.add_argument("--at", metavar="TIME", help="ISO 8601 time to ask at (default: the snapshot's capture time)")
    budgets.add_argument("--hours", type=int, default=24, help="how far ahead the timeline goes (default 24)")
    budgets.add_argument("--whatif", metavar="FILE", help="apply this what-if file first")
    budgets.add_argument("--instance-types", metavar="FILE", help="instance-type catalog (default: bundled EC2 data)")
    budgets.add_argument("--feature-gates", metavar="K=V,...",
                         help="Karpenter feature gates, e.g. NodeRepair=true (reason Unhealthy from v1.15)")
    budgets.add_argument("--output", "-o", choices=("table", "json"), default="table")
    _karpenter_version(budgets, suppress=True)
    _karpenter_settings(budgets, suppress=True)
    budgets.set_defaults(run=_lazy(".budgets", "run_budgets"))
    check = commands.add_parser("check", help="review a change for CI: what a what-if or changed manifests "
                                              "would drift, leave pending, launch and cost (docs/ci.md)")
    check.add_argument("snapshot", metavar="SNAPSHOT", nargs="?",
                       help="file, directory, or bundled snapshot name (default: the live cluster, read once "
                            "as `snapshot save` reads it)")
    # SUPPRESS: given before "check" (the global options) they must not be reset here
    check.add_argument("--context", default=argparse.SUPPRESS, help="kubeconfig context (no SNAPSHOT: live)")
    check.add_argument("--kubeconfig", metavar="F", default=argparse.SUPPRESS, help="kubeconfig file")
    check.add_argument("--whatif", metavar="FILE", help="the change: a what-if file")
    check.add_argument("--apply", metavar="MANIFEST", nargs="+", action="extend",
                       help="the change: manifests applied as `kubectl apply -f` would (NodePool, EC2NodeClass, "
                            "Deployment...; multi-document YAML)")
    check.add_argument("--at", metavar="TIME", help="ISO 8601 time the change lands: the budgets window and "
                                                   "Karpenter's simulated disruption are asked then (default: the "
                                                   "snapshot's capture time)")
    check.add_argument("--fail-on", metavar="COND,...", action="append",
                       help="thresholds that make the exit status 3: drift>N, pending>N, launches>N, cost>+5%%, "
                            "cost>+10/h, cost>+500/mo (> or >=)")
    check.add_argument("--instance-types", metavar="FILE", help="instance-type catalog (default: bundled EC2 data)")
    check.add_argument("--consolidate", action="store_true", help="also simulate Karpenter consolidation")
    check.add_argument("--feature-gates", metavar="K=V,...", help="Karpenter feature gates, e.g. SpotToSpotConsolidation=true")
    check.add_argument("--output", "-o", choices=("table", "markdown", "json"), default="table")
    _simulation_options(check)
    check.set_defaults(run=_lazy(".check", "run_check"))
    mcp = commands.add_parser("mcp", help="serve karptui's answers to AI assistants: a Model Context Protocol "
                                          "server over stdio, read-only (docs/mcp.md)")
    mcp.add_argument("snapshot", metavar="SNAPSHOT", nargs="?",
                     help="file, directory, or bundled snapshot name (default: the live cluster, read once)")
    mcp.add_argument("--logs", metavar="FILE", help="Karpenter controller log file to attach to SNAPSHOT")
    # SUPPRESS: given before "mcp" (the global options) they must not be reset here
    mcp.add_argument("--context", default=argparse.SUPPRESS, help="kubeconfig context")
    mcp.add_argument("--kubeconfig", metavar="F", default=argparse.SUPPRESS, help="kubeconfig file")
    mcp.add_argument("--logs-since", metavar="DURATION", default=argparse.SUPPRESS,
                     help="live: how much Karpenter log to read (default 1h; 0: none)")
    mcp.add_argument("--instance-types", metavar="FILE", help="instance-type catalog (default: bundled EC2 data)")
    mcp.add_argument("--feature-gates", metavar="K=V,...", help="Karpenter feature gates, e.g. SpotToSpotConsolidation=true")
    mcp.add_argument("--max-output", metavar="BYTES", type=int, default=DEFAULT_MAX_OUTPUT,
                     help=f"the most bytes of JSON one answer returns; a longer one is cut and says so "
                          f"(default {DEFAULT_MAX_OUTPUT:,})")
    _simulation_options(mcp)
    mcp.set_defaults(run=_lazy(".mcp", "run_mcp"))
    history = commands.add_parser("history", help="what Karpenter did: every NodeClaim's life, replacement chains, "
                                                  "churn, pending pods and cost over time, from its logs and events")
    history.add_argument("logs", metavar="LOG", nargs="*", help="Karpenter controller log file(s), maybe gzipped, "
                                                                "in time order; - for stdin (none: --snapshot "
                                                                "a recording's own)")
    history.add_argument("--events", metavar="FILE", help="a `kubectl get events -o json|yaml` file")
    history.add_argument("--snapshot", metavar="S", help="a snapshot (file, directory or bundled name) whose events "
                                                         "to read as well")
    history.add_argument("--audit", action="store_true", help="with --snapshot: would karptui have taken each "
                                                               "disruption decision at its moment? (docs/history.md)")
    history.add_argument("--since", metavar="T", help="RFC 3339 time, or a duration (24h) before the input's last line")
    history.add_argument("--until", metavar="T", help="RFC 3339 time, or a duration before the input's last line")
    history.add_argument("--node", metavar="X", help="why did this NodeClaim, node or instance go: one answer")
    history.add_argument("--short-lived", metavar="DURATION", help="list NodeClaims that lived less than this "
                                                                    "(default 30m)")
    history.add_argument("--instance-types", metavar="FILE", help="instance-type catalog for prices (default: "
                                                                   "bundled EC2 data in the log's region)")
    history.add_argument("--output", "-o", choices=("table", "json", "csv"), default="table")
    history.add_argument("--feature-gates", metavar="K=V,...", help="--audit: Karpenter feature gates, e.g. "
                                                                     "SpotToSpotConsolidation=true")
    _discounts(history)
    _karpenter_version(history, suppress=True)
    _karpenter_settings(history, suppress=True)
    history.set_defaults(run=_lazy(".history", "run_history"))
    serve = commands.add_parser("serve", help="the TUI in a browser (textual-serve), read-only, on 127.0.0.1 "
                                              "unless --host says otherwise (docs/serve.md)")
    serve.add_argument("snapshot", metavar="SNAPSHOT", nargs="?",
                       help="file, directory, or bundled snapshot name (default: the live cluster, each browser "
                            "session watching it as the TUI does)")
    serve.add_argument("--logs", metavar="FILE", help="Karpenter controller log file to attach to SNAPSHOT")
    # SUPPRESS: given before "serve" (the global options) they must not be reset here
    serve.add_argument("--context", default=argparse.SUPPRESS, help="kubeconfig context")
    serve.add_argument("--kubeconfig", metavar="F", default=argparse.SUPPRESS, help="kubeconfig file")
    serve.add_argument("--logs-since", metavar="DURATION", default=argparse.SUPPRESS,
                       help="live: how far back to start the Karpenter log (default 10m; 0: no logs)")
    serve.add_argument("--host", default="127.0.0.1",
                       help="address to listen on (default 127.0.0.1: only this machine, e.g. through an SSH "
                            "tunnel; any other is said in a warning: anyone who reaches the port sees the cluster)")
    serve.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000)")
    serve.add_argument("--public-url", metavar="URL",
                       help="the address browsers use to reach the server, when not http://HOST:PORT "
                            "(a proxy, a DNS name)")
    _simulation_options(serve)
    serve.set_defaults(run=_lazy(".serve", "run_serve"))
    logs = commands.add_parser("logs", help="Karpenter controller logs")
    logs_cmds = logs.add_subparsers(title="logs commands", metavar="COMMAND", parser_class=OneLineParser)
    logs.set_defaults(run=lambda args: _usage(logs))
    parse = logs_cmds.add_parser("parse", help="every recognised Karpenter event in a log file or stdin")
    parse.add_argument("file", metavar="FILE|-", help="log file (maybe gzipped), or - for stdin")
    parse.add_argument("--output", "-o", choices=("table", "jsonl"), default="table")
    parse.set_defaults(run=_lazy(".logs", "run_logs_parse"))
    return parser


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_usage(sys.stderr)
    return 2
