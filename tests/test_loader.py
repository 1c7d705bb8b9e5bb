"""Snapshot files in every shape an operator has, and hostile input."""

import gzip
import json
import os

import pytest
import yaml

from karptui.errors import InputError
from karptui.sources import load_snapshot
from tests.conftest import kube_list, node_obj, pod_obj

NODES = [node_obj("n1", "us-east-1a"), node_obj("n2", "us-east-1b")]
PODS = [pod_obj("web-1", node="n1"), pod_obj("web-2")]


def counts(snapshot):
    return len(snapshot.nodes), len(snapshot.pods), len(snapshot.pending_pods)


def test_kubectl_yaml_list(write):
    path = write("dump.yaml", yaml.safe_dump(kube_list(*NODES, *PODS)))
    snap = load_snapshot(path)
    assert counts(snap) == (2, 2, 1) and snap.zones == {"us-east-1a": 1, "us-east-1b": 1}
    assert snap.warnings == ()


def test_kubectl_json_list(write):
    assert counts(load_snapshot(write("dump.json", kube_list(*NODES, *PODS)))) == (2, 2, 1)


@pytest.mark.parametrize("layout", ["kubectl", "typed list", "gzip"])
def test_a_large_json_list_read_forward_is_the_same_cluster(write, monkeypatch, capsys, layout):
    """A dump of 64 MiB or more is read forward, never decoded to text whole (sources.decode.objects_read_forward):
    here every file is that large, and what `snapshot info` says of it is what the text path says."""
    from karptui.cli import main
    from karptui.sources import decode

    many = [node_obj(f"n{i}", "us-east-1a") for i in range(20)] + [pod_obj(f"p{i}", node=f"n{i % 20}") for i in range(60)]
    doc = kube_list(*many)
    if layout == "typed list":   # the raw API's: items without a kind, the list's kind after them
        doc = {"items": [{k: v for k, v in o.items() if k != "kind"} for o in many if o["kind"] == "Pod"],
               "kind": "PodList", "apiVersion": "v1"}
    text = json.dumps(doc, indent=4)
    path = write("dump.json.gz" if layout == "gzip" else "dump.json", gzip.compress(text.encode()) if layout == "gzip" else text)
    said = []
    for smallest in (decode.READ_FORWARD_FROM, 0):
        monkeypatch.setattr(decode, "READ_FORWARD_FROM", smallest)
        taken = decode.objects_read_forward(path, str(path))
        assert (taken is not None) == (smallest == 0 and layout != "gzip")
        assert main(["snapshot", "info", str(path), "-o", "json"]) == 0
        said.append(capsys.readouterr().out)
    assert said[0] == said[1] and json.loads(said[0])


def test_concatenated_json_documents(write):
    text = json.dumps(kube_list(*NODES), indent=4) + "\n" + json.dumps(kube_list(*PODS), indent=4)
    assert counts(load_snapshot(write("dump.json", text))) == (2, 2, 1)


def test_typed_lists_whose_items_carry_no_kind(write):
    raw = {"apiVersion": "v1", "kind": "PodList", "metadata": {"resourceVersion": "1"},
           "items": [{k: v for k, v in p.items() if k not in ("kind", "apiVersion")} for p in PODS]}
    nodes = {"apiVersion": "v1", "kind": "NodeList", "items": [{"metadata": n["metadata"], "status": n["status"]}
                                                                for n in NODES]}
    assert counts(load_snapshot(write("raw.json", json.dumps(raw) + json.dumps(nodes)))) == (2, 2, 1)


def test_multi_document_yaml_with_empty_documents(write):
    text = "---\n" + "\n---\n".join(yaml.safe_dump(o) for o in NODES + PODS) + "\n---\n"
    assert counts(load_snapshot(write("stream.yaml", text))) == (2, 2, 1)


def test_directory_of_files_gzip_and_nested(write, tmp_path):
    write("dump/nodes.yaml", yaml.safe_dump(kube_list(*NODES)))
    write("dump/ns/pods.json.gz", gzip.compress(json.dumps(kube_list(*PODS)).encode()))
    write("dump/notes.txt", "not a snapshot")
    write("dump/.hidden/x.yaml", "garbage: [")
    assert counts(load_snapshot(tmp_path / "dump")) == (2, 2, 1)


def test_gzip_detected_by_content_not_name(write):
    path = write("dump.yaml", gzip.compress(yaml.safe_dump(kube_list(*NODES)).encode()))
    assert len(load_snapshot(path).nodes) == 2


def test_unknown_kinds_are_counted_and_secrets_never_kept(write):
    extra = [{"apiVersion": "v1", "kind": "Secret", "metadata": {"name": "s"}, "data": {"k": "c2VjcmV0"}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "c"}},
             {"apiVersion": "v1", "kind": "ConfigMap", "metadata": {"name": "d"}}]
    snap = load_snapshot(write("d.yaml", yaml.safe_dump(kube_list(*NODES, *extra))))
    assert snap.ignored == {"ConfigMap": 2, "Secret": 1}
    assert any("ConfigMap (2)" in w for w in snap.warnings)


def test_duplicates_keep_the_later_copy(write):
    older, newer = pod_obj("web-1"), pod_obj("web-1", node="n1")
    snap = load_snapshot(write("d.json", kube_list(*NODES, older, newer)))
    assert len(snap.pods) == 1 and snap.pods[0].node_name == "n1"
    assert any("duplicate Pod" in w for w in snap.warnings)


def test_objects_missing_what_they_need_are_skipped_with_a_warning(write):
    no_name = {"apiVersion": "v1", "kind": "Pod", "metadata": {"namespace": "x"}}
    no_meta = {"apiVersion": "v1", "kind": "Node"}
    wrong_types = pod_obj("bad")
    wrong_types["spec"]["containers"] = {"name": "app"}
    bad_quantity = node_obj("n9", cpu="four")
    no_kind = {"metadata": {"name": "x"}}
    scalar_item = "just a string"
    snap = load_snapshot(write("d.json", kube_list(*NODES, no_name, no_meta, wrong_types, bad_quantity,
                                                   no_kind, scalar_item, *PODS)))
    assert counts(snap) == (2, 2, 1)
    text = "\n".join(snap.warnings)
    assert "skipped Pod without a name: metadata.name: missing" in text
    assert "skipped Node without a name" in text
    assert "skipped Pod default/bad: spec.containers: expected a list, got dict" in text
    assert "skipped Node n9: status.allocatable.cpu: 'four' is not a quantity" in text
    assert "apiVersion or kind missing" in text
    assert "not an object" in text
    assert all(w.startswith(str(snap.meta.source)) for w in snap.warnings if "skipped" in w)


def test_pods_on_missing_nodes_are_flagged(write):
    snap = load_snapshot(write("pods.json", kube_list(pod_obj("a", node="gone"))))
    assert any("bound to nodes missing" in w for w in snap.warnings)
    assert any("no nodes" in w for w in snap.warnings)


def test_saved_snapshot_metadata_document(write):
    meta = {"apiVersion": "karptui/v1", "kind": "KarptuiSnapshot", "metadata": {"name": "prod"},
            "capturedAt": "2024-05-01T12:00:00Z", "context": "arn:aws:eks:us-east-1:1:cluster/prod",
            "cluster": "prod", "karptuiVersion": "0.1.0",
            "logs": {"source": "karpenter/karpenter-abc/controller", "text": "line one\nline two\n"}}
    text = yaml.safe_dump(meta) + "---\n" + yaml.safe_dump(kube_list(*NODES))
    snap = load_snapshot(write("prod.yaml", text))
    assert snap.meta.name == "prod" and snap.meta.cluster == "prod"
    assert snap.meta.captured_at.year == 2024 and snap.meta.logs_text.startswith("line one")
    assert len(snap.nodes) == 2 and snap.warnings == ()


HOSTILE = [
    ("truncated.yaml", "apiVersion: v1\nkind: List\nitems:\n- kind: Node\n  metadata: {name: [", "invalid YAML at line"),
    ("tabs.yaml", "apiVersion: v1\n\tkind: Node\n", "invalid YAML at line 2"),
    ("truncated.json", '{"apiVersion": "v1", "kind": "List", "items": [{"kind": "Node"', "invalid JSON at line 1"),
    ("empty.yaml", "", "file is empty"),
    ("blank.json", "  \n\n ", "file is empty"),
    ("binary.yaml", bytes(range(256)) * 4, "not a text file"),
    ("latin1.yaml", "name: caf\xe9".encode("latin-1"), "not UTF-8 text"),
    ("scalar.yaml", "hello world\n", "document 1 is a str, not a Kubernetes object or list"),
    ("number.json", "42", "document 1 is a int"),
    ("items.yaml", "apiVersion: v1\nkind: List\nitems: {a: 1}\n", "List.items is not a list"),
    ("broken.gz", b"\x1f\x8b\x08\x00garbage", "corrupt gzip data"),
]


@pytest.mark.parametrize("name,content,message", HOSTILE, ids=[h[0] for h in HOSTILE])
def test_hostile_files_raise_one_clear_input_error(write, name, content, message):
    path = write(name, content)
    with pytest.raises(InputError) as exc:
        load_snapshot(path)
    assert message in str(exc.value) and str(exc.value).startswith(str(path))
    assert "\n" not in str(exc.value)


def test_missing_file_and_empty_directory(tmp_path):
    with pytest.raises(InputError, match="no such file or directory"):
        load_snapshot(tmp_path / "nope.yaml")
    (tmp_path / "empty").mkdir()
    with pytest.raises(InputError, match="no .yaml, .yml or .json files"):
        load_snapshot(tmp_path / "empty")


def test_unreadable_file(write, monkeypatch):
    path = write("secret.yaml", "a: 1")
    path.chmod(0)
    if os.geteuid() == 0:  # root reads any file; make the read fail as it would for a user

        def denied(self, *args, **kwargs):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(type(path), "open", denied)
    with pytest.raises(InputError, match="permission denied"):
        load_snapshot(path)


def test_deeply_nested_garbage_is_an_input_error(write):
    with pytest.raises(InputError):
        load_snapshot(write("deep.json", "[" * 100000))


from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["apiVersion", "kind", "metadata", "spec", "status", "items", "name", "namespace",
                         "containers", "resources", "requests", "nodeName", "labels", "x"]), inner, max_size=5),
    max_leaves=25,
)
kinds = st.sampled_from(["Node", "Pod", "List", "PodList", "NodePool", "Provisioner", "NodeClaim", "Deployment",
                         "Event", "PodDisruptionBudget", "EC2NodeClass", "KarptuiSnapshot", "Mystery"])
versions = st.sampled_from(["v1", "apps/v1", "karpenter.sh/v1", "karpenter.sh/v1beta1", "karpenter.sh/v1alpha5",
                            "karpenter.k8s.aws/v1", "policy/v1", "karptui/v1"])
objects = st.builds(lambda k, v, body: {**body, "kind": k, "apiVersion": v}, kinds, versions,
                    st.dictionaries(st.sampled_from(["metadata", "spec", "status", "items"]), json_values, max_size=4))


@settings(max_examples=150, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=300))
def test_arbitrary_bytes_load_or_fail_with_an_input_error(tmp_path, data):
    path = tmp_path / "fuzz.yaml"
    path.write_bytes(data)
    try:
        load_snapshot(path)
    except InputError as exc:
        assert "\n" not in str(exc)


@settings(max_examples=200, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(objects, max_size=5))
def test_arbitrary_kubernetes_shaped_json_never_crashes_the_loader(tmp_path, items):
    path = tmp_path / "fuzz.json"
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    try:
        snap = load_snapshot(path)
    except InputError:
        return
    assert all(isinstance(w, str) and "\n" not in w for w in snap.warnings)


def test_a_file_that_grew_after_its_size_was_read_is_read_to_its_end_and_capped(tmp_path):
    """A dump still being written: fstat said 10 bytes, the file holds more by the time it is read."""
    import io

    from karptui.sources.decode import _read_whole

    text = b'{"kind": "List", "items": []}' + b" " * 100
    assert _read_whole(io.BytesIO(text), text[:2], 10, 1 << 20, "dump.json", "too big") == text
    with pytest.raises(InputError, match="too big"):
        _read_whole(io.BytesIO(text), text[:2], 10, 50, "dump.json", "too big")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
def test_a_fifo_is_left_to_the_text_reader_without_being_opened(tmp_path):
    """Opening a FIFO waits for its writer, and a writer that wrote once is gone for the text reader's own
    open: the forward reader asks what the file is before it opens anything."""
    import threading

    from karptui.sources.decode import objects_read_forward

    fifo = tmp_path / "dump.json"
    os.mkfifo(fifo)
    answer = []
    asking = threading.Thread(target=lambda: answer.append(objects_read_forward(fifo, str(fifo))), daemon=True)
    asking.start()
    asking.join(10)
    if asking.is_alive():   # let the blocked open go before failing
        with open(fifo, "wb"):
            pass
    assert answer == [None]
