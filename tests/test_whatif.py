"""What-if edits: the patch formats, the file format, and what applying one does to a snapshot.

Real inputs first: the bundled snapshots and the example files in
tests/fixtures/whatif (which double as documentation of the format).
"""

from __future__ import annotations

import copy
from datetime import datetime, timezone

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from conftest import FIXTURES, node_obj, pod_obj
from karptui.errors import InputError
from karptui.model import build_snapshot
from karptui.sources import bundled_snapshot, load_snapshot
from karptui.whatif import (
    AddNodes,
    Cordon,
    Patch,
    PatchError,
    Remove,
    RemoveNode,
    Scale,
    Target,
    WhatIf,
    apply_patch,
    apply_whatif,
    dump_whatif,
    json_patch,
    load_whatif,
    merge_patch,
    parse_whatif,
    save_whatif,
    strategic_merge_patch,
)
from karptui.whatif.controllers.daemon import pinned_node as _pinned_node

WHATIFS = FIXTURES / "whatif"
NOW = datetime(2024, 6, 1, 12, 0, tzinfo=timezone.utc)
HOSTNAME, ZONE = "kubernetes.io/hostname", "topology.kubernetes.io/zone"
NODE_2A = "ip-192-168-11-21.ap-northeast-2.compute.internal"
NODE_2B = "ip-192-168-12-45.ap-northeast-2.compute.internal"


@pytest.fixture(scope="module")
def spread():
    return load_snapshot(bundled_snapshot("topology-spread"))


@pytest.fixture(scope="module")
def consolidation():
    return load_snapshot(bundled_snapshot("consolidation"))


@pytest.fixture(scope="module")
def multi():
    return load_snapshot(bundled_snapshot("multi-nodepool"))


@pytest.fixture(scope="module")
def overprov():
    return load_snapshot(bundled_snapshot("overprovisioning"))


def whatif(*edits, name="test") -> WhatIf:
    return WhatIf(name, tuple(edits))


def apply(snapshot, *edits):
    return apply_whatif(snapshot, whatif(*edits), now=NOW)


def pods_of(snapshot, kind, name, namespace="default"):
    return sorted(
        (p for p in snapshot.pods
         if (top := snapshot.top_owner(p)) is not None
         and (top.kind, top.name, top.namespace) == (kind, name, namespace)),
        key=lambda p: p.name,
    )


def fingerprint(snapshot) -> list:
    """Everything an edit could change in place: every raw dict and every pod's fields."""
    raws = [copy.deepcopy(dict(o.raw)) for field in ("nodes", "workloads", "pdbs", "nodepools", "nodeclasses")
            for o in getattr(snapshot, field) if o.raw is not None]
    return [raws, [repr(p) for p in snapshot.pods], [repr(w) for w in snapshot.workloads],
            [n.name for n in snapshot.nodes], [c.name for c in snapshot.nodeclaims]]


# ==========================================================================
# patch.py: the three formats
# ==========================================================================

@pytest.mark.parametrize("target, patch, expected", [
    # RFC 7386 appendix A, a representative subset
    ({"a": "b"}, {"a": "c"}, {"a": "c"}),
    ({"a": "b"}, {"b": "c"}, {"a": "b", "b": "c"}),
    ({"a": "b"}, {"a": None}, {}),
    ({"a": "b", "b": "c"}, {"a": None}, {"b": "c"}),
    ({"a": ["b"]}, {"a": "c"}, {"a": "c"}),
    ({"a": "c"}, {"a": ["b"]}, {"a": ["b"]}),
    ({"a": {"b": "c"}}, {"a": {"b": "d", "c": None}}, {"a": {"b": "d"}}),
    ({"a": [{"b": "c"}]}, {"a": [1]}, {"a": [1]}),
    (["a", "b"], ["c", "d"], ["c", "d"]),
    ({"a": "b"}, ["c"], ["c"]),
    ({"a": "foo"}, None, None),
    ({"e": None}, {"a": 1}, {"e": None, "a": 1}),
    ([1, 2], {"a": "b", "c": None}, {"a": "b"}),
    ({}, {"a": {"bb": {"ccc": None}}}, {"a": {"bb": {}}}),
])
def test_json_merge_patch_rfc7386(target, patch, expected):
    before = copy.deepcopy(target)
    assert merge_patch(target, patch) == expected
    assert target == before


_keys = st.sampled_from(["a", "b", "c", "spec", "x"])
_scalars = st.one_of(st.integers(-3, 3), st.text("xyz", max_size=2), st.booleans())
_docs = st.recursive(_scalars, lambda inner: st.dictionaries(_keys, inner, max_size=3), max_leaves=8)
_patches = st.recursive(st.one_of(_scalars, st.none()),
                        lambda inner: st.dictionaries(_keys, inner, max_size=3), max_leaves=8)


@given(_docs, _patches)
def test_merge_patch_properties(target, patch):
    target_before, patch_before = copy.deepcopy(target), copy.deepcopy(patch)
    once = merge_patch(target, patch)
    assert merge_patch(once, patch) == once  # idempotent
    assert target == target_before and patch == patch_before
    if isinstance(patch, dict) and isinstance(target, dict):  # no lists, no directives: the same rules
        assert strategic_merge_patch(target, patch) == once


POD_SPEC = {
    "containers": [
        {"name": "app", "image": "app:1", "env": [{"name": "A", "value": "1"}, {"name": "B", "value": "2"}],
         "ports": [{"containerPort": 80}, {"containerPort": 53, "protocol": "UDP"}],
         "volumeMounts": [{"name": "data", "mountPath": "/data"}]},
        {"name": "sidecar", "image": "proxy:1"},
    ],
    "tolerations": [{"key": "a", "operator": "Exists"}, {"key": "b", "operator": "Exists"}],
    "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "arch", "operator": "In", "values": ["amd64"]}]},
        {"matchExpressions": [{"key": "arch", "operator": "In", "values": ["arm64"]}]},
    ]}}},
    "topologySpreadConstraints": [
        {"maxSkew": 2, "topologyKey": HOSTNAME, "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"},
        {"maxSkew": 1, "topologyKey": ZONE, "whenUnsatisfiable": "ScheduleAnyway"},
    ],
    "volumes": [{"name": "data", "emptyDir": {}}, {"name": "cache", "emptyDir": {}}],
    "nodeSelector": {"team": "a", "tier": "web"},
}


def _strategic(patch):
    return strategic_merge_patch(POD_SPEC, patch)


@pytest.mark.parametrize("patch, check", [
    # containers merge by name: one image changes, the other container stays
    ({"containers": [{"name": "sidecar", "image": "proxy:2"}]},
     lambda r: [c["image"] for c in r["containers"]] == ["app:1", "proxy:2"]
     and r["containers"][0] == POD_SPEC["containers"][0]),
    # a new container is appended
    ({"containers": [{"name": "debug", "image": "busybox"}]},
     lambda r: [c["name"] for c in r["containers"]] == ["app", "sidecar", "debug"]),
    # $patch: delete removes one element by its key
    ({"containers": [{"name": "sidecar", "$patch": "delete"}]},
     lambda r: [c["name"] for c in r["containers"]] == ["app"]),
    # nested lists merge by their own keys: env by name, ports by containerPort, mounts by mountPath
    ({"containers": [{"name": "app", "env": [{"name": "B", "value": "3"}, {"name": "C", "value": "4"}]}]},
     lambda r: r["containers"][0]["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "3"},
                                             {"name": "C", "value": "4"}]),
    ({"containers": [{"name": "app", "ports": [{"containerPort": 80, "protocol": "TCP", "name": "http"}]}]},
     lambda r: r["containers"][0]["ports"][0] == {"containerPort": 80, "protocol": "TCP", "name": "http"}
     and len(r["containers"][0]["ports"]) == 2),
    ({"containers": [{"name": "app", "volumeMounts": [{"mountPath": "/data", "readOnly": True}]}]},
     lambda r: r["containers"][0]["volumeMounts"] == [{"name": "data", "mountPath": "/data", "readOnly": True}]),
    # null deletes a key inside a merged element
    ({"containers": [{"name": "app", "env": None}]}, lambda r: "env" not in r["containers"][0]),
    # tolerations and nodeSelectorTerms are atomic: replaced whole
    ({"tolerations": [{"key": "c", "operator": "Exists"}]},
     lambda r: r["tolerations"] == [{"key": "c", "operator": "Exists"}]),
    ({"affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchExpressions": [{"key": "arch", "operator": "In", "values": ["arm64"]}]}]}}}},
     lambda r: len(r["affinity"]["nodeAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"]
                   ["nodeSelectorTerms"]) == 1),
    # topologySpreadConstraints merge by (topologyKey, whenUnsatisfiable)
    ({"topologySpreadConstraints": [{"topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule", "maxSkew": 1}]},
     lambda r: [c["maxSkew"] for c in r["topologySpreadConstraints"]] == [2, 1, 1]),
    ({"topologySpreadConstraints": [{"topologyKey": HOSTNAME, "$patch": "delete"}]},
     lambda r: [c["topologyKey"] for c in r["topologySpreadConstraints"]] == [ZONE, ZONE]),
    ({"topologySpreadConstraints": [{"topologyKey": ZONE, "$patch": "delete"}]},
     lambda r: [c["topologyKey"] for c in r["topologySpreadConstraints"]] == [HOSTNAME]),
    # $patch: replace as a list element: the rest of the list is the new list
    ({"topologySpreadConstraints": [{"$patch": "replace"},
                                    {"maxSkew": 5, "topologyKey": ZONE, "whenUnsatisfiable": "DoNotSchedule"}]},
     lambda r: r["topologySpreadConstraints"] == [{"maxSkew": 5, "topologyKey": ZONE,
                                                   "whenUnsatisfiable": "DoNotSchedule"}]),
    # $patch: replace / delete on a map
    ({"nodeSelector": {"$patch": "replace", "team": "b"}}, lambda r: r["nodeSelector"] == {"team": "b"}),
    ({"nodeSelector": {"$patch": "delete"}}, lambda r: "nodeSelector" not in r),
    ({"nodeSelector": {"tier": None, "zone": "x"}}, lambda r: r["nodeSelector"] == {"team": "a", "zone": "x"}),
    ({"nodeSelector": None}, lambda r: "nodeSelector" not in r),
    # volumes by name; $retainKeys keeps only the listed keys of the merged map
    ({"volumes": [{"name": "cache", "$retainKeys": ["name", "hostPath"], "hostPath": {"path": "/x"}}]},
     lambda r: r["volumes"][1] == {"name": "cache", "hostPath": {"path": "/x"}}),
    # $setElementOrder puts the named elements first, in that order
    ({"$setElementOrder/containers": [{"name": "sidecar"}, {"name": "app"}]},
     lambda r: [c["name"] for c in r["containers"]] == ["sidecar", "app"]),
])
def test_strategic_merge_patch(patch, check):
    before = copy.deepcopy(POD_SPEC)
    patch_before = copy.deepcopy(patch)
    result = _strategic(patch)
    assert check(result), result
    assert POD_SPEC == before and patch == patch_before


def test_strategic_merge_patch_primitive_lists_and_sharing():
    meta = {"finalizers": ["a", "b"], "labels": {"x": "1"}}
    assert strategic_merge_patch(meta, {"finalizers": ["c", "a"]})["finalizers"] == ["a", "b", "c"]
    assert strategic_merge_patch(meta, {"$deleteFromPrimitiveList/finalizers": ["a"]})["finalizers"] == ["b"]
    result = strategic_merge_patch(meta, {"other": 1})
    assert result["labels"] is meta["labels"]  # untouched parts are shared, never copied
    patch = {"labels": {"y": {"deep": [1]}}}
    assert strategic_merge_patch(meta, patch)["labels"]["y"] is not patch["labels"]["y"]


@pytest.mark.parametrize("patch, message", [
    ({"containers": [{"image": "x"}]}, "missing the merge key 'name'"),
    ({"containers": ["x"]}, "elements are objects merged by name"),
    ({"topologySpreadConstraints": [{"topologyKey": ZONE, "maxSkew": 3}]}, "matches 2 elements"),
    ({"tolerations": [{"key": "a", "$patch": "delete"}]}, "tolerations is replaced whole"),
    ({"nodeSelector": {"$patch": "explode"}}, "unknown $patch directive 'explode'"),
    ({"$frobnicate": 1}, "unknown directive"),
    ({"$patch": "delete"}, "cannot delete the whole object"),
    ({"$retainKeys": "name"}, "expected a list of keys"),
])
def test_strategic_merge_patch_errors(patch, message):
    with pytest.raises(PatchError, match=None) as info:
        _strategic(patch)
    assert message in str(info.value)


def test_strategic_patch_must_be_a_mapping():
    with pytest.raises(PatchError, match="a strategic merge patch is a mapping"):
        strategic_merge_patch({}, [1])


DOC = {"foo": ["bar", "baz"], "a/b": 1, "m~n": 2, "obj": {"x": 1}}


@pytest.mark.parametrize("ops, expected", [
    ([{"op": "add", "path": "/baz", "value": "qux"}], {**DOC, "baz": "qux"}),
    ([{"op": "add", "path": "/foo/1", "value": "qux"}], {**DOC, "foo": ["bar", "qux", "baz"]}),
    ([{"op": "add", "path": "/foo/-", "value": "end"}], {**DOC, "foo": ["bar", "baz", "end"]}),
    ([{"op": "add", "path": "/foo/2", "value": "end"}], {**DOC, "foo": ["bar", "baz", "end"]}),
    ([{"op": "remove", "path": "/foo/0"}], {**DOC, "foo": ["baz"]}),
    ([{"op": "remove", "path": "/a~1b"}], {k: v for k, v in DOC.items() if k != "a/b"}),
    ([{"op": "replace", "path": "/m~0n", "value": 3}], {**DOC, "m~n": 3}),
    ([{"op": "replace", "path": "/foo/1", "value": "qux"}], {**DOC, "foo": ["bar", "qux"]}),
    ([{"op": "move", "from": "/obj/x", "path": "/y"}], {**DOC, "obj": {}, "y": 1}),
    ([{"op": "move", "from": "/foo/0", "path": "/foo/1"}], {**DOC, "foo": ["baz", "bar"]}),
    ([{"op": "copy", "from": "/obj", "path": "/obj2"}], {**DOC, "obj2": {"x": 1}}),
    ([{"op": "test", "path": "/foo", "value": ["bar", "baz"]},
      {"op": "test", "path": "/a~1b", "value": 1.0}], DOC),
    ([{"op": "replace", "path": "", "value": {"new": True}}], {"new": True}),
])
def test_json_patch_rfc6902(ops, expected):
    before = copy.deepcopy(DOC)
    assert json_patch(DOC, ops) == expected
    assert DOC == before


@pytest.mark.parametrize("ops, message", [
    ([{"op": "remove", "path": "/nope"}], "operation 1 (remove /nope): /nope: no such key"),
    ([{"op": "remove", "path": "/foo/5"}], "index 5 is out of range (the list has 2)"),
    ([{"op": "replace", "path": "/foo/01", "value": 1}], "'01' is not a list index"),
    ([{"op": "remove", "path": "/foo/-"}], "'-' names no element"),
    ([{"op": "add", "path": "/a~1b/x", "value": 1}], "is a int, not an object or list"),
    ([{"op": "test", "path": "/a~1b", "value": True}], "test failed"),
    ([{"op": "add", "path": "/x", "value": 1}, {"op": "test", "path": "/x", "value": 2}], "operation 2 (test /x)"),
    ([{"op": "move", "from": "/obj", "path": "/obj/x"}], "into one of its own children"),
    ([{"op": "frob", "path": "/x"}], "unknown op 'frob'"),
    ([{"op": "add", "path": "/x"}], "value missing"),
    ([{"op": "copy", "path": "/x"}], "from missing"),
    ([{"op": "add", "path": "x", "value": 1}], "must start with '/'"),
    ([{"op": "add", "path": "/a~2", "value": 1}], "'~' must be followed by 0 or 1"),
    ([{"op": "add", "path": "/x", "value": 1, "extra": 1}], "unknown key 'extra'"),
    ({"op": "add"}, "a JSON patch is a list of operations"),
])
def test_json_patch_errors(ops, message):
    before = copy.deepcopy(DOC)
    with pytest.raises(PatchError) as info:
        json_patch(DOC, ops)
    assert message in str(info.value)
    assert DOC == before  # all or nothing: the input is never touched


def test_apply_patch_dispatch():
    assert apply_patch({"a": [1]}, {"a": [2]}, "merge") == {"a": [2]}
    assert apply_patch({"a": 1}, [{"op": "remove", "path": "/a"}], "json") == {}
    with pytest.raises(PatchError, match="unknown patch type"):
        apply_patch({}, {}, "yaml")
    with pytest.raises(PatchError, match="a merge patch is a mapping"):
        apply_patch({}, [], "merge")


# ==========================================================================
# io.py: the file format
# ==========================================================================

def test_fixture_files_load():
    loaded = {p.stem: load_whatif(p) for p in sorted(WHATIFS.glob("*.yaml"))}
    assert set(loaded) >= {"drop-hostname-spread", "drop-hostname-spread-json", "scale-inflate", "nodes"}
    drop = loaded["drop-hostname-spread"]
    assert drop.name == "drop-hostname-spread" and drop.source.endswith("drop-hostname-spread.yaml")
    assert drop.edits[0].target == Target("Deployment", "host-spread", "default")
    assert drop.edits[0].patch_type == "strategic"
    assert loaded["drop-hostname-spread-json"].edits[0].patch_type == "json"
    assert loaded["scale-inflate"].edits == (Scale(Target("Deployment", "inflate", "default"), 10),)
    kinds = [type(e) for e in loaded["nodes"].edits]
    assert kinds == [Cordon, RemoveNode, AddNodes]
    assert loaded["nodes"].edits[2] == AddNodes("m5.xlarge", "ap-northeast-2c", count=2, nodepool="default",
                                                name_prefix="whatif")


def test_save_load_round_trip(tmp_path):
    original = WhatIf("everything", (
        Patch(Target("Deployment", "host-spread", "default"),
              {"spec": {"template": {"spec": {"topologySpreadConstraints": [{"$patch": "replace"}]}}}}),
        Patch(Target("NodePool", "default"), {"spec": {"limits": {"cpu": "10"}}}, "merge"),
        Patch(Target("Deployment", "inflate", "default"), [{"op": "remove", "path": "/spec/template/spec/x"}], "json"),
        Scale(Target("StatefulSet", "db", "data"), 0),
        Cordon("node-a"), Cordon("node-b", cordon=False), RemoveNode("node-c"),
        Remove(Target("PodDisruptionBudget", "inflate-pdb", "default")),
        AddNodes("m5.large", "us-east-1a", count=3, capacity_type="spot", nodepool="team1", name_prefix="extra",
                 region="us-east-1", labels={"team": "a"},
                 taints=({"key": "dedicated", "value": "a", "effect": "NoSchedule"},)),
    ), description="all edit kinds")
    path = tmp_path / "w.yaml"
    save_whatif(path, original)
    loaded = load_whatif(path)
    assert loaded == original
    assert loaded.description == "all edit kinds"
    text = path.read_text()
    assert text.startswith("apiVersion: karptui/v1\nkind: WhatIf\nname: everything\n")
    assert yaml.safe_load(text) == original.to_dict() == yaml.safe_load(dump_whatif(original))
    save_whatif(path, WhatIf("again"))  # atomic overwrite
    assert load_whatif(path) == WhatIf("again")
    assert [p.name for p in tmp_path.iterdir()] == ["w.yaml"]  # no temporary file left


def test_fixture_files_survive_a_round_trip(tmp_path):
    for path in sorted(WHATIFS.glob("*.yaml")):
        loaded = load_whatif(path)
        save_whatif(tmp_path / path.name, loaded)
        assert load_whatif(tmp_path / path.name) == loaded


def test_name_defaults_to_the_file_name(write):
    path = write("my-experiment.yaml", "edits: []\n")
    assert load_whatif(path) == WhatIf("my-experiment")


def test_json_what_if_files_load(write):
    path = write("w.json", {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "j",
                            "edits": [{"target": "deployment/default/inflate", "scale": 2}]})
    assert load_whatif(path).edits == (Scale(Target("Deployment", "inflate", "default"), 2),)


def _edit(text: str) -> str:
    return "apiVersion: karptui/v1\nkind: WhatIf\nname: bad\nedits:\n" + text


BAD_FILES = [
    ("key: [unclosed\n", "invalid YAML at line 2"),
    ("- a\n- b\n", "expected a mapping with apiVersion"),
    ("edits: []\n---\nedits: []\n", "expected one WhatIf document, found 2"),
    ("apiVersion: v1\nedits: []\n", "apiVersion must be karptui/v1"),
    ("kind: Deployment\nedits: []\n", "kind must be WhatIf"),
    ("name: x\nedit: []\n", "unknown key 'edit'"),
    ("name: x\n", "edits missing"),
    ("name: x\nedits: {a: 1}\n", "edits must be a list"),
    ("name: 3\nedits: []\n", "name must be a non-empty string"),
    (_edit("- target: Deployment/default/x\n  scael: 3\n"), "edit 1: unknown key 'scael'"),
    (_edit("- target: Deployment/default/x\n"), "edit 1: nothing to do"),
    (_edit("- target: Deployment/default/x\n  scale: 3\n  cordon: true\n"), "edit 1: give one operation per edit"),
    (_edit("- scale: 3\n"), "edit 1: scale: target missing"),
    (_edit("- target: Deployment/x\n  scale: 3\n"), "edit 1: Deployment is namespaced"),
    (_edit("- target: Node/default/x\n  cordon: true\n"), "edit 1: Node is cluster-scoped"),
    (_edit("- target: Frobnicator/default/x\n  scale: 3\n"), "edit 1: target 'Frobnicator/default/x': unknown kind"),
    (_edit("- target: a/b/c/d\n  scale: 3\n"), "is not Kind/namespace/name"),
    (_edit("- target: Deployment//x\n  scale: 3\n"), "is not Kind/namespace/name"),
    (_edit("- target: Deployment/d/x\n  scale: 1\n- target: Deployment/d/x\n  scale: -1\n"),
     "edit 2: scale must be a whole number >= 0, got -1"),
    (_edit("- target: Deployment/d/x\n  scale: ten\n"), "scale must be a whole number >= 0, got 'ten'"),
    (_edit("- target: Deployment/d/x\n  scale: 2.5\n"), "scale must be a whole number >= 0, got 2.5"),
    (_edit("- target: Deployment/d/x\n  scale: true\n"), "scale must be a whole number"),
    (_edit("- target: DaemonSet/kube-system/aws-node\n  scale: 2\n"), "cannot scale a DaemonSet"),
    (_edit("- target: Deployment/d/x\n  patch: [1]\n"), "a strategic patch is a mapping"),
    (_edit("- target: Deployment/d/x\n  patchType: merge\n  patch: yes\n"), "a merge patch is a mapping"),
    (_edit("- target: Deployment/d/x\n  patchType: json\n  patch: {spec: 1}\n"), "a json patch is a list"),
    (_edit("- target: Deployment/d/x\n  patchType: json\n  patch: [{op: frob, path: /a}]\n"), "unknown op 'frob'"),
    (_edit("- target: Deployment/d/x\n  patchType: xml\n  patch: {}\n"), "unknown patchType 'xml'"),
    (_edit("- target: Deployment/d/x\n  patch: {spec: {$patch: explode}}\n"), "unknown $patch directive"),
    (_edit("- target: Deployment/d/x\n  patchType: json\n  scale: 1\n"), "patchType goes with patch"),
    (_edit("- target: Deployment/d/x\n  cordon: true\n"), "cordon takes a Node target"),
    (_edit("- target: Node/n\n  cordon: maybe\n"), "cordon must be true or false"),
    (_edit("- target: Node/n\n  remove: false\n"), "remove must be true"),
    (_edit("- target: NodePool/default\n  remove: true\n"), "cannot remove a NodePool"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, count: 0}\n"), "addNodes: count must be a whole number >= 1"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, count: two}\n"), "count must be a whole number >= 1"),
    (_edit("- addNodes: {instanceType: m5.large}\n"), "addNodes: zone missing"),
    (_edit("- addNodes: {zone: z}\n"), "addNodes: instanceType missing"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, capacityType: cheap}\n"), "capacityType must be one of"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, size: 3}\n"), "addNodes: unknown key 'size'"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, labels: {a: 1}}\n"), "labels must map strings to strings"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, taints: [{key: a, effect: Never}]}\n"),
     "taints[0].effect: 'Never' is not NoSchedule"),
    (_edit("- addNodes: [m5.large]\n"), "addNodes must be a mapping"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z, namePrefix: Big_Node}\n"), "cannot start a node name"),
    (_edit("- addNodes: {instanceType: m5.large, zone: z}\n  target: Node/x\n"), "addNodes takes no target"),
    (_edit("- just a string\n"), "edit 1: expected a mapping"),
]


@pytest.mark.parametrize("text, message", BAD_FILES, ids=[m for _, m in BAD_FILES])
def test_bad_files_are_one_clear_line(write, text, message):
    path = write("bad.yaml", text)
    with pytest.raises(InputError) as info:
        load_whatif(path)
    line = str(info.value)
    assert message in line
    assert line.startswith(f"{path}: ")
    assert "\n" not in line


@pytest.mark.parametrize("name, content, message", [
    ("missing.yaml", None, "no such file"),
    ("empty.yaml", "", "file is empty"),
    ("binary.yaml", b"\x00\x01", "not a text file"),
])
def test_unreadable_files(write, tmp_path, name, content, message):
    path = write(name, content) if content is not None else tmp_path / name
    with pytest.raises(InputError, match=message):
        load_whatif(path)


def test_edits_check_themselves():
    with pytest.raises(ValueError, match="cannot scale a DaemonSet"):
        Scale(Target("DaemonSet", "aws-node", "kube-system"), 2)
    with pytest.raises(ValueError, match="unknown kind"):
        Target("Gadget", "x")
    with pytest.raises(ValueError, match="node name"):
        RemoveNode("")
    with pytest.raises(ValueError, match="use RemoveNode"):
        Remove(Target("Node", "x"))
    patch = {"spec": {"replicas": 1}}
    edit = Patch(Target("Deployment", "x", "d"), patch)
    patch["spec"]["replicas"] = 5
    assert edit.patch == {"spec": {"replicas": 1}}  # the edit holds its own copy


def test_parse_whatif_from_data():
    parsed = parse_whatif({"edits": [{"target": "node/n1", "remove": True}]}, default_name="x")
    assert parsed == WhatIf("x", (RemoveNode("n1"),))
    assert Target.parse("poddisruptionbudget/kube-system/coredns") == \
        Target("PodDisruptionBudget", "coredns", "kube-system")
    assert str(Target.parse("Node/ip-1.ec2.internal")) == "Node/ip-1.ec2.internal"


# ==========================================================================
# apply.py on the bundled snapshots
# ==========================================================================

@pytest.mark.parametrize("fixture", ["drop-hostname-spread.yaml", "drop-hostname-spread-json.yaml"])
def test_drop_hostname_spread(spread, fixture):
    before = fingerprint(spread)
    old = pods_of(spread, "Deployment", "host-spread")
    assert len(old) == 20 and sum(p.is_pending for p in old) == 6
    applied = apply_whatif(spread, load_whatif(WHATIFS / fixture))
    new = pods_of(applied.snapshot, "Deployment", "host-spread")
    assert len(new) == 20 and all(p.is_pending for p in new)
    # a template change is a rollout: a new ReplicaSet with its own pod-template-hash owns new pods
    rs = new[0].owners[0].name
    assert rs.startswith("host-spread-") and rs != "host-spread-fbbf7c9d9"
    template_hash = rs.removeprefix("host-spread-")
    assert not {p.name for p in new} & {p.name for p in old}
    for pod in new:
        assert [(c.topology_key, c.max_skew) for c in pod.spread_constraints] == [(ZONE, 5)]
        assert pod.owners[0].kind == "ReplicaSet" and pod.owners[0].name == rs
        assert pod.labels == {"app": "host-spread", "pod-template-hash": template_hash}
        assert pod.requests == old[0].requests and pod.tolerations == old[0].tolerations
        assert pod.created == spread.meta.captured_at
        assert applied.snapshot.top_owner(pod).ref == "Deployment/default/host-spread"
    sets = {w.name: w.replicas for w in applied.snapshot.workloads if w.kind == "ReplicaSet"
            and w.name.startswith("host-spread-")}
    assert sets == {"host-spread-fbbf7c9d9": 0, rs: 20}
    assert applied.resimulated == ("Deployment/default/host-spread",)
    assert "rollout (RollingUpdate): 20 pod(s) replaced by 20 pending pod(s)" in applied.notes[0]
    assert applied.deleted == {p.key for p in old} and applied.added == {p.key for p in new}
    (rollout,) = applied.rollouts
    assert (rollout.max_surge, rollout.max_unavailable) == (5, 5)   # 25% of 20, up and down
    # every other pod is the very same object
    others = [p for p in spread.pods if p not in old]
    assert all(any(p is q for q in applied.snapshot.pods) for p in others)
    assert len(applied.snapshot.pods) == len(spread.pods)
    assert applied.snapshot.nodes is spread.nodes and applied.snapshot.pdbs is spread.pdbs
    deployment = next(w for w in applied.snapshot.workloads if w.ref == "Deployment/default/host-spread")
    assert len(deployment.raw["spec"]["template"]["spec"]["topologySpreadConstraints"]) == 1
    assert fingerprint(spread) == before


def test_soften_hostname_spread(spread):
    applied = apply_whatif(spread, load_whatif(WHATIFS / "soften-hostname-spread.yaml"))
    pod = pods_of(applied.snapshot, "Deployment", "host-spread")[0]
    assert [(c.topology_key, c.when_unsatisfiable) for c in pod.spread_constraints] == [
        (ZONE, "DoNotSchedule"), (HOSTNAME, "ScheduleAnyway")]


def test_scale_inflate_up_in_consolidation(consolidation):
    """Scaling up adds pods from the template; every running pod stays, the very same object
    (ReplicaSet controller, manageReplicas: diff < 0 creates, touching no existing pod)."""
    before = fingerprint(consolidation)
    old = pods_of(consolidation, "Deployment", "inflate")
    assert len(old) == 6
    applied = apply_whatif(consolidation, load_whatif(WHATIFS / "scale-inflate.yaml"), now=NOW)
    new = pods_of(applied.snapshot, "Deployment", "inflate")
    assert len(new) == 10
    assert all(any(p is q for q in new) for p in old)          # kept, untouched
    added = [p for p in new if all(p is not q for q in old)]
    assert [p.name for p in added] == [f"inflate-wjq4g8lgtc-whatif-{n}" for n in range(1, 5)]
    assert all(p.is_pending and p.created == NOW for p in added)
    assert all(p.labels["pod-template-hash"] == "wjq4g8lgtc" for p in added)
    refs = {w.ref: w.replicas for w in applied.snapshot.workloads if w.name.startswith("inflate")}
    assert refs == {"Deployment/default/inflate": 10, "ReplicaSet/default/inflate-wjq4g8lgtc": 10}
    assert applied.snapshot.pdbs is consolidation.pdbs
    assert len(applied.snapshot.pods) == len(consolidation.pods) + 4
    assert applied.added == {p.key for p in added} and applied.deleted == frozenset()
    assert applied.rollouts == ()
    assert fingerprint(consolidation) == before


def test_scale_down_deletes_what_the_controller_ranks_first(consolidation):
    """Scaling down deletes pods and moves none (getPodsToDelete); to 0 deletes them all."""
    target = Target("Deployment", "inflate", "default")
    old = pods_of(consolidation, "Deployment", "inflate")
    two = apply(consolidation, Scale(target, 2))
    kept = pods_of(two.snapshot, "Deployment", "inflate")
    assert len(kept) == 2 and all(any(p is q for q in old) for p in kept)
    assert len(two.deleted) == 4 and not two.added
    zero = apply(consolidation, Scale(target, 0)).snapshot
    assert pods_of(zero, "Deployment", "inflate") == []


def test_edits_apply_in_order(consolidation):
    target = Target("Deployment", "inflate", "default")
    applied = apply(consolidation, Scale(target, 3),
                    Patch(target, {"spec": {"template": {"spec": {"nodeSelector": {"team": "x"}}}}}),
                    Scale(target, 4))
    pods = pods_of(applied.snapshot, "Deployment", "inflate")
    assert len(pods) == 4 and all(p.node_selector == {"team": "x"} for p in pods)
    assert applied.resimulated == ("Deployment/default/inflate",)
    assert len(applied.notes) == 3


RESTARTED = "kubectl.kubernetes.io/restartedAt"
BUNDLED = ["topology-spread", "consolidation", "multi-nodepool", "overprovisioning"]
SCHEDULING = ("priority", "priority_class_name", "scheduler_name", "requests", "node_selector", "spread_constraints",
              "host_ports", "pvc_names", "labels", "annotations", "owners")


@pytest.mark.parametrize("name", BUNDLED)
def test_an_empty_patch_recreates_the_real_pods(name):
    """Admission is emulated well enough that a restart (``kubectl rollout restart``: a template
    annotation, so every controller rolls its pods out) gives pods like the cluster's; an empty
    patch changes nothing at all."""
    snapshot = load_snapshot(bundled_snapshot(name))
    restart = {"spec": {"template": {"metadata": {"annotations": {RESTARTED: "2024-09-10T03:00:00Z"}}}}}
    for workload in (w for w in snapshot.workloads if w.raw is not None and w.kind != "Job"):
        target = Target(workload.kind, workload.name, workload.namespace)
        old = pods_of(snapshot, workload.kind, workload.name, workload.namespace)
        same = pods_of(apply(snapshot, Patch(target, {})).snapshot, workload.kind, workload.name, workload.namespace)
        assert len(same) == len(old) and all(any(p is q for q in old) for p in same), workload.ref
        applied = apply(snapshot, Patch(target, restart))
        new = pods_of(applied.snapshot, workload.kind, workload.name, workload.namespace)
        assert len(new) == len([p for p in old if not p.is_terminal]), workload.ref
        real = next(p for p in old if not p.is_terminal)
        for pod in new:
            for field in SCHEDULING:
                if field in ("labels", "annotations", "owners"):
                    continue
                assert getattr(pod, field) == getattr(real, field), (pod.name, field)
            assert set(pod.tolerations) == set(real.tolerations), pod.name
            assert {k: v for k, v in pod.labels.items() if k != "pod-template-hash"} == \
                {k: v for k, v in real.labels.items() if k != "pod-template-hash"}
            assert pod.annotations[RESTARTED] == "2024-09-10T03:00:00Z"
            assert pod.is_pending and not pod.node_name
            if workload.kind != "DaemonSet":
                assert pod.affinity == real.affinity
        if workload.kind == "DaemonSet":   # re-created on their own nodes, keeping their names
            assert sorted((_pinned_node(p), p.name) for p in new) == sorted((p.node_name, p.name) for p in old)


def test_fargate_pods_stay_on_fargate(spread):
    """karpenter runs on Fargate: the webhook's schedulerName and toleration are kept."""
    applied = apply(spread, Scale(Target("Deployment", "karpenter", "karpenter"), 3))
    pods = pods_of(applied.snapshot, "Deployment", "karpenter", "karpenter")
    assert len(pods) == 3 and {p.scheduler_name for p in pods} == {"fargate-scheduler"}
    assert all(any(t.key == "eks.amazonaws.com/compute-type" for t in p.tolerations) for p in pods)
    assert any("schedulerName fargate-scheduler" in n for n in applied.notes)
    # a patch that sets the scheduler itself wins
    patched = apply(spread, Patch(Target("Deployment", "karpenter", "karpenter"),
                                  {"spec": {"template": {"spec": {"schedulerName": "other"}}}}))
    assert {p.scheduler_name for p in pods_of(patched.snapshot, "Deployment", "karpenter", "karpenter")} == {"other"}


def test_daemonset_patch_runs_one_pod_per_admitted_node(spread):
    target = Target("DaemonSet", "kube-proxy", "kube-system")
    applied = apply(spread, Patch(target, {"spec": {"template": {"spec": {
        "nodeSelector": {"node.kubernetes.io/instance-type": "c5.2xlarge"}}}}}))
    pods = pods_of(applied.snapshot, "DaemonSet", "kube-proxy", "kube-system")
    c5 = sorted(n.name for n in spread.nodes if n.instance_type == "c5.2xlarge")
    assert sorted(_pinned_node(p) for p in pods) == c5 and len(c5) == 4
    assert all(p.is_pending and p.priority == 2000001000 for p in pods)
    keys = [t.key for t in pods[0].tolerations]
    assert "node.kubernetes.io/unschedulable" in keys and "node.kubernetes.io/network-unavailable" in keys
    assert applied.resimulated == ("DaemonSet/kube-system/kube-proxy",)
    # Fargate nodes never get one: the template's affinity excludes them
    assert all(not _pinned_node(p).startswith("fargate") for p in pods)


def test_priority_admission(overprov):
    inflate = Target("Deployment", "inflate", "default")
    assert {p.priority for p in pods_of(overprov, "Deployment", "inflate")} == {-10}
    # class name in the template -> its value
    api = Target("Deployment", "team1-api", "team1")
    set_class = {"spec": {"template": {"spec": {"priorityClassName": "overprovisioning"}}}}
    pods = pods_of(apply(overprov, Patch(api, set_class)).snapshot, "Deployment", "team1-api", "team1")
    assert {(p.priority, p.priority_class_name) for p in pods} == {(-10, "overprovisioning")}
    # a built-in class a dump leaves out
    builtin = {"spec": {"template": {"spec": {"priorityClassName": "system-cluster-critical"}}}}
    pods = pods_of(apply(overprov, Patch(inflate, builtin)).snapshot, "Deployment", "inflate")
    assert {p.priority for p in pods} == {2000000000}
    # an unknown class: priority 0, and a note says so
    applied = apply(overprov, Patch(inflate, {"spec": {"template": {"spec": {"priorityClassName": "nope"}}}}))
    assert {p.priority for p in pods_of(applied.snapshot, "Deployment", "inflate")} == {0}
    assert any("PriorityClass nope is not in the snapshot" in n for n in applied.notes)
    # edits apply in order: make the class the global default, then scale team1-api up: the new
    # pods get the default class at admission, the running ones keep what they were admitted with
    running = pods_of(overprov, "Deployment", "team1-api", "team1")
    applied = apply(overprov, Patch(Target("PriorityClass", "overprovisioning"), {"globalDefault": True}),
                    Scale(api, len(running) + 2))
    assert applied.snapshot.priority_classes[0].global_default
    pods = pods_of(applied.snapshot, "Deployment", "team1-api", "team1")
    added = [p for p in pods if p.key in applied.added]
    assert len(added) == 2 and {(p.priority, p.priority_class_name) for p in added} == {(-10, "overprovisioning")}
    assert [p for p in pods if p.key not in applied.added] == running


def test_nodes_fixture(spread):
    before = fingerprint(spread)
    applied = apply_whatif(spread, load_whatif(WHATIFS / "nodes.yaml"), now=NOW)
    snap = applied.snapshot
    cordoned = snap.node_by_name[NODE_2A]
    assert cordoned.unschedulable
    assert [(t.key, t.effect) for t in cordoned.taints] == [("node.kubernetes.io/unschedulable", "NoSchedule")]
    # pods stay on a cordoned node
    assert [p.name for p in snap.pods_by_node[NODE_2A]] == [p.name for p in spread.pods_by_node[NODE_2A]]
    # the removed node is gone; its host-spread pods wait again, its daemon pods are gone
    assert NODE_2B not in snap.node_by_name
    was_there = spread.pods_by_node[NODE_2B]
    names = {p.name: p for p in snap.pods}
    for pod in was_there:
        if pod.is_daemonset_pod:
            assert pod.name not in names
        else:
            assert names[pod.name].is_pending and names[pod.name].node_name == ""
            assert names[pod.name].owners == pod.owners
    # two m5.xlarge nodes in 2c, labelled for the default Provisioner
    added = [n for n in snap.nodes if n.name.startswith("whatif-")]
    assert [n.name for n in added] == ["whatif-1", "whatif-2"]
    for node in added:
        assert (node.instance_type, node.zone, node.capacity_type, node.nodepool) == \
            ("m5.xlarge", "ap-northeast-2c", "on-demand", "default")
        assert node.region == "ap-northeast-2" and node.ready and node.allocatable["cpu"] > 3000
        assert node.created == NOW
    daemon = [p for p in snap.pods if p.is_daemonset_pod and _pinned_node(p).startswith("whatif-")]
    assert sorted(p.name for p in daemon) == sorted(
        f"{ds}-whatif-{n}" for ds in ("aws-node", "ebs-csi-node", "kube-proxy") for n in (1, 2))
    assert all(p.is_pending for p in daemon)
    assert len(snap.nodes) == len(spread.nodes) + 1
    assert applied.resimulated == ()
    assert [n.split(":")[0] for n in applied.notes][:2] == [f"Node/{NODE_2A} cordoned",
                                                             f"Node/{NODE_2B} drained and removed"]
    assert fingerprint(spread) == before


def test_uncordon_and_recordon(spread):
    node = Target("Node", NODE_2A)
    snap = apply(spread, Cordon(NODE_2A), Cordon(NODE_2A, cordon=False)).snapshot
    back = snap.node_by_name[NODE_2A]
    assert not back.unschedulable and back.taints == ()
    assert "unschedulable" not in back.raw["spec"] and "taints" not in back.raw["spec"]
    twice = apply(spread, Cordon(NODE_2A), Cordon(NODE_2A))
    assert len(twice.snapshot.node_by_name[NODE_2A].taints) == 1
    assert any("already cordoned" in n for n in twice.notes)
    untouched = [n for n in snap.nodes if n.name != node.name]
    assert all(any(n is m for m in spread.nodes) for n in untouched)


def test_remove_node_with_claim_and_an_unmanaged_pod(consolidation):
    node = "ip-192-168-118-56.ap-northeast-2.compute.internal"
    on_node = consolidation.pods_by_node[node]
    assert any(p.controller is None for p in on_node)  # checkpoint-worker
    applied = apply(consolidation, RemoveNode(node))
    snap = applied.snapshot
    assert node not in snap.node_by_name
    assert [c.name for c in snap.nodeclaims] == ["default-xgblv"]
    names = {p.name: p for p in snap.pods}
    assert "checkpoint-worker" not in names
    moved = [p for p in on_node if p.controller is not None and not p.is_daemonset_pod]
    assert moved and all(names[p.name].is_pending for p in moved)
    assert "without a controller lost" in applied.notes[0]


def test_add_nodes_to_a_nodepool_carries_its_labels(multi):
    applied = apply(multi, AddNodes("c6g.xlarge", "ap-northeast-2a", count=1, nodepool="team1"))
    node = applied.snapshot.nodes[-1]
    assert node.name == "whatif-c6g.xlarge-1"
    assert node.labels["team"] == "team1" and node.nodepool == "team1" and node.arch == "arm64"
    assert not any("requirements" in n for n in applied.notes)
    spot = apply(multi, AddNodes("c6g.xlarge", "ap-northeast-2a", capacity_type="spot", nodepool="team1"))
    assert any("do not meet NodePool/team1's requirements: karpenter.sh/capacity-type" in n for n in spot.notes)


def test_add_nodes_skip_taken_names_and_take_taints(multi):
    edit = AddNodes("m5.large", "ap-northeast-2b", count=2, name_prefix="n",
                    taints=({"key": "dedicated", "value": "gpu", "effect": "NoSchedule"},))
    snap = apply(multi, edit, AddNodes("m5.large", "ap-northeast-2b", name_prefix="n")).snapshot
    added = [n for n in snap.nodes if n.name.startswith("n-")]
    assert [n.name for n in added] == ["n-1", "n-2", "n-3"]
    assert [t.key for t in added[0].taints] == ["dedicated"] and added[2].taints == ()
    # the daemons tolerate everything (operator: Exists), so each tainted node still gets them
    assert sum(1 for p in snap.pods if _pinned_node(p) == "n-1") == 3


def test_remove_pdb_and_workload(consolidation):
    applied = apply(consolidation, Remove(Target("PodDisruptionBudget", "inflate-pdb", "default")),
                    Remove(Target("Deployment", "inflate", "default")))
    snap = applied.snapshot
    assert [p.name for p in snap.pdbs] == ["karpenter", "coredns"]
    assert not [w for w in snap.workloads if w.name.startswith("inflate")]
    assert not [p for p in snap.pods if p.name.startswith("inflate")]
    assert len(snap.pods) == len(consolidation.pods) - 6


def test_patch_nodepool_pdb_and_node(multi, consolidation):
    pool = Target("NodePool", "default")
    applied = apply(multi, Patch(pool, {"spec": {
        "template": {"spec": {"requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                                "values": ["on-demand"]}]}},
        "limits": {"memory": "100Gi"}}}))
    rebuilt = next(p for p in applied.snapshot.nodepools if p.name == "default")
    assert [str(r) for r in rebuilt.requirements] == ["karpenter.sh/capacity-type In [on-demand]"]
    assert rebuilt.limits["cpu"] == 1000_000 and "memory" in rebuilt.limits
    assert applied.snapshot.nodes is multi.nodes and applied.resimulated == ()
    pdb = Target("PodDisruptionBudget", "inflate-pdb", "default")
    patched = apply(consolidation, Patch(pdb, {"spec": {"minAvailable": None, "maxUnavailable": "100%"}}))
    assert next(p for p in patched.snapshot.pdbs if p.name == "inflate-pdb").max_unavailable == "100%"
    node = consolidation.nodes[0]
    labelled = apply(consolidation, Patch(Target("Node", node.name), {"metadata": {"labels": {"x": "y"}}}))
    assert labelled.snapshot.nodes[0].labels["x"] == "y"
    assert labelled.snapshot.pods is consolidation.pods


# ==========================================================================
# apply.py on small hand-built clusters: StatefulSet, Job, a Deployment alone
# ==========================================================================

def _template(app: str, cpu: str = "500m", **spec) -> dict:
    return {"metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": app, "image": f"{app}:1",
                                     "resources": {"requests": {"cpu": cpu}}}], **spec}}


def _workload(kind: str, name: str, api="apps/v1", **spec) -> dict:
    return {"apiVersion": api, "kind": kind,
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}",
                         "creationTimestamp": "2024-05-01T10:00:00Z"},
            "spec": {"selector": {"matchLabels": {"app": name}}, "template": _template(name), **spec}}


def _owned(pod: dict, kind: str, owner: str) -> dict:
    pod["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": kind, "name": owner,
                                           "uid": f"uid-{owner}", "controller": True}]
    return pod


@pytest.fixture
def small():
    return build_snapshot([
        node_obj("n1", "us-east-1a"), node_obj("n2", "us-east-1b"),
        _workload("StatefulSet", "db", replicas=2, volumeClaimTemplates=[{"metadata": {"name": "data"}}]),
        _owned(pod_obj("db-0", node="n1"), "StatefulSet", "db"),
        _owned(pod_obj("db-1", node="n2"), "StatefulSet", "db"),
        _workload("Job", "batch", api="batch/v1", parallelism=5, completions=3),
        _workload("Deployment", "solo", replicas=1),
        pod_obj("bare", node="n1"),
    ])


def test_statefulset_pods_are_ordinals_with_their_claims(small):
    applied = apply(small, Scale(Target("StatefulSet", "db", "default"), 3))
    pods = pods_of(applied.snapshot, "StatefulSet", "db")
    assert [p.name for p in pods] == ["db-0", "db-1", "db-2"]
    # db-0 and db-1 run on; the controller creates the missing ordinal with its claim
    assert [p.node_name for p in pods] == ["n1", "n2", ""]
    assert pods[2].pvc_names == ("data-db-2",)
    assert pods[2].labels == {"app": "db", "statefulset.kubernetes.io/pod-name": "db-2"}
    one = pods_of(apply(small, Scale(Target("StatefulSet", "db", "default"), 1)).snapshot, "StatefulSet", "db")
    assert [p.name for p in one] == ["db-0"]   # the highest ordinal goes first


def test_job_parallelism_capped_by_completions(small):
    job = Target("Job", "batch", "default")
    applied = apply(small, Patch(job, {}))
    assert [p.name for p in pods_of(applied.snapshot, "Job", "batch")] == [f"batch-whatif-{n}" for n in (1, 2, 3)]
    assert len(pods_of(apply(small, Scale(job, 2)).snapshot, "Job", "batch")) == 2
    suspended = apply(small, Patch(job, {"spec": {"suspend": True}}))
    assert pods_of(suspended.snapshot, "Job", "batch") == []
    raw = next(w for w in apply(small, Scale(job, 2)).snapshot.workloads if w.name == "batch").raw
    assert raw["spec"]["parallelism"] == 2


def test_deployment_without_replicaset_owns_its_pods(small):
    applied = apply(small, Scale(Target("Deployment", "solo", "default"), 2))
    pods = pods_of(applied.snapshot, "Deployment", "solo")
    assert [p.name for p in pods] == ["solo-whatif-1", "solo-whatif-2"]
    assert pods[0].owners[0].kind == "Deployment" and pods[0].owners[0].uid == "uid-solo"
    assert {(t.key, t.toleration_seconds) for t in pods[0].tolerations} == {
        ("node.kubernetes.io/not-ready", 300), ("node.kubernetes.io/unreachable", 300)}


def test_without_a_capture_time_new_objects_are_made_at_the_snapshots_time_and_do_not_move_it(small):
    """Made at the wall clock, a what-if's pods were years newer than a dump's objects: the dump's
    "now" (its newest timestamp) jumped to today, and every age, budget and consolidateAfter with it."""
    assert small.meta.captured_at is None and small.as_of is not None
    applied = apply_whatif(small, whatif(Scale(Target("Deployment", "solo", "default"), 1)))
    assert pods_of(applied.snapshot, "Deployment", "solo")[0].created == small.as_of
    assert applied.snapshot.as_of == small.as_of


# ==========================================================================
# errors that depend on the snapshot
# ==========================================================================

APPLY_ERRORS = [
    ("spread", Scale(Target("Deployment", "nope", "default"), 1),
     "edit 1: Deployment/default/nope not found in the snapshot (2 Deployment(s) in namespace default)"),
    ("spread", Scale(Target("Deployment", "host-sprad", "default"), 1), "did you mean host-spread?"),
    ("spread", Cordon("ip-192-168-11-22.ap-northeast-2.compute.internal"), "Node/ip-192-168-11-22"),
    ("spread", Patch(Target("NodePool", "default"), {}), "NodePool/default not found in the snapshot "
     "(0 NodePool(s); did you mean Provisioner/default?)"),
    ("spread", Scale(Target("StatefulSet", "inflate", "default"), 1), "did you mean Deployment/default/inflate?"),
    ("spread", Patch(Target("Pod", "host-spread-fbbf7c9d9-2f8zg", "default"), {}),
     "pods are not kept whole in a snapshot: edit Deployment/default/host-spread instead"),
    ("spread", Scale(Target("ReplicaSet", "host-spread-fbbf7c9d9", "default"), 3),
     "ReplicaSet/default/host-spread-fbbf7c9d9 is managed by Deployment/default/host-spread: edit that instead"),
    ("consolidation", Patch(Target("NodeClaim", "default-hp9st"), {}),
     "the snapshot keeps no manifest for NodeClaim objects"),
    ("spread", Patch(Target("Deployment", "inflate", "default"), {"spec": {"replicas": "ten"}}),
     "Deployment/default/inflate: the edited object is not valid: spec.replicas: expected an integer"),
    ("spread", Patch(Target("Deployment", "inflate", "default"), {"spec": {"replicas": -2}}),
     "replicas must be >= 0, got -2"),
    ("spread", Patch(Target("Deployment", "inflate", "default"),
                     {"spec": {"template": {"spec": {"containers": [{"name": "inflate",
                                                                     "resources": {"requests": {"cpu": "lots"}}}]}}}}),
     "inflate: the edited object is not valid: spec.containers[0].resources.requests.cpu: 'lots' is not a quantity"),
    ("spread", Patch(Target("Deployment", "inflate", "default"), {"metadata": {"name": "other"}}),
     "a patch cannot change metadata.name"),
    ("spread", Patch(Target("Deployment", "inflate", "default"),
                     [{"op": "test", "path": "/spec/replicas", "value": 3}], "json"),
     "edit 1: Deployment/default/inflate: operation 1 (test /spec/replicas): test failed: the value is 1, not 3"),
    ("spread", Patch(Target("Provisioner", "default"), {"spec": {"taints": [{"key": "a", "effect": "Sometimes"}]}}),
     "Provisioner/default: the edited object is not valid: spec.taints[0].effect"),
    ("spread", AddNodes("m5.xlarg", "ap-northeast-2c"), "addNodes: unknown instance type 'm5.xlarg'; did you mean"),
    ("spread", AddNodes("m5.xlarge", "ap-northeast-2c", capacity_type="reserved"),
     "m5.xlarge is not offered as reserved in ap-northeast-2c"),
    ("spread", AddNodes("m5.xlarge", "ap-northeast-2c", nodepool="gpu"),
     "no NodePool named 'gpu' in the snapshot (NodePools: default)"),
]


@pytest.mark.parametrize("which, edit, message", APPLY_ERRORS, ids=[m[:50] for _, _, m in APPLY_ERRORS])
def test_apply_errors_are_one_line(request, which, edit, message):
    snapshot = request.getfixturevalue(which)
    before = fingerprint(snapshot)
    with pytest.raises(InputError) as info:
        apply_whatif(snapshot, WhatIf("probe", (edit,)))
    line = str(info.value)
    assert message in line and line.startswith("probe: edit 1: ") and "\n" not in line
    assert fingerprint(snapshot) == before


def test_apply_errors_name_the_file_and_the_edit(spread, write):
    path = write("w.yaml", _edit("- target: Node/" + NODE_2A + "\n  cordon: true\n"
                                 "- target: Deployment/default/nope\n  scale: 1\n"))
    with pytest.raises(InputError, match=rf"^{path}: edit 2: Deployment/default/nope not found"):
        apply_whatif(spread, load_whatif(path))


def test_an_empty_whatif_changes_nothing(spread):
    applied = apply_whatif(spread, WhatIf("nothing"))
    assert applied.snapshot is spread or all(
        getattr(applied.snapshot, f) is getattr(spread, f) for f in ("nodes", "pods", "workloads"))
    assert applied.resimulated == () and applied.notes == ()


def test_the_documented_example_applies(spread):
    """The example in karptui.whatif's docstring (copied into the README) is a working what-if."""
    import textwrap

    import karptui.whatif

    doc = karptui.whatif.__doc__
    block = doc[doc.index("::\n") + 3:doc.index("Targets name any kind")]
    example = parse_whatif(yaml.safe_load(textwrap.dedent(block)), source="docstring")
    assert [type(e).__name__ for e in example.edits] == [
        "Patch", "Patch", "Patch", "Scale", "Cordon", "RemoveNode", "AddNodes"]
    applied = apply_whatif(spread, example, now=NOW)
    snap = applied.snapshot
    assert applied.resimulated == ("Deployment/default/host-spread", "Deployment/default/inflate")
    inflate = pods_of(snap, "Deployment", "inflate")
    assert len(inflate) == 10 and {p.requests["cpu"] for p in inflate} == {500}
    assert snap.nodepools[0].limits["cpu"] == 2_000_000
    added = [n for n in snap.nodes if n.name.startswith("whatif-")]
    assert [(n.labels["team"], [t.key for t in n.taints]) for n in added] == [("a", ["dedicated"])] * 2
