"""Hostile input to the file readers (issue 12): snapshots, what-ifs and catalogs.

Whatever the file holds, the user sees exit 0, or exit 2 with exactly one line
``karptui: FILE: what is wrong`` - never a traceback, a crash, an "internal
error", minutes of work or gigabytes of memory. Hostile files are generated
here, small; where a bound would make a test big, the test lowers the bound.
Cases that could kill the test runner (a C stack overflow, unbounded memory)
run karptui in a child process with a memory limit.
"""

from __future__ import annotations

import gzip
import json
import warnings
import os
import re
import resource
import subprocess
import sys
import threading
import tracemalloc

import pytest
import yaml

from karptui import limits
from tests.conftest import REPO, kube_list, node_obj, pod_obj

CATALOG = """instanceTypes:
- name: m5.large
  cpu: "2"
  memory: 8Gi
  offerings:
  - {zone: us-east-1a, capacityType: on-demand, price: 0.096}
"""
WHATIF = """apiVersion: karptui/v1
kind: WhatIf
name: hostile
edits:
- target: Node/n1
  cordon: true
"""


def small_snapshot() -> dict:
    return kube_list(node_obj("n1", "us-east-1a"), pod_obj("web-1", node="n1"), pod_obj("web-2"))


@pytest.fixture
def snap(write):
    return write("snap.json", small_snapshot())


@pytest.fixture
def reader(request, snap):
    """The command line that reads FILE as a snapshot, a what-if or a catalog."""
    return {
        "snapshot": lambda f: ("snapshot", "info", f),
        "whatif": lambda f: ("simulate", snap, "--whatif", f),
        "catalog": lambda f: ("simulate", snap, "--instance-types", f),
    }[request.param]


READERS = pytest.mark.parametrize("reader", ["snapshot", "whatif", "catalog"], indirect=True)


def refused(result, path, *words: str) -> str:
    """Exit 2 and exactly one stderr line naming the file (and containing ``words``)."""
    code, _, err = result
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1, (code, err[-2000:])
    assert lines[0].startswith(f"karptui: {path}: ") and "Traceback" not in err, err
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def run_karptui(*args, timeout: float = 60, memory: int = 3 << 30) -> tuple[int, str, str]:
    """karptui in a child process limited to ``memory`` bytes: a crash or a runaway kills only it."""

    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))

    env = {**os.environ, "PYTHONPATH": str(REPO), "OPENBLAS_NUM_THREADS": "1"}
    env.pop("KARPTUI_DEBUG", None)
    done = subprocess.run([sys.executable, "-m", "karptui", *map(str, args)], capture_output=True, text=True,
                          timeout=timeout, preexec_fn=limit, env=env, cwd=REPO)
    return done.returncode, done.stdout, done.stderr


def nested(depth: int, leaf: str = "x") -> str:
    """A flow value ``depth`` collections deep, mappings and sequences alternating."""
    return "".join("[" if i % 2 else "{k: " for i in range(depth)) + leaf + "".join(
        "]" if i % 2 else "}" for i in reversed(range(depth)))


def in_reader(kind: str, value: str) -> str:
    """A file of ``kind`` holding ``value`` (YAML text) where that reader will parse it."""
    if kind == "snapshot":  # kubectl's layout: the fast path, one item at a time
        return ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: ConfigMap\n"
                f"  metadata: {{name: c, namespace: default}}\n  data: {value}\n")
    if kind == "whatif":
        return WHATIF.replace("name: hostile\n", f"name: hostile\ndescription: {value}\n")
    return CATALOG.replace("  memory: 8Gi\n", f"  memory: 8Gi\n  labels: {value}\n")


# -- finding 4: nesting ---------------------------------------------------------------------------

DEEP = {
    "flow": "a: " + "[" * 25_000 + "]" * 25_000 + "\n",
    "dashes": "- " * 25_000 + "x\n",
    "block": "".join(" " * i + "k:\n" for i in range(2_000)) + " " * 2_000 + "k: x\n",  # 2 MB
    "cr-breaks": "".join(" " * i + "k:\r" for i in range(3_000)) + " " * 3_000 + "k: x\r",
}


@READERS
@pytest.mark.parametrize("shape", DEEP)
def test_yaml_25000_levels_deep_is_one_line_not_a_crash(reader, shape, tmp_path):
    path = tmp_path / "deep.yaml"
    path.write_text(DEEP[shape])
    refused(run_karptui(*reader(path)), path, "nested more than 256 levels deep")


@READERS
def test_yaml_300_levels_deep_is_refused(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    path = write("deep.yaml", in_reader(kind, nested(300)))
    refused(cli(*reader(path)), path, "nested more than 256 levels deep")


def test_depth_is_checked_on_the_general_path_too(cli, write):
    path = write("deep.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c}\ndata: " + nested(300) + "\n")
    refused(cli("snapshot", "info", path), path, "nested more than 256 levels deep", "line 4")


def test_depth_error_names_the_files_line_for_a_list_item(cli, write):
    text = in_reader("snapshot", "{}") + "- apiVersion: v1\n  kind: ConfigMap\n  metadata: {name: d}\n  data: " \
        + nested(260) + "\n"
    path = write("deep.yaml", text)
    refused(cli("snapshot", "info", path), path, "at line 11,")


def test_256_levels_are_accepted(cli, write):
    # 255 inside the ConfigMap item, which is itself one mapping
    path = write("ok.yaml", in_reader("snapshot", nested(255)))
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0, err


def test_brackets_in_strings_do_not_refuse_a_dump(cli, write):
    """kubectl's last-applied-configuration is JSON in a string: a bracket count over-estimates,
    the precise pass decides."""
    pod = pod_obj("web-1")
    pod["metadata"]["annotations"] = {"last-applied": "[" * 5000 + "{" * 5000, "indent": "\n" + " " * 900 + "x"}
    path = write("dump.yaml", yaml.safe_dump(kube_list(pod), width=100_000))
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0 and json.loads(out)["pods"] == 1, err


# -- finding 8: aliases ---------------------------------------------------------------------------

def laughs(levels: int, indent: str = "") -> str:
    """Nine aliases of nine aliases ...: ``9 ** levels`` nodes once expanded."""
    lines = [f"{indent}l0: &l0 [x, x, x, x, x, x, x, x, x]"]
    for level in range(1, levels):
        lines.append(f"{indent}l{level}: &l{level} [" + ", ".join([f"*l{level - 1}"] * 9) + "]")
    return "\n".join(lines) + "\n"


def billion_laughs_snapshot() -> str:
    return ("apiVersion: v1\nkind: List\nitems:\n- apiVersion: v1\n  kind: Pod\n"
            "  metadata: {name: p, namespace: default}\n  spec:\n    containers: [{name: c}]\n"
            "    affinity:\n      nodeAffinity:\n" + laughs(9, "        "))


def billion_laughs_whatif() -> str:
    return WHATIF.replace("- target: Node/n1\n  cordon: true\n", "- target: Deployment/default/inflate\n  patch:\n"
                          "    spec:\n      laughs:\n" + laughs(9, "        "))


@pytest.mark.parametrize("kind", ["snapshot", "whatif"])
def test_billion_laughs_is_refused_at_once(kind, tmp_path, snap):
    path = tmp_path / f"{kind}.yaml"
    path.write_text(billion_laughs_snapshot() if kind == "snapshot" else billion_laughs_whatif())
    assert path.stat().st_size < 1000
    args = ("snapshot", "info", path) if kind == "snapshot" else ("simulate", "consolidation", "--whatif", path)
    refused(run_karptui(*args, timeout=30, memory=2 << 30), path, "YAML aliases would expand to more than 100,000")


@READERS
def test_more_than_100_aliases_are_refused(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    value = "{a: &a x, b: [" + ", ".join(["*a"] * 101) + "]}"
    path = write("aliases.yaml", in_reader(kind, value))
    refused(cli(*reader(path)), path, "more than 100 YAML aliases", "line ")


@READERS
def test_aliases_expanding_past_the_bound_are_refused(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    value = "{a: &a [" + ", ".join(["x"] * 2000) + "], b: [" + ", ".join(["*a"] * 51) + "]}"
    path = write("aliases.yaml", in_reader(kind, value))
    refused(cli(*reader(path)), path, "expand to more than 100,000 nodes")


@READERS
def test_nesting_made_deeper_by_aliases_is_refused(reader, request, cli, write):
    """Each alias puts a 200-deep value 200 levels down: the composer does not recurse, but anything
    walking the result does (a RecursionError, past 1,000)."""
    kind = request.node.callspec.params["reader"]
    value = "{a: &a " + nested(200) + ", b: " + nested(150, "*a") + "}"
    path = write("deeper.yaml", in_reader(kind, value))
    refused(cli(*reader(path)), path, "nested more than 256 levels deep once aliases are expanded")


@READERS
def test_recursive_alias_is_refused(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    path = write("loop.yaml", in_reader(kind, "&a {k: [*a]}"))
    refused(cli(*reader(path)), path, "alias *a refers to its own node")


def test_a_few_aliases_still_work(cli, write):
    text = WHATIF.replace("- target: Node/n1\n  cordon: true\n",
                          "- target: Node/n1\n  cordon: &yes true\n- target: Node/n1\n  cordon: *yes\n")
    snap = write("snap.json", small_snapshot())
    code, _, err = cli("simulate", snap, "--whatif", write("w.yaml", text))
    assert code == 0, err


# -- finding 9: decompression bombs ----------------------------------------------------------------

def bomb(tmp_path, name: str, text: str, padding: int) -> os.PathLike:
    """``text`` and then ``padding`` newlines, gzipped: a few KB that grow past a lowered bound."""
    path = tmp_path / name
    with gzip.open(path, "wb") as out:
        out.write(text.encode())
        for _ in range(padding >> 20):
            out.write(b"\n" * (1 << 20))
    return path


@READERS
def test_gzip_growing_past_the_bound_is_refused(reader, request, cli, tmp_path, monkeypatch):
    kind = request.node.callspec.params["reader"]
    text = {"snapshot": yaml.safe_dump(small_snapshot()), "whatif": WHATIF, "catalog": CATALOG}[kind]
    monkeypatch.setattr(limits, "MAX_SNAPSHOT_BYTES", 2 << 20)
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 1 << 20)
    path = bomb(tmp_path, f"{kind}.yaml.gz", text, 3 << 20)
    assert path.stat().st_size < 20_000
    bound = "2 MiB" if kind == "snapshot" else "1 MiB"
    refused(cli(*reader(path)), path, f"more than {bound} once decompressed")


def test_gzip_bomb_is_decompressed_in_bounded_memory(cli, tmp_path, monkeypatch):
    monkeypatch.setattr(limits, "MAX_SNAPSHOT_BYTES", 1 << 20)
    path = bomb(tmp_path, "bomb.yaml.gz", yaml.safe_dump(small_snapshot()), 64 << 20)
    tracemalloc.start()
    try:
        result = cli("snapshot", "info", path)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    refused(result, path, "more than 1 MiB once decompressed")
    assert peak < 24 << 20, peak


def test_gzip_under_the_bound_and_concatenated_members_still_load(cli, tmp_path):
    path = tmp_path / "two.json.gz"
    path.write_bytes(gzip.compress(json.dumps(kube_list(node_obj("n1"))).encode())
                     + gzip.compress(json.dumps(kube_list(node_obj("n2"))).encode()))
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0 and json.loads(out)["nodes"] == 2, err


def test_truncated_gzip_is_one_line(cli, tmp_path):
    path = tmp_path / "cut.yaml.gz"
    path.write_bytes(gzip.compress(yaml.safe_dump(small_snapshot()).encode())[:-30])
    refused(cli("snapshot", "info", path), path, "corrupt gzip data")


# -- finding 10: endless input ---------------------------------------------------------------------

@READERS
def test_dev_zero_is_refused_in_bounded_memory(reader):
    refused(run_karptui(*reader("/dev/zero"), timeout=60, memory=2 << 30), "/dev/zero", "binary data")


@READERS
def test_a_fifo_that_goes_on_is_cut_at_the_bound(reader, request, cli, tmp_path, monkeypatch):
    kind = request.node.callspec.params["reader"]
    monkeypatch.setattr(limits, "MAX_SNAPSHOT_BYTES", 1 << 20)
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 1 << 20)
    fifo = tmp_path / "fifo.yaml"
    os.mkfifo(fifo)
    head = {"snapshot": yaml.safe_dump(small_snapshot()), "whatif": WHATIF, "catalog": CATALOG}[kind]

    def feed() -> None:  # 4 MiB of comments after a valid head, then the end (the old reader took it all)
        try:
            with open(fifo, "wb") as out:
                out.write(head.encode())
                for _ in range(64):
                    out.write(b"# more\n" * 9362)
        except BrokenPipeError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    refused(cli(*reader(fifo)), fifo, "more than the 1 MiB karptui reads")
    writer.join(10)


@READERS
def test_a_file_larger_than_the_bound_is_refused_before_reading(reader, request, cli, write, monkeypatch):
    kind = request.node.callspec.params["reader"]
    monkeypatch.setattr(limits, "MAX_SNAPSHOT_BYTES", 1 << 20)
    monkeypatch.setattr(limits, "MAX_SMALL_FILE_BYTES", 1 << 20)
    head = {"snapshot": yaml.safe_dump(small_snapshot()), "whatif": WHATIF, "catalog": CATALOG}[kind]
    path = write("big.yaml", head + "#\n" * (1 << 20))
    refused(cli(*reader(path)), path, "2 MiB, more than the 1 MiB karptui reads")


# -- finding 7: values past what the model parsed, through the command line ------------------------

BUNDLED = (REPO / "snapshots" / "consolidation.yaml").read_text()


def edited(write, old: str, new: str, name: str = "edited.yaml", count: int = 1):
    assert old in BUNDLED
    return write(name, BUNDLED.replace(old, new, count))


def no_crash(result) -> str:
    code, _, err = result
    assert code in (0, 2) and "internal error" not in err and "Traceback" not in err, (code, err[-2000:])
    return err


@pytest.mark.parametrize("nodes", ['"abc"', '"10x%"', '"150%"', '"-1"'])
def test_budget_nodes_that_are_no_count_or_percent_skip_the_nodepool(cli, write, nodes):
    path = edited(write, "      - nodes: 10%", f"      - nodes: {nodes}")
    err = no_crash(cli("simulate", "--consolidate", path))
    assert "skipped NodePool" in err and "budgets[0].nodes" in err and "not a count or a percentage" in err, err


@pytest.mark.parametrize("field, value", [("minAvailable", '"abc"'), ("minAvailable", '"150%"'),
                                          ("maxUnavailable", '"abc"'), ("maxUnavailable", "-1"),
                                          ("minAvailable", "4294967296")])
def test_pdb_int_or_percent_the_api_refuses_skips_the_pdb(cli, write, field, value):
    path = edited(write, "    minAvailable: 5", f"    {field}: {value}")
    err = no_crash(cli("simulate", "--consolidate", path))
    assert "skipped PodDisruptionBudget default/inflate-pdb" in err and f"spec.{field}" in err, err


@pytest.mark.parametrize("stamp", ["2030-01-01T00:00:00", '"2030-01-01T00:00:00"'])
def test_timestamp_without_zone_skips_the_object_not_a_type_error(cli, write, stamp):
    old = '    creationTimestamp: "2024-09-10T02:07:40Z"'
    path = edited(write, old, f"    creationTimestamp: {stamp}")
    err = no_crash(cli("simulate", "--consolidate", path))
    assert "metadata.creationTimestamp" in err and "no time zone" in err, err


def test_quantities_past_int64_are_capped_as_the_api_caps_them(cli, write):
    path = edited(write, "      cpu: 1930m", "      cpu: 100Ei")
    no_crash(cli("simulate", "--consolidate", path))
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0 and json.loads(out)["allocatable"]["cpu_millis"] >= 2**63 - 1, err


def test_requests_past_int64_are_capped(cli, write):
    path = edited(write, '          cpu: "1"', "          cpu: 100Ei", count=-1)
    with warnings.catch_warnings():  # numpy's "overflow in scalar add" printed on stderr, before
        warnings.simplefilter("error", RuntimeWarning)
        no_crash(cli("simulate", "--consolidate", path))
    found = warnings_of(cli, path)
    assert any(w.startswith("quantities past the int64 maximum: Pod default/") and "requests cpu" in w
               for w in found), found


def test_priority_past_int32_skips_the_pod(cli, write):
    path = edited(write, "    priority: 0", "    priority: 1180591620717411303424")
    err = no_crash(cli("simulate", "--consolidate", path))
    assert "spec.priority" in err and "out of range" in err, err


@READERS
def test_json_integer_past_4300_digits_is_one_line(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    big = "1" + "0" * 5000
    text = {"snapshot": json.dumps(small_snapshot()).replace('"100m"', big, 1),
            "whatif": json.dumps({"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "w",
                                  "edits": [{"target": "Node/n1", "cordon": True}]}).replace("true", big),
            "catalog": json.dumps(yaml.safe_load(CATALOG)).replace("0.096", big)}[kind]
    path = write(f"{kind}.json", text)
    refused(cli(*reader(path)), path, "a number longer than 4,300 digits")


@READERS
def test_yaml_integer_past_4300_digits_is_one_line(reader, request, cli, write):
    kind = request.node.callspec.params["reader"]
    path = write("big.yaml", in_reader(kind, "{k: 1" + "0" * 5000 + "}"))
    refused(cli(*reader(path)), path, "a number longer than 4,300 digits")


@pytest.mark.parametrize("since", ["1.2.3s", "1..s", ".s", "1e400h", "9" * 400 + "h"])
def test_logs_since_that_is_no_duration_is_one_line(cli, since):
    refused(cli("--logs-since", since), "--logs-since", "is not a duration")


# -- validation: values the API would refuse are warned about, not silently simulated ---------------

def warnings_of(cli, path) -> list[str]:
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0, err
    return json.loads(out)["warnings"]


def test_negative_requests_and_allocatable_are_warned_about(cli, write):
    node = node_obj("n1", memory="-1Gi")
    pod = pod_obj("web-1", node="n1", cpu="-500m")
    found = warnings_of(cli, write("neg.json", kube_list(node, pod, pod_obj("web-2"))))
    assert any("default/web-1" in w and "negative" in w and "cpu" in w for w in found), found
    assert any("Node n1" in w and "negative" in w and "memory" in w for w in found), found


@pytest.mark.parametrize("port", [70000, -1, 65536])
def test_host_ports_out_of_range_are_warned_about(cli, write, port):
    pod = pod_obj("web-1")
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": port}]
    found = warnings_of(cli, write("ports.json", kube_list(node_obj("n1"), pod)))
    assert any("default/web-1" in w and f"hostPort {port}" in w and "1-65535" in w for w in found), found


def test_valid_values_give_no_warning(cli, write):
    pod = pod_obj("web-1", node="n1")
    pod["spec"]["containers"][0]["ports"] = [{"containerPort": 80, "hostPort": 65535}]
    assert warnings_of(cli, write("ok.json", kube_list(node_obj("n1"), pod))) == []


def test_zone_no_catalog_offering_has_is_warned_about(cli, write):
    snap = write("snap.json", kube_list(node_obj("n1", "us-east-1a"), node_obj("n2", "us-east-1q"), pod_obj("p")))
    code, out, err = cli("simulate", snap, "--instance-types", write("cat.yaml", CATALOG), "-o", "json")
    assert code == 0, err
    found = json.loads(out).get("warnings", [])
    assert any("us-east-1q" in w and "no instance type" in w for w in found), found
    assert not any("us-east-1a" in w for w in found), found


# -- fuzzing: odd documents through every reader ------------------------------------------------------

import copy  # noqa: E402

from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def _first_of_each_kind() -> list[dict]:
    kinds, seen = [], set()
    for doc in yaml.safe_load_all(BUNDLED):
        for item in (doc or {}).get("items", []):
            if item.get("kind") not in seen:
                seen.add(item.get("kind"))
                kinds.append(item)
    return kinds


FUZZ_BASE = kube_list(*_first_of_each_kind(), pod_obj("pending-1"))
FUZZ_WHATIF = {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "w", "edits": [
    {"target": "Node/n1", "cordon": True},
    {"target": "Pod/default/web-1", "patch": {"metadata": {"labels": {"a": "b"}}}},
    {"target": "Deployment/default/web", "scale": 3},
    {"addNodes": {"instanceType": "m5.large", "zone": "us-east-1a", "count": 1}}]}
FUZZ_CATALOG = yaml.safe_load(CATALOG) | {"instanceTypes": [yaml.safe_load(CATALOG)["instanceTypes"][0] | {
    "overhead": {"cpu": "100m"}, "extendedResources": {"nvidia.com/gpu": 1}, "labels": {"a": "b"},
    "arch": "amd64", "os": "linux", "pods": 29}]}
ODD_STRINGS = ["", "abc", "10x%", "150%", "-1", "100Ei", "-5m", "1e400", "1e60", "0.0001m", "2024-01-01T00:00:00",
               "2024-01-01T00:00:00Z", "Never", "0", "1.2.3s", "1h30m", "*", "[", "{", "%", "In", "NotIn", "Exists",
               "Gt", "\x07bell", "tab\there", "ünï", "\u2028", "NaN", "true", "null", "Node/n1", "a" * 300]
KEYS = ["cpu", "memory", "pods", "priority", "hostPort", "minAvailable", "maxUnavailable", "nodes", "budgets",
        "creationTimestamp", "requests", "limits", "labels", "tolerations", "affinity", "nodeSelector", "taints",
        "requirements", "values", "operator", "key", "weight", "replicas", "offerings", "zone", "patch", "scale"]
SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-(2**70), 2**70), st.floats(allow_nan=True),
                    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=12),
                    st.sampled_from(ODD_STRINGS))
VALUES = st.recursive(SCALARS, lambda kids: st.lists(kids, max_size=4)
                      | st.dictionaries(st.sampled_from(KEYS) | st.text(max_size=6), kids, max_size=4), max_leaves=12)


def _slots(doc, out):
    """Every (container, key) in a JSON-shaped document, where a value may be replaced."""
    items = doc.items() if isinstance(doc, dict) else enumerate(doc) if isinstance(doc, list) else ()
    for key, value in items:
        out.append((doc, key))
        _slots(value, out)
    return out


@st.composite
def mutated(draw, base):
    doc = copy.deepcopy(base)
    for _ in range(draw(st.integers(1, 4))):
        slots = _slots(doc, [])
        known = [slot for slot in slots if slot[1] in KEYS]  # fields the model reads: hit them often
        if known and draw(st.booleans()):
            slots = known
        container, key = slots[draw(st.integers(0, len(slots) - 1))]
        if isinstance(container, dict) and draw(st.integers(0, 3)) == 0:
            key = draw(st.sampled_from(KEYS))  # add a field the model reads
        container[key] = draw(VALUES)
    return doc


FRAGMENTS = st.one_of(
    st.integers(0, 320).map(nested),
    st.integers(1, 130).map(lambda n: "{a: &a [x, y], b: [" + ", ".join(["*a"] * n) + "]}"),
    st.integers(4000, 4600).map(lambda n: "1" + "0" * n),
    st.integers(0, 31).map(lambda c: '"' + f"\\x{c:02x}" + '"'),
    st.integers(0, 31).map(chr).map(lambda ch: "x" + ch + "y"),
    st.sampled_from(["&a [*a]", "*undefined", "!!python/object:os.system x", "!!binary AAAA", "? [a]\n: b",
                     "|\n  " + "[" * 300, "'" + "{" * 400 + "'", "\ufeffx", "- - - x", "{a: b, a: c}"]),
)


def serialise(doc, as_json: bool, huge_number: bool = False) -> str:
    """JSON or YAML text; ``huge_number`` turns one number into 4,400 digits (json.dumps cannot)."""
    text = json.dumps(doc) if as_json else yaml.safe_dump(doc, allow_unicode=True)
    return re.sub(r"(?<=: )(\d+)(?=[,}\n])", lambda m: m.group(1) + "0" * 4400, text, count=1) if huge_number else text


def accepted_or_one_line(result, path) -> None:
    code, _, err = result
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]
    if code == 0:
        return
    lines = err.splitlines()
    assert code == 2 and len(lines) == 1 and lines[0].startswith(f"karptui: {path}: "), (code, err[-3000:])


def beside_a_snapshot(tmp_path_factory, stem: str, doc, as_json: bool, huge: int):
    """A small valid snapshot and the fuzzed document next to it (JSON or YAML)."""
    base = tmp_path_factory.mktemp("fuzz")
    snap = base / "snap.json"
    snap.write_text(json.dumps(small_snapshot()))
    path = base / (f"{stem}.json" if as_json else f"{stem}.yaml")
    path.write_text(serialise(doc, as_json, huge_number=huge == 0))
    return snap, path


FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@FUZZ
@given(doc=mutated(FUZZ_BASE), as_json=st.booleans(), consolidate=st.booleans(), huge=st.integers(0, 9))
def test_fuzz_snapshot_reader(cli, tmp_path_factory, doc, as_json, consolidate, huge):
    path = tmp_path_factory.mktemp("fuzz") / ("snap.json" if as_json else "snap.yaml")
    path.write_text(serialise(doc, as_json, huge_number=huge == 0))
    accepted_or_one_line(cli("snapshot", "info", path, "-o", "json"), path)
    code, _, err = cli("simulate", path, *(["--consolidate"] if consolidate else []), "-o", "json")
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]


@FUZZ
@given(doc=mutated(FUZZ_WHATIF), as_json=st.booleans(), huge=st.integers(0, 9))
def test_fuzz_whatif_reader(cli, tmp_path_factory, doc, as_json, huge):
    snap, path = beside_a_snapshot(tmp_path_factory, "w", doc, as_json, huge)
    accepted_or_one_line(cli("simulate", snap, "--whatif", path, "-o", "json"), path)


@FUZZ
@given(doc=mutated(FUZZ_CATALOG), as_json=st.booleans(), huge=st.integers(0, 9))
def test_fuzz_catalog_reader(cli, tmp_path_factory, doc, as_json, huge):
    snap, path = beside_a_snapshot(tmp_path_factory, "c", doc, as_json, huge)
    accepted_or_one_line(cli("simulate", snap, "--instance-types", path, "-o", "json"), path)


@FUZZ
@given(kind=st.sampled_from(["snapshot", "whatif", "catalog"]), fragment=FRAGMENTS)
def test_fuzz_hostile_yaml_fragments(cli, tmp_path_factory, kind, fragment):
    base = tmp_path_factory.mktemp("fuzz")
    snap = base / "snap.json"
    snap.write_text(json.dumps(small_snapshot()))
    path = base / "f.yaml"
    path.write_text(in_reader(kind, fragment))
    args = {"snapshot": ("snapshot", "info", path), "whatif": ("simulate", snap, "--whatif", path),
            "catalog": ("simulate", snap, "--instance-types", path)}[kind]
    accepted_or_one_line(cli(*args), path)


def test_aliases_are_counted_over_the_whole_stream(cli, write):
    """Documents are checked one by one, but the alias bound is the file's."""
    doc = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {a: &a x, b: [" + ", ".join(["*a"] * 30) + "]}\n"
    path = write("stream.yaml", "---\n".join(doc % i for i in range(4)))
    refused(cli("snapshot", "info", path), path, "more than 100 YAML aliases", "at line 19,")


def test_a_deep_document_late_in_a_stream_is_found(cli, write):
    shallow = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: c%d}\ndata: {k: [[[x]]]}\n"
    text = "---\n".join(shallow % i for i in range(100)) + "---\n" + shallow.replace("[[[x]]]", nested(300)) % 100
    path = write("stream.yaml", text)
    refused(cli("snapshot", "info", path), path, "nested more than 256 levels deep", "at line 504,")


def test_gzip_through_a_fifo_loads(cli, tmp_path):
    fifo = tmp_path / "snap.json.gz"
    os.mkfifo(fifo)
    data = gzip.compress(json.dumps(small_snapshot()).encode())

    def feed() -> None:
        with open(fifo, "wb") as out:
            for i in range(0, len(data), 7):  # small writes: the reader's first read may come up short
                out.write(data[i:i + 7])
                out.flush()

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    code, out, err = cli("snapshot", "info", fifo, "-o", "json")
    writer.join(10)
    assert code == 0 and json.loads(out)["nodes"] == 1, err


def test_karptui_reads_back_a_snapshot_of_objects_sharing_parts(cli, tmp_path):
    """write_snapshot got Python objects that share dicts (as the spec harness's do): PyYAML wrote
    them as anchors and aliases, which the reader now refuses past 100."""
    from karptui.model import SnapshotMeta
    from karptui.sources import write_snapshot

    labels = {"app": "web"}
    pods = [pod_obj(f"web-{i}", labels=labels) for i in range(150)]
    path = tmp_path / "saved.yaml"
    write_snapshot(path, [node_obj("n1"), *pods], SnapshotMeta(name="saved"))
    code, out, err = cli("snapshot", "info", path, "-o", "json")
    assert code == 0 and json.loads(out)["pods"] == 150, err


async def test_the_tui_says_what_the_snapshot_warns_about(write):
    """The screen must not simulate what the API would refuse silently: the snapshot's
    warnings are a notification on start, as `simulate` prints them on stderr."""
    from karptui.sources import load_snapshot
    from karptui.tui.app import KarptuiApp

    node = node_obj("n1", memory="-1Gi")
    path = write("neg.json", kube_list(node, pod_obj("web-1", node="n1", cpu="-500m"), pod_obj("web-2")))
    app = KarptuiApp(load_snapshot(path), simulate_on_start=False)
    async with app.run_test(size=(120, 30)) as pilot:
        await pilot.pause()
        told = [n.message for n in app._notifications if n.severity == "warning"]
        await pilot.press("q")
    assert len(told) == 1 and "warning(s) about this snapshot" in told[0], told
    assert "negative" in told[0] and "default/web-1" in told[0], told
