"""The fake API server, exercised through the real ``kubernetes`` client (36.0.x).

These double as a record of how that client behaves against list, watch, log and
error responses, which the live-cluster code has to cope with.
"""

from __future__ import annotations

import json
import sys
import threading
import time

import pytest
import urllib3
from kubernetes import client, config, watch

from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI


def nodepool(name: str) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"nodeClassRef": {"name": "default"}}}}}


def lease(name: str, namespace: str = "kube-system") -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": name, "namespace": namespace}, "spec": {"holderIdentity": "a"}}


@pytest.fixture
def api():
    with FakeAPI(bookmark_interval=0.2) as fake:
        yield fake


@pytest.fixture
def kube(api, tmp_path):
    return config.new_client_from_config(config_file=api.kubeconfig(tmp_path / "kubeconfig"),
                                         persist_config=False)


@pytest.fixture
def v1(kube):
    return client.CoreV1Api(kube)


def in_thread(fn, *args) -> threading.Thread:
    thread = threading.Thread(target=fn, args=args, daemon=True)
    thread.start()
    return thread


def test_list_nodes_paginates_in_insertion_order(api, v1):
    for i in range(5):
        api.add(node_obj(f"node-{i}"))
    names, token, pages = [], None, 0
    while True:
        page = v1.list_node(limit=2, _continue=token)
        names += [n.metadata.name for n in page.items]
        pages += 1
        token = page.metadata._continue
        if not token:
            break
    assert names == [f"node-{i}" for i in range(5)]
    assert pages == 3
    assert [q.get("limit") for _, _, q in api.requests] == ["2", "2", "2"]


def test_raw_list_looks_like_the_real_server(api, v1):
    for i in range(3):
        api.add(node_obj(f"node-{i}"))
    body = json.loads(v1.list_node(limit=2, _preload_content=False).data)
    assert body["kind"] == "NodeList" and body["apiVersion"] == "v1"
    assert body["metadata"]["resourceVersion"] == api.resource_version == "1003"
    assert body["metadata"]["remainingItemCount"] == 1 and body["metadata"]["continue"]
    # Typed lists carry no per-item apiVersion/kind, exactly like a real apiserver.
    assert all("kind" not in item and "apiVersion" not in item for item in body["items"])
    assert body["items"][0]["metadata"]["resourceVersion"] == "1001"


def test_expired_continue_token_is_410(api, v1):
    for i in range(3):
        api.add(node_obj(f"node-{i}"))
    token = v1.list_node(limit=1).metadata._continue
    api.expire_continue_tokens()
    with pytest.raises(client.ApiException) as err:
        v1.list_node(limit=1, _continue=token)
    assert err.value.status == 410
    assert json.loads(err.value.body)["reason"] == "Expired"


def test_list_pods_in_one_namespace_with_selectors(api, v1):
    api.add(pod_obj("a1", "a", node="n1", labels={"app": "web"}))
    api.add(pod_obj("a2", "a", labels={"app": "db"}))
    api.add(pod_obj("b1", "b", node="n1", labels={"app": "web"}))
    assert [p.metadata.name for p in v1.list_namespaced_pod("a").items] == ["a1", "a2"]
    assert [p.metadata.name for p in v1.list_pod_for_all_namespaces(label_selector="app=web").items] == ["a1", "b1"]
    assert [p.metadata.name for p in v1.list_namespaced_pod("a", field_selector="spec.nodeName=").items] == ["a2"]
    assert [p.metadata.name for p in v1.list_pod_for_all_namespaces(
        field_selector="metadata.namespace=b,metadata.name=b1").items] == ["b1"]


def test_get_single_objects_and_not_found(api, kube, v1):
    api.add(pod_obj("p", "a"))
    api.add(lease("karpenter-leader-election"))
    assert v1.read_namespaced_pod("p", "a").metadata.resource_version == "1001"
    holder = client.CoordinationV1Api(kube).read_namespaced_lease("karpenter-leader-election", "kube-system")
    assert holder.spec.holder_identity == "a"
    with pytest.raises(client.ApiException) as err:
        v1.read_namespaced_pod("missing", "a")
    assert err.value.status == 404


def test_watch_streams_events_and_tracks_bookmarks(api, v1):
    api.add(pod_obj("old", "a"))
    start = v1.list_pod_for_all_namespaces().metadata.resource_version
    w = watch.Watch()

    def produce():
        api.wait_for_streams()
        api.add(pod_obj("p", "a"))
        api.modify(pod_obj("p", "a", node="n1"))
        api.add(node_obj("n1"))  # bumps the global version past the last pod event
        api.bookmark_now()

    in_thread(produce)
    seen = []
    for event in w.stream(v1.list_pod_for_all_namespaces, resource_version=start,
                          allow_watch_bookmarks=True, timeout_seconds=60, _request_timeout=60):
        seen.append((event["type"], event["raw_object"]["metadata"].get("name")))
        if event["type"] == "BOOKMARK":
            w.stop()
    assert seen == [("ADDED", "p"), ("MODIFIED", "p"), ("BOOKMARK", None)]
    assert w.resource_version == api.resource_version == "1004"
    _, _, query = api.requests[-1]
    assert query["watch"] == "True" and query["resourceVersion"] == "1001"  # the client capitalises


def test_watch_sends_periodic_bookmarks_and_ends_at_timeout(api, v1):
    started = time.monotonic()
    events = list(watch.Watch().stream(v1.list_namespaced_pod, "a", resource_version=api.resource_version,
                                       allow_watch_bookmarks=True, timeout_seconds=1))
    assert time.monotonic() - started >= 1  # it ended at the timeout, not before
    assert events and {e["type"] for e in events} == {"BOOKMARK"}
    assert len(api.requests) == 1  # timeout_seconds disables the client's re-watch loop


def test_watch_without_resource_version_starts_with_synthetic_adds(api, v1):
    api.add(pod_obj("a1", "a"))
    api.add(pod_obj("b1", "b"))
    events = list(watch.Watch().stream(v1.list_namespaced_pod, "a", timeout_seconds=1))
    assert [(e["type"], e["object"].metadata.name) for e in events] == [("ADDED", "a1")]


def test_stale_resource_version_is_410(api, v1):
    api.add(pod_obj("p", "a"))
    api.modify(pod_obj("p", "a", node="n1"))
    api.compact()
    # With timeout_seconds the client never retries: the ERROR event raises at once.
    with pytest.raises(client.ApiException) as err:
        list(watch.Watch().stream(v1.list_pod_for_all_namespaces, resource_version="1001", timeout_seconds=60))
    assert err.value.status == 410 and err.value.reason.startswith("Expired: too old resource version")
    assert len(api.requests) == 1
    # Without it the client retries once, with the same stale version, then raises.
    with pytest.raises(client.ApiException) as err:
        list(watch.Watch().stream(v1.list_pod_for_all_namespaces, resource_version="1001", _request_timeout=60))
    assert err.value.status == 410
    assert [q["resourceVersion"] for _, _, q in api.requests[1:]] == ["1001", "1001"]


def test_history_replays_events_after_the_resource_version(api, v1):
    api.add(pod_obj("p", "a"))
    api.modify(pod_obj("p", "a", node="n1"))
    api.delete(pod_obj("p", "a"))
    events = list(watch.Watch().stream(v1.list_pod_for_all_namespaces, resource_version="1001", timeout_seconds=1))
    assert [(e["type"], e["object"].metadata.resource_version) for e in events] == [
        ("MODIFIED", "1002"), ("DELETED", "1003")]


def test_forbidden_kind_is_403_and_others_still_work(api, v1):
    api.forbid("nodes")
    api.forbid("/api/v1/namespaces/secret/pods")
    with pytest.raises(client.ApiException) as err:
        v1.list_node()
    assert err.value.status == 403
    assert json.loads(err.value.body)["message"] == (
        'nodes is forbidden: User "fake" cannot list resource "nodes" in API group "" at the cluster scope')
    with pytest.raises(client.ApiException) as err:
        v1.list_namespaced_pod("secret")
    assert 'in the namespace "secret"' in json.loads(err.value.body)["message"]
    assert v1.list_namespaced_pod("public").items == []


def test_fail_next_and_slow(api, v1):
    api.fail_next("nodes", status=503)
    with pytest.raises(client.ApiException) as err:
        v1.list_node()
    assert err.value.status == 503
    assert v1.list_node().items == []
    api.slow("nodes", 0.3)
    started = time.monotonic()
    v1.list_node()
    assert time.monotonic() - started >= 0.3


def test_custom_objects_list_and_discovery(api, kube):
    api.add(nodepool("default"))
    api.add(nodepool("gpu"))
    listed = client.CustomObjectsApi(kube).list_cluster_custom_object("karpenter.sh", "v1", "nodepools")
    assert listed["kind"] == "NodePoolList"
    assert [(i["kind"], i["metadata"]["name"]) for i in listed["items"]] == [
        ("NodePool", "default"), ("NodePool", "gpu")]
    groups = {g.name: g.preferred_version.version for g in client.ApisApi(kube).get_api_versions().groups}
    assert groups["karpenter.sh"] == groups["coordination.k8s.io"] == groups["apps"] == "v1"
    assert client.CoreApi(kube).get_api_versions().versions == ["v1"]
    resources = client.CustomObjectsApi(kube).get_api_resources("karpenter.sh", "v1").resources
    assert {(r.name, r.kind, r.namespaced) for r in resources} == {
        ("nodepools", "NodePool", False), ("nodeclaims", "NodeClaim", False)}
    assert client.VersionApi(kube).get_code().git_version == "v1.30.0"


def test_cluster_without_karpenter_has_no_crds(tmp_path):
    with FakeAPI(karpenter=False) as fake:
        kube = config.new_client_from_config(config_file=fake.kubeconfig(tmp_path / "kc"), persist_config=False)
        assert "karpenter.sh" not in {g.name for g in client.ApisApi(kube).get_api_versions().groups}
        with pytest.raises(client.ApiException) as err:
            client.CustomObjectsApi(kube).list_cluster_custom_object("karpenter.sh", "v1", "nodepools")
        assert err.value.status == 404


def test_pod_logs_follow_streams_appended_lines(api, v1):
    api.add(pod_obj("web", "a"))
    api.append_log("a", "web", "app", "first")

    def produce():
        api.wait_for_streams()
        api.append_log("a", "web", "app", "second")
        api.append_log("a", "web", "app", "third")
        api.end_log("a", "web", "app")

    in_thread(produce)
    resp = v1.read_namespaced_pod_log("web", "a", container="app", follow=True, _preload_content=False,
                                      _request_timeout=60)
    assert [line.decode().rstrip("\n") for line in resp] == ["first", "second", "third"]
    assert api.requests[-1][2]["follow"] == "True"


def test_pod_logs_without_follow(api, v1):
    api.add(pod_obj("web", "a"))
    for i in range(4):
        api.append_log("a", "web", "app", f"line {i}")
    text = "line 0\nline 1\nline 2\nline 3\n"
    assert v1.read_namespaced_pod_log("web", "a", _preload_content=False).data.decode() == text
    # kubernetes 36.0.x returns str(bytes) -- "b'line 0\\n...'" -- when it preloads a log
    # (kubernetes-client/python#2596); read logs with _preload_content=False.
    assert v1.read_namespaced_pod_log("web", "a") in (text, str(text.encode()))
    tail = v1.read_namespaced_pod_log("web", "a", container="app", tail_lines=2, timestamps=True,
                                      _preload_content=False).data.decode()
    assert [line.split(" ", 1)[1] for line in tail.splitlines()] == ["line 2", "line 3"]
    assert tail.split(" ", 1)[0].endswith("Z")
    with pytest.raises(client.ApiException) as err:
        v1.read_namespaced_pod_log("gone", "a")
    assert err.value.status == 404


def test_deleting_the_pod_ends_a_log_follow_via_watch(api, v1):
    api.add(pod_obj("web", "a"))
    api.append_log("a", "web", "app", "hello")
    in_thread(lambda: (api.wait_for_streams(), api.append_log("a", "web", "app", "bye"),
                       api.delete(pod_obj("web", "a"))))
    # Watch.stream spots read_namespaced_pod_log's follow parameter and yields text lines.
    lines = list(watch.Watch().stream(v1.read_namespaced_pod_log, "web", "a", _request_timeout=60))
    assert lines == ["hello", "bye"]
    assert api.requests[-1][2]["follow"] == "True"


def test_dropped_watch_raises_protocol_error(api, v1):
    """A connection cut mid-stream surfaces as urllib3's ProtocolError; the client never retries it."""
    for kwargs in ({"timeout_seconds": 60}, {}):
        api.wait_for_no_streams()   # the last round's cut stream, else its drop is taken for this one's
        before = len(api.requests)
        in_thread(lambda: (api.wait_for_streams(), api.drop_watches()))
        with pytest.raises(urllib3.exceptions.ProtocolError, match="Response ended prematurely"):
            list(watch.Watch().stream(v1.list_pod_for_all_namespaces, resource_version=api.resource_version,
                                      _request_timeout=60, **kwargs))
        assert len(api.requests) == before + 1


def test_garbage_line_is_yielded_as_none(api, v1):
    def produce():
        api.wait_for_streams()
        api.send_garbage()
        api.add(pod_obj("p", "a"))

    in_thread(produce)
    w = watch.Watch()
    seen = []
    for event in w.stream(v1.list_pod_for_all_namespaces, resource_version=api.resource_version,
                          timeout_seconds=60):
        seen.append(event if event is None else event["type"])
        if event is not None:
            w.stop()
    assert seen == [None, "ADDED"]


def test_dropped_log_follow_raises_protocol_error(api, v1):
    api.add(pod_obj("web", "a"))
    in_thread(lambda: (api.wait_for_streams(), api.drop_watches()))
    resp = v1.read_namespaced_pod_log("web", "a", follow=True, _preload_content=False, _request_timeout=60)
    with pytest.raises(urllib3.exceptions.ProtocolError):
        list(resp)


def test_bearer_and_exec_credentials_reach_the_server(api, v1, tmp_path):
    v1.list_node()
    assert api.request_headers[-1]["authorization"] == "Bearer t0k3n"
    credential = {"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential",
                  "status": {"token": "from-exec"}}
    path = api.kubeconfig(tmp_path / "exec", namespace="a",
                          exec_command=[sys.executable, "-c", f"print({json.dumps(credential)!r})"])
    client.CoreV1Api(config.new_client_from_config(config_file=path, persist_config=False)).list_node()
    assert api.request_headers[-1]["authorization"] == "Bearer from-exec"


def test_client_only_sends_get_and_writes_are_405(api, v1, kube):
    api.add(pod_obj("p", "a"))
    v1.list_pod_for_all_namespaces()
    v1.read_namespaced_pod("p", "a")
    client.ApisApi(kube).get_api_versions()
    assert {method for method, _, _ in api.requests} == {"GET"}
    with pytest.raises(client.ApiException) as err:
        v1.delete_namespaced_pod("p", "a")
    assert err.value.status == 405
    assert api.requests[-1][:2] == ("DELETE", "/api/v1/namespaces/a/pods/p")
    assert v1.read_namespaced_pod("p", "a").metadata.name == "p"  # nothing was deleted


def test_stop_cuts_open_streams_promptly(tmp_path):
    fake = FakeAPI().start()
    fake.add(pod_obj("web", "a"))
    v1 = client.CoreV1Api(config.new_client_from_config(config_file=fake.kubeconfig(tmp_path / "kc"),
                                                        persist_config=False))
    outcomes = []

    def consume(fn):
        try:
            list(fn())
        except Exception as exc:  # the client's view of the server going away
            outcomes.append(type(exc).__name__)

    threads = [
        in_thread(consume, lambda: watch.Watch().stream(v1.list_node, resource_version=fake.resource_version,
                                                        _request_timeout=60)),
        in_thread(consume, lambda: v1.read_namespaced_pod_log("web", "a", follow=True, _preload_content=False)),
    ]
    fake.wait_for_streams(2)
    fake.stop()
    for thread in threads:
        thread.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert outcomes == ["ProtocolError", "ProtocolError"]  # cut by the stop, not a read timeout


def test_add_modify_delete_validate_against_the_store(api):
    api.add(pod_obj("p", "a"))
    with pytest.raises(ValueError):
        api.add(pod_obj("p", "a"))
    with pytest.raises(KeyError):
        api.modify(pod_obj("q", "a"))
    with pytest.raises(KeyError):
        api.add({"apiVersion": "example.com/v1", "kind": "Widget", "metadata": {"name": "w"}})
    api.add_resource("example.com", "v1", "widgets", "Widget")
    assert api.add({"apiVersion": "example.com/v1", "kind": "Widget",
                    "metadata": {"name": "w"}})["metadata"]["resourceVersion"] == "1002"
