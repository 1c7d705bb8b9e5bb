"""``karptui mcp``: the answers of :mod:`.answers` as Model Context Protocol tools over stdio.

Read-only: every tool reads the one cluster picture the server holds and simulates it; nothing
is written anywhere. Each tool returns the command line's JSON text (``json_text``), cut to the
server's output cap (:mod:`.cap`); bad input is a tool error with the command line's one line.
"""

from __future__ import annotations

import os
import sys
import traceback
from typing import Annotated, Any

import anyio
import mcp_types
from mcp.server.mcpserver import MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import ToolAnnotations
from pydantic import Field, ValidationError

from .. import __version__
from ..errors import ClusterUnavailable, InputError
from ..text import visible
from .answers import MAX_NAME, Answers
from .cap import capped
from .wire import KEEP, Refused, bounded_lines, not_a_request, refuse, stdin_private

#: The longest tool error line: a what-if's error quotes part of the input.
MAX_ERROR = 2000

INSTRUCTIONS = (
    "karptui answers Karpenter and kube-scheduler questions about one Kubernetes cluster picture (a "
    "snapshot or the live cluster, read once): why a pod is Pending, what NodeClaims Karpenter would "
    "launch, why a node is or is not consolidated, how many nodes the NodePools' disruption budgets "
    "allow, and what a what-if change would do. Every answer is simulated, never done: the server "
    "writes nothing to the cluster. Answers are the JSON of the karptui command line "
    "(simulate -o json, budgets -o json, snapshot info -o json).")

#: Bounds said in the schema, checked by the tool itself: its error is the command line's one line,
#: where the SDK's validation error is several lines quoting the input.
_AT_MOST_A_NAME = {"maxLength": MAX_NAME}

READ_ONLY = ToolAnnotations(read_only_hint=True, destructive_hint=False, idempotent_hint=True,
                            open_world_hint=False)


def build_server(answers: Answers, max_output: int) -> MCPServer:
    """The server and its tools over ``answers``; every answer capped at ``max_output`` bytes."""
    server = _Server("karptui", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    def answer(ask, *args, **kwargs) -> str:
        try:
            return capped(ask(*args, **kwargs), max_output)
        except (InputError, ClusterUnavailable) as exc:
            raise ToolError(_line(str(exc))) from None
        except Exception as exc:  # noqa: BLE001 -- a bug is one line to the client, the traceback to stderr
            traceback.print_exc(file=sys.stderr)
            raise ToolError(_line(f"internal error: {type(exc).__name__}: {exc}")) from None

    @server.tool(name="cluster_summary", annotations=READ_ONLY, structured_output=False)
    def cluster_summary() -> str:
        """The cluster picture in numbers, as `karptui snapshot info -o json`: nodes per zone and
        capacity type, pods and Pending pods, NodePools, NodeClaims, workloads, PodDisruptionBudgets,
        FailedScheduling events, requested and allocatable CPU and memory, the Karpenter version
        simulated and where it came from, its controller settings, and the loader's warnings."""
        return answer(answers.summary)

    @server.tool(name="why_pending", annotations=READ_ONLY, structured_output=False)
    def why_pending(
        pod: Annotated[str, Field(description="the Pending pod as namespace/name (a bare name is in the "
                                              "server's -n namespace, else default)", json_schema_extra=_AT_MOST_A_NAME)],
    ) -> str:
        """Why this pod is Pending and what Karpenter would do about it. `pod` is its entry of
        `karptui simulate --explain -o json`: kube-scheduler's FitError (`0/7 nodes are available: ...`)
        and each node's filter failures, `verdict` (what would have to change; the NodeClaim Karpenter
        launches for it, the node still coming up it counts on, or Karpenter's `Failed to schedule
        pod` reason) and `nodepools`, every NodePool in the order Karpenter tries them with its
        verdict (launch, taint not tolerated, incompatible requirements, limits exhausted, ...).
        `observed` is what the cluster said: the pod's PodScheduled message or newest FailedScheduling
        event, and Karpenter's newest logged reason when logs are loaded."""
        return answer(answers.pending, pod)

    @server.tool(name="karpenter_launches", annotations=READ_ONLY, structured_output=False)
    def karpenter_launches() -> str:
        """The NodeClaims Karpenter's provisioning would launch for the Pending pods, as
        `karptui simulate -o json`'s `nodeclaims`: each one's NodePool, requirements, labels, the
        instance types left (cheapest first), the offering launched (instance type, zone, capacity
        type, price) and its pods; `summary` counts scheduled and Pending pods and the cost per hour
        before and after."""
        return answer(answers.launches)

    @server.tool(name="consolidation", annotations=READ_ONLY, structured_output=False)
    def consolidation(
        node: Annotated[str | None, Field(description="a node name; leave out for every Karpenter node",
                                          json_schema_extra=_AT_MOST_A_NAME)] = None,
    ) -> str:
        """Why a node is or is not disrupted by Karpenter, as `karptui simulate --consolidate
        --explain -o json`: the commands Karpenter would run (`disruptions`: delete or replace,
        by which method — emptiness, drift, multi-node or single-node consolidation — and the
        savings), the nodes blocked (a PodDisruptionBudget, a `karpenter.sh/do-not-disrupt` pod or
        node, a spent disruption budget) or left (`unconsolidatable`: can't replace with a cheaper
        node), and `nodes`: each disruption method's verdict on each node with Karpenter's reason
        and what Karpenter's own events said. With `node`, only what concerns that node."""
        return answer(answers.consolidation, node)

    @server.tool(name="node_history", annotations=READ_ONLY, structured_output=False)
    def node_history(
        node: Annotated[str, Field(description="a NodeClaim, node or EC2 instance name",
                                   json_schema_extra=_AT_MOST_A_NAME)],
    ) -> str:
        """Why did this node go, as `karptui history LOG --node X -o json` on the Karpenter log the
        server was started with (`--logs`, or the one the snapshot recorded) and the snapshot's
        events: the NodeClaim's life (created, launched with type, zone, capacity type and price,
        registered, initialized, disrupted by which method and command, drained, terminated or
        interrupted) and one sentence built only from what the lines said."""
        return answer(answers.node_history, node)

    @server.tool(name="disruption_budgets", annotations=READ_ONLY, structured_output=False)
    def disruption_budgets(
        at: Annotated[str | None, Field(description="ISO 8601 time, e.g. 2026-11-27T09:30Z (no offset: UTC); "
                                                    "default: the snapshot's capture time", json_schema_extra={"maxLength": 64})] = None,
        hours: Annotated[int, Field(description="how many hours ahead the timeline goes (0 to 744)")] = 24,
        whatif: Annotated[str | dict[str, Any] | None, Field(description=(
            "a what-if applied first, as run_whatif takes it (budgets --whatif FILE): the NodeClaims its "
            "edits drift are marked Drifted, candidates for reason Drifted"))] = None,
    ) -> str:
        """How many nodes Karpenter may disrupt, per NodePool and disruption reason (Empty, Drifted,
        Underutilized), at `at` and every hour of the next `hours`, as `karptui budgets -o json`:
        each NodePool's `spec.disruption.budgets` (nodes, schedule, duration, reasons), whether each
        is active and when it next starts or ends, the nodes allowed (less those already disrupting)
        and the candidates each holds back. With `whatif`, after that change (`karptui check`'s
        budgets)."""
        return answer(answers.budgets, at, hours, whatif)

    @server.tool(name="run_whatif", annotations=READ_ONLY, structured_output=False)
    def run_whatif(
        whatif: Annotated[str | dict[str, Any], Field(description=(
            "a karptui what-if (apiVersion: karptui/v1, kind: WhatIf, edits: [...]) as YAML or JSON text or "
            "as the object: patch, scale, cordon or remove a Deployment, StatefulSet, DaemonSet, Job, "
            "PodDisruptionBudget, NodePool, EC2NodeClass or Node; addNodes; featureGates; karpenterVersion"))],
        consolidate: Annotated[bool, Field(description="also simulate Karpenter's disruption "
                                                       "(simulate --consolidate)")] = False,
        explain: Annotated[bool, Field(description="pod by pod and node by node why (simulate --explain); "
                                                   "a much longer answer")] = False,
    ) -> str:
        """Simulate a change before making it, as `karptui simulate --whatif FILE -o json`: the edits
        are applied as Kubernetes' controllers would (a scale adds or deletes pods, a template change
        rolls out, a node's removal drains it honouring PodDisruptionBudgets, a NodePool template
        change drifts NodeClaims), then kube-scheduler and Karpenter are simulated. `whatif.diff`
        compares with the cluster as it is (pods newly scheduled or Pending, NodeClaims and
        disruptions added or removed, the cost per hour); `whatif.drift` lists the NodeClaims that
        would drift and what replaces them. A bad what-if is one line naming the edit."""
        return answer(answers.whatif, whatif, consolidate=consolidate, explain=explain)

    return server


class _Server(MCPServer):
    """The SDK's server, with two things said as karptui says them: arguments of the wrong type
    (the SDK's pydantic error is several lines quoting the input) and a request line the wire
    refuses (:mod:`.wire`; the SDK would drop it unanswered)."""

    async def call_tool(self, name: str, arguments: dict[str, Any], context=None):
        try:
            return await super().call_tool(name, arguments, context)
        except ToolError as exc:
            if isinstance(exc.__cause__, ValidationError):
                raise ToolError(f"Error executing tool {name}: {_line(wrong_arguments(exc.__cause__))}") \
                    from exc.__cause__
            raise

    async def run_stdio_async(self) -> None:
        """The SDK's stdio transport, fed by :func:`.wire.bounded_lines` instead of stdin's lines."""
        stdin = os.fdopen(stdin_private(), "rb", buffering=0)
        replies: list = []   # the transport's write stream, once open

        async def read(size: int) -> bytes:
            return await anyio.to_thread.run_sync(stdin.read, size, abandon_on_cancel=True)

        async def refused(line: Refused) -> None:
            print(f"karptui mcp: request refused: {line.why}", file=sys.stderr, flush=True)
            reply = line.reply()
            if reply is not None and replies:
                try:
                    await replies[0].send(SessionMessage(mcp_types.jsonrpc_message_adapter.validate_python(reply)))
                except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                    pass

        async def lines():
            async for line in bounded_lines(read, refused):
                try:  # the SDK parses it again; a line it cannot parse it would drop unanswered
                    mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False)
                except ValidationError as exc:
                    why, code = not_a_request(exc)
                    await refused(refuse(line[:KEEP], line[-KEEP:], why, code))
                    continue
                yield line

        async with stdio_server(stdin=_Lines(lines())) as (read_stream, write_stream):
            replies.append(write_stream)
            await self._lowlevel_server.run(read_stream, write_stream,
                                            self._lowlevel_server.create_initialization_options())


class _Lines:
    """What the SDK's transport iterates over (``async for line in stdin``)."""

    def __init__(self, lines) -> None:
        self._lines = lines

    def __aiter__(self):
        return self._lines


#: What a tool argument of the wrong type should have been, by pydantic's error type.
_EXPECTED = {"string_type": "a string", "int_type": "a whole number", "int_parsing": "a whole number",
             "int_from_float": "a whole number", "bool_type": "true or false", "bool_parsing": "true or false",
             "dict_type": "an object", "model_type": "an object", "list_type": "a list", "none_required": "null",
             "float_type": "a number", "float_parsing": "a number"}


def wrong_arguments(error: ValidationError) -> str:
    """The SDK's argument validation error as one line per argument, joined: ``hours: expected a
    whole number, got a string``; a union's alternatives said together (``a string or an
    object``). The input is named by its JSON type, never quoted: it is the caller's data."""
    by_argument: dict[str, list[dict]] = {}
    for item in error.errors():
        loc = item.get("loc") or ("arguments",)
        by_argument.setdefault(str(loc[0]), []).append(item)
    said = []
    for argument, items in by_argument.items():
        if any(i["type"] == "missing" for i in items):
            said.append(f"{argument}: missing (required)")
            continue
        expected = list(dict.fromkeys(_EXPECTED.get(i["type"], i["msg"].split("\n")[0].lower()) for i in items))
        said.append(f"{argument}: expected {' or '.join(expected)}, got {_json_type(items[0].get('input'))}")
    return "; ".join(said)


def _json_type(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "a list"
    return type(value).__name__


def _line(text: str) -> str:
    """One line, nothing a terminal or a renderer would act on, bounded."""
    line = " ".join(visible(text).split("\n"))
    return line if len(line) <= MAX_ERROR else line[:MAX_ERROR] + " ..."


def serve(answers: Answers, max_output: int) -> int:
    """Serve until the client closes stdin."""
    build_server(answers, max_output).run("stdio")
    return 0
