"""``karptui mcp`` through a real MCP client session: the SDK's ``stdio_client`` and ``ClientSession``
start ``python -m karptui mcp SNAPSHOT`` and ask it what the command line answers, and the answers
are compared with what the command line prints for the same question (docs/mcp.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from contextlib import asynccontextmanager

import pytest
import yaml

from tests.conftest import FIXTURES, REPO, node_obj, pod_obj
from tests.fakeapi import FakeAPI

mcp = pytest.importorskip("mcp", reason="karptui mcp needs the MCP SDK (the test extra installs it)")
from mcp import ClientSession, StdioServerParameters, stdio_client  # noqa: E402

TOOLS = {"cluster_summary", "why_pending", "karpenter_launches", "consolidation", "node_history", "disruption_budgets",
         "run_whatif"}


@pytest.fixture
def serve(tmp_path, config_dir):
    """``async with serve(ARGS...) as session``: a client session with ``karptui mcp ARGS``."""

    @asynccontextmanager
    async def _serve(*args: str):
        params = StdioServerParameters(command=sys.executable, args=["-m", "karptui", "mcp", *args], cwd=str(REPO),
                                       env={"KARPTUI_CONFIG_DIR": str(config_dir)})
        with open(tmp_path / "server-stderr.txt", "w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                async with ClientSession(read, write) as session:
                    await session.initialize()
                    yield session

    return _serve


async def ask(session, tool: str, **arguments) -> dict:
    """A tool's answer, which must not be an error, as the JSON document it is."""
    result = await session.call_tool(tool, arguments)
    text = result.content[0].text
    assert not result.is_error, text
    return json.loads(text)


async def refused(session, tool: str, **arguments) -> str:
    """A tool's error line."""
    result = await session.call_tool(tool, arguments)
    assert result.is_error, result.content[0].text[:300]
    (content,) = result.content
    return content.text


def printed(cli, *args) -> dict:
    """What ``karptui ARGS -o json`` prints, parsed."""
    code, out, err = cli(*args, "-o", "json")
    assert code == 0, err
    return json.loads(out)


async def test_the_tools_are_listed_read_only_in_kubernetes_words(serve):
    async with serve("topology-spread") as session:
        tools = {t.name: t for t in (await session.list_tools()).tools}
    assert set(tools) == TOOLS
    for tool in tools.values():
        assert tool.annotations.read_only_hint is True and tool.annotations.destructive_hint is False
    assert "FitError" in tools["why_pending"].description and "NodePool" in tools["why_pending"].description
    assert "NodeClaims" in tools["karpenter_launches"].description
    assert "karpenter.sh/do-not-disrupt" in tools["consolidation"].description
    assert tools["why_pending"].input_schema["required"] == ["pod"]
    assert tools["why_pending"].input_schema["properties"]["pod"]["maxLength"] == 63 + 1 + 253


async def test_every_answer_on_topology_spread_is_the_command_lines(serve, cli):
    """Pending pods (one with Karpenter's logged reason), launches, disruption, budgets: the same
    JSON as ``snapshot info``, ``simulate [--explain] [--consolidate]`` and ``budgets``."""
    explained = printed(cli, "simulate", "topology-spread", "--explain")
    plain = printed(cli, "simulate", "topology-spread")
    disrupted = printed(cli, "simulate", "topology-spread", "--consolidate", "--explain")
    budgets = printed(cli, "budgets", "topology-spread", "--at", "2023-05-20T13:00Z", "--hours", "6")
    async with serve("topology-spread") as session:
        assert await ask(session, "cluster_summary") == printed(cli, "snapshot", "info", "topology-spread")
        assert len(explained["pods"]) == 6
        for pod in explained["pods"]:
            answer = await ask(session, "why_pending", pod=pod["pod"])
            assert answer["pod"] == pod
            assert answer["karpenter_version"] == explained["karpenter_version"]
            assert answer["observed"]["kube_scheduler"].startswith("0/9 nodes are available")
        logged = await ask(session, "why_pending", pod="host-spread-fbbf7c9d9-x4lfd")  # a bare name: default/
        assert logged["observed"]["karpenter"].startswith('incompatible with nodepool "default", no instance type')
        assert logged["observed"]["karpenter_time"] == "2023-05-20T11:04:41.917Z"
        assert logged["pod"]["nodepools"] and logged["pod"]["verdict"]["kube_scheduler"].startswith("0/9 nodes")

        launches = await ask(session, "karpenter_launches")
        assert launches["nodeclaims"] == plain["nodeclaims"] and launches["nodeclaims"]
        assert launches["summary"] == plain["summary"] and launches["feature_gates"] == plain["feature_gates"]

        every = await ask(session, "consolidation")
        for key in ("disruptions", "blocked", "unconsolidatable", "consolidation_scores", "nodes", "summary"):
            assert every[key] == disrupted[key], key
        for node in disrupted["nodes"]:
            one = await ask(session, "consolidation", node=node["node"])
            assert one["nodes"] == [node]
            assert one["disruptions"] == [d for d in disrupted["disruptions"] if node["node"] in d["nodes"]]
            assert one["blocked"] == [b for b in disrupted["blocked"] if b["node"] == node["node"]]

        assert await ask(session, "disruption_budgets", at="2023-05-20T13:00Z", hours=6) == budgets


async def test_consolidation_budgets_and_a_whatif_on_the_consolidation_story(serve, cli, write):
    whatif = FIXTURES / "whatif" / "scale-inflate.yaml"
    disrupted = printed(cli, "simulate", "consolidation", "--consolidate", "--explain")
    assert disrupted["disruptions"], "the story's delete is what this test looks at"
    budgets = printed(cli, "budgets", "consolidation")
    by_file = printed(cli, "simulate", "consolidation", "--whatif", whatif, "--consolidate")
    async with serve("consolidation") as session:
        deleted = disrupted["disruptions"][0]["nodes"][0]
        one = await ask(session, "consolidation", node=deleted)
        assert one["disruptions"] == [disrupted["disruptions"][0]]
        assert one["nodes"] == [n for n in disrupted["nodes"] if n["node"] == deleted]
        assert await ask(session, "disruption_budgets") == budgets
        as_text = await ask(session, "run_whatif", whatif=whatif.read_text(), consolidate=True)
        as_object = await ask(session, "run_whatif", whatif=yaml.safe_load(whatif.read_text()), consolidate=True)
    assert as_text == as_object
    assert as_text["whatif"].pop("file") == "whatif" and by_file["whatif"].pop("file") == str(whatif)
    assert as_text == by_file
    assert as_text["whatif"]["diff"]["counts"]["scheduled_after"] > as_text["whatif"]["diff"]["counts"]["scheduled_before"]


@pytest.mark.parametrize("whatif", [
    "edits: [{target: Deployment/default/nope, scale: 2}]",             # applying: not in the snapshot
    "edits: [{target: Deployment/default/inflate, scale: 1000000000}]",  # a cap of limits.py
    "edits: [{target: Deployment/default/inflate, scael: 2}]",           # parsing: an unknown key
    "- just\n- a list\n",
    "edits: [{target: \"Deployment/default/\\e]52;c;aGk=\\a[bold]x\", scale: 2}]",  # an escape sequence, markup
])
async def test_a_bad_whatif_is_a_tool_error_with_the_command_lines_line(serve, cli, write, whatif):
    path = write("bad.yaml", whatif)
    code, out, err = cli("simulate", "consolidation", "--whatif", path, "-o", "json")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    said = err.strip().removeprefix("karptui: ").removeprefix(f"{path}: ")
    async with serve("consolidation") as session:
        line = await refused(session, "run_whatif", whatif=whatif)
        assert await ask(session, "cluster_summary")  # the server still answers
    assert line.endswith(f"whatif: {said}")
    assert "\n" not in line and "\x1b" not in line and "\x07" not in line


async def test_unknown_names_are_clear_errors(serve):
    async with serve("topology-spread") as session:
        missing = await refused(session, "why_pending", pod="default/nope")
        running = await refused(session, "why_pending", pod="default/host-spread-fbbf7c9d9-2f8zg")
        node = await refused(session, "consolidation", node="ip-10-9-9-9.nowhere")
        long = await refused(session, "why_pending", pod="x" * 400)
        when = await refused(session, "disruption_budgets", at="yesterday")
        hours = await refused(session, "disruption_budgets", hours=10_000)
    assert "pod: default/nope not found in the snapshot (e.g. default/host-spread-" in missing
    assert running.endswith("pod: default/host-spread-fbbf7c9d9-2f8zg is not pending "
                            "(bound to node ip-192-168-12-32.ap-northeast-2.compute.internal)")
    assert "node: ip-10-9-9-9.nowhere not found in the snapshot" in node
    assert long.endswith("pod: 400 characters, longer than any Kubernetes pod name (317)")
    assert "at: 'yesterday' is not a time (ISO 8601" in when
    assert "hours: 10000 is not between 0 and 744" in hours


async def test_an_answer_past_the_cap_is_cut_and_says_what_was_left_out(serve, cli):
    disrupted = printed(cli, "simulate", "topology-spread", "--consolidate", "--explain")
    async with serve("topology-spread", "--max-output", "4096") as session:
        result = await session.call_tool("consolidation", {})
        small = await ask(session, "disruption_budgets")
    text = result.content[0].text
    assert not result.is_error and len(text.encode()) <= 4096
    answer = json.loads(text)
    assert answer["truncated"] is True and answer["left_out"]
    for cut in answer["left_out"]:
        assert cut["kept"] < cut["of"]
    for cut in answer["left_out"]:  # each names the list it cut, which kept its first items
        kept = resolve_pointer(answer, cut["path"])
        whole = resolve_pointer(disrupted, cut["path"])
        assert len(kept) == cut["kept"] and len(whole) == cut["of"]
        if isinstance(kept, list) and not any(c["path"].startswith(cut["path"] + "/") for c in answer["left_out"]):
            assert kept == whole[:cut["kept"]]
    assert any(c["path"] == "/nodes" for c in answer["left_out"])
    assert answer["summary"] == disrupted["summary"]
    assert "truncated" not in small


def test_the_cap_keeps_every_answer_within_its_bytes(cli):
    from karptui.mcp.cap import capped

    doc = printed(cli, "simulate", "topology-spread", "--consolidate", "--explain")
    whole = json.loads(capped(doc, 1 << 30))
    assert whole == doc
    for limit in (4096, 10_000, 50_000):
        text = capped(doc, limit)
        assert len(text.encode()) <= limit
        cut = json.loads(text)
        assert cut["truncated"] is True and cut["karpenter_version"] == doc["karpenter_version"]
        for each in cut["left_out"]:
            assert len(resolve_pointer(cut, each["path"])) == each["kept"] < each["of"]


def resolve_pointer(doc, pointer: str):
    """What a JSON Pointer (RFC 6901) names in ``doc``."""
    for token in pointer.split("/")[1:]:
        token = token.replace("~1", "/").replace("~0", "~")
        doc = doc[int(token)] if isinstance(doc, list) else doc[token]
    return doc


def test_without_the_sdk_it_says_how_to_install_it(cli, monkeypatch):
    for name in [n for n in sys.modules if n.split(".")[0] in ("mcp", "mcp_types")] + ["mcp"]:
        monkeypatch.setitem(sys.modules, name, None)  # as if never installed: no import of it succeeds
    monkeypatch.delitem(sys.modules, "karptui.mcp.server", raising=False)
    code, out, err = cli("mcp", "topology-spread")
    assert code == 2 and out == ""
    assert err == "karptui: karptui mcp needs the MCP Python SDK: pip install 'karptui[mcp]' (or pip install 'mcp>=2.3,<3')\n"


@pytest.mark.parametrize("args, says", [
    (("mcp", "no-such-snapshot.yaml"), "karptui: no-such-snapshot.yaml: no such file or directory"),
    (("mcp", "topology-spread", "--max-output", "10"), "karptui: --max-output: 10 is not between 4,096"),
    (("mcp", "topology-spread", "--feature-gates", "Nope=true"), "karptui: --feature-gates:"),
    (("mcp", "--logs", "x.log"), "karptui: --logs: attaches a log to a SNAPSHOT"),
])
def test_bad_flags_are_one_line_before_serving(cli, args, says):
    code, out, err = cli(*args)
    assert code == 2 and out == "" and err.startswith(says) and len(err.splitlines()) == 1


@pytest.fixture
def api():
    """A small live cluster (tests/fakeapi.py) the server reads through the real client."""
    with FakeAPI() as fake:
        for i in range(3):
            fake.add(node_obj(f"node-{i}", zone=f"us-east-1{'abc'[i]}"))
        for i in range(4):
            fake.add(pod_obj(f"web-{i}", node=f"node-{i % 3}"))
        fake.add(pod_obj("big", cpu="64"))
        yield fake


async def test_live_the_cluster_is_read_once_as_snapshot_save_reads_it(serve, cli, kubeconfig, tmp_path):
    saved = tmp_path / "saved.json"
    code, _, err = cli("snapshot", "save", saved, "--kubeconfig", kubeconfig, "--logs-since", "0")
    assert code == 0, err
    info = printed(cli, "snapshot", "info", saved)
    explained = printed(cli, "simulate", saved, "--explain")
    async with serve("--kubeconfig", str(kubeconfig), "--logs-since", "0") as session:
        summary = await ask(session, "cluster_summary")
        pending = await ask(session, "why_pending", pod="default/big")
    assert summary["source"].startswith("live ") and summary["captured_at"]
    for key in ("source", "captured_at"):
        summary.pop(key), info.pop(key)
    assert summary == info and summary["pending"] == 1
    assert pending["pod"] == explained["pods"][0]
    assert pending["pod"]["reason"].startswith("0/3 nodes are available: 3 Insufficient cpu")


async def test_node_history_is_the_history_commands_answer(serve, cli):
    """Why did this node go: the server started with --logs answers as `karptui history LOG --node X
    -o json` does; without a log it says how to give one."""
    log = Path(__file__).parent / "log_corpus" / "e-040.log"
    code, out, err = cli("history", str(log), "--node", "nvme-raid-r8xwd", "-o", "json")
    assert code == 0, err
    expected = json.loads(out)
    async with serve("topology-spread", "--logs", str(log)) as session:
        got = await ask(session, "node_history", node="nvme-raid-r8xwd")
        assert got["why"] == expected["why"] and got["end"] == expected["end"]
        assert got["life"]["nodeclaim"] == expected["life"]["nodeclaim"] == "nvme-raid-r8xwd"
        assert "no NodeClaim, node or instance named 'nope-1'" in await refused(session, "node_history",
                                                                                   node="nope-1")
    async with serve("consolidation") as session:
        assert "start the server with --logs FILE" in await refused(session, "node_history", node="x")


# ---------------------------------------------------------------- hostile input, bounded


async def test_arguments_of_the_wrong_type_are_one_line_naming_the_argument(serve):
    """The SDK's own pydantic error is several lines quoting the input; the server says one."""
    async with serve("consolidation") as session:
        said = {name: await refused(session, tool, **arguments) for name, tool, arguments in (
            ("hours", "disruption_budgets", {"hours": "\x1b[2Jabc"}),
            ("pod", "why_pending", {"pod": 5}),
            ("whatif", "run_whatif", {"whatif": [1, 2]}),
            ("consolidate", "run_whatif", {"whatif": "edits: []", "consolidate": "maybe"}),
            ("missing", "why_pending", {}))}
    assert said == {
        "hours": "Error executing tool disruption_budgets: hours: expected a whole number, got a string",
        "pod": "Error executing tool why_pending: pod: expected a string, got a number",
        "whatif": "Error executing tool run_whatif: whatif: expected a string or an object, got a list",
        "consolidate": "Error executing tool run_whatif: consolidate: expected true or false, got a string",
        "missing": "Error executing tool why_pending: pod: missing (required)"}


async def test_a_request_past_the_cap_is_answered_in_one_line_and_the_server_goes_on(serve, tmp_path):
    """A what-if argument of 65 MiB: the line is read to its end in chunks (its middle dropped)
    and answered with the cap, a what-if file's; the next request is answered as usual."""
    from karptui import limits

    big = "# " + "x" * (limits.MAX_MCP_REQUEST_BYTES + (1 << 20)) + "\nedits: []\n"
    async with serve("consolidation") as session:
        line = await refused(session, "run_whatif", whatif=big)
        assert (await ask(session, "cluster_summary"))["nodes"] == 4
    assert line.startswith("Error executing tool run_whatif: request: 68,157,")
    assert line.endswith(" bytes, more than the 64 MiB karptui reads of one request (the cap on a what-if file)")
    assert "request refused: request: 68,157," in (tmp_path / "server-stderr.txt").read_text()


async def test_a_request_nested_past_the_parser_is_answered_not_dropped(serve, cli, write):
    """The SDK's JSON parser stops at 200 levels and would drop the request unanswered (the client
    waiting for ever); 250 levels of what-if object (as deep as the SDK's client sends) are
    answered. A what-if *text* nested 300 levels deep is refused by the YAML cap, in the command
    line's words."""
    from karptui.mcp.wire import JSON_DEPTH

    assert JSON_DEPTH == 200
    deep: dict = {}
    inner = deep
    for _ in range(250):
        inner["a"] = {}
        inner = inner["a"]
    text = "edits: " + "[" * 300 + "]" * 300 + "\n"
    code, _, err = cli("simulate", "consolidation", "--whatif", write("deep.yaml", text), "-o", "json")
    assert code == 2 and "nested more than 256 levels" in err, err
    async with serve("consolidation") as session:
        nested = await refused(session, "run_whatif", whatif=deep)
        as_text = await refused(session, "run_whatif", whatif=text)
    assert nested == ("Error executing tool run_whatif: request: nested deeper than the 200 levels the JSON-RPC "
                      "parser reads (a what-if given as an object nests less, the request's own levels counted)")
    assert as_text.endswith("whatif: " + err.strip().split(": ", 2)[2])


async def test_a_whatif_of_100000_edits_is_refused_as_the_command_line_refuses_it(serve, cli, write):
    whatif = {"edits": [{"target": "Deployment/default/inflate", "scale": 2}] * 100_000}
    code, _, err = cli("simulate", "consolidation", "--whatif", write("many.json", whatif), "-o", "json")
    assert code == 2 and len(err.splitlines()) == 1
    assert "100,000 edits, more than karptui's cap of 10,000 for one what-if" in err
    async with serve("consolidation") as session:
        as_text = await refused(session, "run_whatif", whatif=json.dumps(whatif))
        as_object = await refused(session, "run_whatif", whatif=whatif)
    said = err.strip().split(": ", 2)[2]
    assert as_text.endswith(f"whatif: {said}") and as_object.endswith(f"whatif: {said}")


def test_lines_that_are_not_requests_are_answered_on_the_wire():
    """Below the SDK's client: a line of garbage, a JSON-RPC request with a bad envelope, a
    notification nested too deep. Requests are answered (their id found without parsing the
    line), a notification is not, and the server goes on (a ping after them is answered)."""
    import subprocess

    lines = ["nope {", '{"jsonrpc": "2.0", "id": 7, "method": 5}',
             '{"jsonrpc":"2.0","method":"notifications/x","params":' + "[" * 300 + "]" * 300 + "}",
             json.dumps({"jsonrpc": "2.0", "id": 8, "method": "ping"})]
    server = subprocess.Popen([sys.executable, "-m", "karptui", "mcp", "consolidation"], cwd=REPO, text=True,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        server.stdin.write("\n".join(lines) + "\n")
        server.stdin.flush()
        replies = [json.loads(server.stdout.readline()) for _ in range(3)]  # the ping's answer is the third
    finally:
        server.stdin.close()
        stderr = server.stderr.read()
        server.wait(timeout=60)
    assert replies[0]["id"] is None and replies[0]["error"]["code"] == -32700
    assert replies[0]["error"]["message"].startswith("request: not JSON (")  # then the parser's words
    assert replies[1] == {"jsonrpc": "2.0", "id": 7, "error": {
        "code": -32600, "message": "request: not a JSON-RPC 2.0 message (jsonrpc, id, method, params)"}}
    assert replies[2] == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert stderr.count("karptui mcp: request refused:") == 3


@pytest.mark.parametrize("line, found", [
    ('{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"run_whatif","arguments":{"x":1}}}',
     {"id": 3, "method": "tools/call", "name": "run_whatif"}),
    ('{"method":"tools/call","params":{"arguments":{"id":9,"name":"no"},"name":"why_pending"},"jsonrpc":"2.0","id":"a"}',
     {"id": "a", "method": "tools/call", "name": "why_pending"}),
    ('{"method":"tools/call","params":{"name":"x","arguments":{"w":"' + '\\"}' * 50, {"method": "tools/call", "name": "x"}),
    ('[{"id":1}]', {}),
])
def test_the_envelope_is_found_without_parsing_the_line(line, found):
    from karptui.mcp.wire import envelope

    assert envelope(line) == found


async def test_a_long_line_is_read_in_chunks_and_only_its_ends_kept():
    from karptui.mcp import wire

    request = '{"jsonrpc":"2.0","method":"tools/call","params":{"name":"t","arguments":{"w":"' + "x" * 5000 + '"}},"id":42}'
    stream = ("\n".join(['{"a":1}', request, "", '{"b":2}']) + "\n").encode()
    chunks = [stream[i:i + 999] for i in range(0, len(stream), 999)]
    refusals = []

    async def read(_size: int) -> bytes:
        return chunks.pop(0) if chunks else b""

    async def refused(line) -> None:
        refusals.append(line)

    got = [line async for line in wire.bounded_lines(read, refused, most=4096)]
    assert got == ['{"a":1}', '{"b":2}']
    (line,) = refusals
    assert (line.id, line.method, line.tool) == (42, "tools/call", "t")
    assert line.why == wire.too_long(len(request), 4096)
    assert line.reply()["result"]["isError"] is True
    # a line of exactly the cap is read whole
    chunks[:] = [b'{"c":"' + b"y" * (4096 - 8) + b'"}\n']
    assert [len(x) async for x in wire.bounded_lines(read, refused, most=4096)] == [4096]


async def test_cluster_text_reaches_the_client_escaped(serve, cli, write):
    """A hostile snapshot (escape sequences, bidi overrides, Rich markup in names, events and
    Karpenter's log): the answer's text holds none of them raw, and is the command line's JSON."""
    from karptui.text import UNSAFE
    from tests.test_hostile_display import NS, POD, hostile_objects
    from tests.conftest import kube_list

    path = write("hostile.json", kube_list(*hostile_objects()))
    explained = printed(cli, "simulate", path, "--explain")
    async with serve(str(path)) as session:
        for tool, arguments in (("why_pending", {"pod": f"{NS}/{POD}"}), ("cluster_summary", {}),
                                ("karpenter_launches", {}), ("consolidation", {})):
            result = await session.call_tool(tool, arguments)
            text = result.content[0].text
            assert UNSAFE.search(text.replace("\n", " ")) is None, (tool, text[:200])  # the indent's own newlines aside
            if tool == "why_pending":
                assert not result.is_error, text
                assert json.loads(text)["pod"] == next(p for p in explained["pods"] if p["pod"] == f"{NS}/{POD}")


async def test_check_simulate_and_the_tools_answer_a_nodepool_change_alike(serve, cli):
    """One question -- what does moving NodePool default to on-demand do -- asked of ``simulate
    --whatif -o json``, ``budgets --whatif -o json``, the MCP tools (run_whatif, disruption_budgets
    with the what-if) and ``check`` (the what-if file, and the same change as a manifest): every
    figure of the review is one of theirs."""
    check_dir = REPO / "tests" / "fixtures" / "check"
    whatif = check_dir / "nodepool-on-demand.whatif.yaml"
    simulated = printed(cli, "simulate", "multi-nodepool", "--whatif", whatif)
    budgets = printed(cli, "budgets", "multi-nodepool", "--whatif", whatif)
    review = printed(cli, "check", "multi-nodepool", "--whatif", whatif)
    applied = printed(cli, "check", "multi-nodepool", "--apply", check_dir / "nodepool-on-demand.yaml")
    async with serve("multi-nodepool") as session:
        tool = await ask(session, "run_whatif", whatif=whatif.read_text())
        tool_budgets = await ask(session, "disruption_budgets", whatif=yaml.safe_load(whatif.read_text()))
    assert tool["whatif"].pop("file") == "whatif" and simulated["whatif"].pop("file") == str(whatif)
    assert tool == simulated
    assert tool_budgets == budgets
    assert review["whatif"]["file"] == str(whatif)
    review["whatif"].pop("file")
    assert review["whatif"] == simulated["whatif"]
    assert {k: v for k, v in applied["whatif"].items() if k not in ("file", "name")} == \
        {k: v for k, v in simulated["whatif"].items() if k != "name"}
    assert applied["summary"] == review["summary"] and applied["cost"] == review["cost"]

    drift = simulated["whatif"]["drift"]
    hourly = simulated["whatif"]["diff"]["hourly_cost"]
    # what drifts, and what replaces it at what price
    assert review["summary"]["drift"] == len(drift["nodeclaims"]) == 2
    replacements = [r for i in drift["nodeclaims"] if i["disruption"] for r in i["disruption"]["replacements"]]
    assert [{k: r[k] for k in replacements[0]} for r in review["launches"]["replacements"]] == replacements
    assert review["summary"]["launches"] == len(replacements) + len(simulated["whatif"]["diff"]["nodeclaims"]["added"])
    # the cost: the what-if's cost path, plus drift's commands (not consolidated)
    assert review["cost"]["before"] == hourly["cost_before"] and review["cost"]["after"] == hourly["cost_after"]
    assert review["cost"]["drift_change"] == drift["hourly_cost_change"]
    change = hourly["cost_after"]["hourly"] - hourly["cost_before"]["hourly"] + drift["hourly_cost_change"]["hourly"]
    assert review["cost"]["change_per_hour"] == pytest.approx(change, abs=1e-4)
    assert review["cost"]["change_per_month"] == pytest.approx(change * 730, abs=0.01)
    assert review["cost"]["change_percent"] == pytest.approx(change / hourly["cost_before"]["hourly"] * 100, abs=0.01)
    # pods left pending: simulate's newly pending and the new pods with no place
    assert review["summary"]["pending"] == len(simulated["whatif"]["diff"]["newly_pending"]) + \
        len([p for p in simulated["whatif"]["diff"]["added"] if p["after"] is None])
    # when the budgets let it happen: budgets' own entries and allowance for reason Drifted
    (window,) = review["budgets"]["windows"]
    (pool,) = [p for p in budgets["nodepools"] if p["name"] == window["nodepool"]]
    assert review["budgets"]["nodepools"] == [pool] and review["budgets"]["at"] == budgets["at"]
    drifted = next(r for r in pool["reasons"] if r["reason"] == "Drifted")
    assert window["allowed_now"] == drifted["allowed"] == 1
    # the one held back is the one drift takes second (command #2), not the first
    second = next(i for i in drift["nodeclaims"] if i["disruption"]["command"] == 2)
    assert window["held_back"] == [second["node"]]
