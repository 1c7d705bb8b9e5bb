"""Live mode against a local API server (tests/fakeapi.py) through the real client:
connection errors, list+watch sync, RBAC gaps, 410s, drops, garbage, only GETs."""

from __future__ import annotations

import time

import pytest

from karptui.cluster.connect import ConnectError, connect
from karptui.cluster.informer import FORBIDDEN, SYNCED
from karptui.cluster.live import LiveCluster
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI


def nodepool(name: str) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "default"},
                                           "requirements": []}},
                     "limits": {"cpu": "100"}}}


def eventually(check, timeout: float = 8.0):
    deadline = time.monotonic() + timeout
    while True:
        value = check()
        if value:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"not true within {timeout} s: {check}")
        time.sleep(0.05)


@pytest.fixture
def api():
    with FakeAPI(bookmark_interval=0.2) as fake:
        for i in range(5):
            fake.add(node_obj(f"node-{i}", zone=f"us-east-1{'abc'[i % 3]}"))
        for i in range(7):
            fake.add(pod_obj(f"web-{i}", node=f"node-{i % 5}"))
        fake.add(pod_obj("pending-0"))
        fake.add(nodepool("default"))
        yield fake



@pytest.fixture
def live(api, kubeconfig):
    cluster = LiveCluster(connect(kubeconfig), page=2, read_timeout=5).start()
    yield cluster
    cluster.stop()


def watching(live) -> int:
    """How many informers hold a watch open (kinds the server does not serve hold none)."""
    live.wait_synced(10)
    return sum(1 for i in live.informers if i.state == SYNCED)


def watched_nodes(api, live):
    """The Node informer, once everything is listed and every watch is open on the server."""
    api.wait_for_streams(watching(live))
    return next(i for i in live.informers if i.resource.kind == "Node")


def only_gets(api) -> None:
    assert api.requests and {method for method, _, _ in api.requests} == {"GET"}


# ---- connecting -----------------------------------------------------------------------------

def test_connect_reads_the_server_version_and_names_the_context(api, kubeconfig):
    connection = connect(kubeconfig)
    assert connection.context == "fake" and connection.server == api.url
    assert connection.version.startswith("v1.")


def test_connection_problems_are_one_line(api, kubeconfig, tmp_path):
    with pytest.raises(ConnectError) as caught:
        connect(kubeconfig, context="prod")
    assert "no context 'prod' (contexts: fake)" in str(caught.value) and caught.value.code == 2
    api.fail_next("/version", status=401)
    with pytest.raises(ConnectError) as caught:
        connect(kubeconfig)
    assert "refused the credentials" in str(caught.value) and caught.value.code == 1
    broken = tmp_path / "broken"
    broken.write_text("clusters: [}")
    with pytest.raises(ConnectError) as caught:
        connect(str(broken))
    assert str(caught.value).startswith(f"{broken}: ") and "\n" not in str(caught.value)


def test_an_unreachable_server_is_one_line_and_points_at_the_demo(tmp_path):
    with FakeAPI() as fake:
        path = fake.kubeconfig(tmp_path / "kubeconfig")
    with pytest.raises(ConnectError) as caught:  # the server is gone now
        connect(path)
    assert "cannot reach the API server" in str(caught.value) and "karptui demo" in str(caught.value)
    assert caught.value.code == 1


def test_several_kubeconfig_files_in_KUBECONFIG_and_a_chosen_context(api, tmp_path, monkeypatch):
    first = api.kubeconfig(tmp_path / "a", context="staging")
    second = api.kubeconfig(tmp_path / "b", context="prod")
    monkeypatch.setenv("KUBECONFIG", f"{first}:{second}")
    assert connect(context="prod").context == "prod"
    assert connect().context == "staging"  # the first file's current-context wins, as in kubectl


# ---- list + watch ----------------------------------------------------------------------------

def test_initial_sync_lists_in_pages_and_builds_a_snapshot(api, live):
    assert live.wait_synced(10)
    snapshot = live.snapshot()
    assert len(snapshot.nodes) == 5 and len(snapshot.pods) == 8 and len(snapshot.pending_pods) == 1
    assert [p.name for p in snapshot.nodepools] == ["default"]
    assert snapshot.meta.context == "fake" and snapshot.meta.kubernetes_version.startswith("v1.")
    node_lists = [q for _, path, q in api.requests if path == "/api/v1/nodes" and "watch" not in q]
    assert len(node_lists) == 3 and all(q["limit"] == "2" for q in node_lists)  # 5 nodes, pages of 2
    only_gets(api)


def test_csinodes_are_listed_and_watched_like_the_other_kinds(api, live):
    """Each node's CSINode (its volume attach limits) comes in by the same list and watch."""
    api.add({"apiVersion": "storage.k8s.io/v1", "kind": "CSINode", "metadata": {"name": "node-0"},
             "spec": {"drivers": [{"name": "ebs.csi.aws.com", "nodeID": "i-0", "allocatable": {"count": 25}}]}})
    assert live.wait_synced(10)
    eventually(lambda: "node-0" in live.snapshot().csinode_by_name)
    assert live.snapshot().csinode_by_name["node-0"].limits == {"ebs.csi.aws.com": 25}
    assert any(path == "/apis/storage.k8s.io/v1/csinodes" for _, path, _ in api.requests)
    only_gets(api)


def test_watch_events_reach_the_snapshot(api, live):
    assert live.wait_synced(10)
    api.wait_for_streams(watching(live))
    before = live.version
    api.add(node_obj("node-new", zone="us-east-1c"))
    bound = pod_obj("pending-0", node="node-new")
    bound["status"] = {"phase": "Running"}
    api.modify(bound)
    api.delete(pod_obj("web-6", node="node-1"))
    eventually(lambda: live.version >= before + 3)
    snapshot = live.snapshot()
    assert "node-new" in snapshot.node_by_name
    assert not snapshot.pending_pods and len(snapshot.pods) == 7
    only_gets(api)


def test_a_forbidden_kind_degrades_with_a_note_and_the_rest_works(api, kubeconfig):
    api.forbid("pods")
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        pods = next(i for i in cluster.informers if i.resource.kind == "Pod")
        assert pods.state == FORBIDDEN
        assert any("pods: forbidden" in note for note in cluster.status())
        assert cluster.unavailable() == {"Pod"}
        snapshot = cluster.snapshot()
        assert len(snapshot.nodes) == 5 and not snapshot.pods
    finally:
        cluster.stop()


def test_a_cluster_without_karpenter_says_so(tmp_path):
    with FakeAPI(karpenter=False) as fake:
        fake.add(node_obj("node-0"))
        cluster = LiveCluster(connect(fake.kubeconfig(tmp_path / "k")), read_timeout=5).start()
        try:
            assert cluster.wait_synced(10)
            assert any("no Karpenter NodePool or Provisioner API" in n for n in cluster.status())
            assert len(cluster.snapshot().nodes) == 1
        finally:
            cluster.stop()


def _controller(image: str) -> dict:
    labels = {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/instance": "karpenter"}
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": labels},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "controller", "image": image}]}}}}


def test_the_live_clusters_karpenter_version_is_its_controllers_image_and_follows_an_upgrade(api, live):
    """The version the header, JSON and `snapshot info` give comes from the controller's Deployment as the
    cluster serves it, and moves with a rollout; without the Deployment, the NodePools' API version."""
    from karptui.views.info import snapshot_info

    assert live.wait_synced(10)
    found = snapshot_info(live.snapshot())["karpenter_version"]
    assert (found["version"], found["source"]) == ("v1.15.1", "NodePool API version")
    api.add(_controller("public.ecr.aws/karpenter/controller:1.14.3@sha256:" + "c" * 64))
    found = eventually(lambda: (f := snapshot_info(live.snapshot())["karpenter_version"])["source"] == "controller image"
                       and f)
    assert found["version"] == "v1.14.3"
    assert found["detail"] == "Deployment kube-system/karpenter runs public.ecr.aws/karpenter/controller:1.14.3"
    api.modify(_controller("public.ecr.aws/karpenter/controller:1.15.1"))
    eventually(lambda: snapshot_info(live.snapshot())["karpenter_version"]["version"] == "v1.15.1")
    only_gets(api)


def _nodepool_crd(balanced: bool, name: str = "nodepools.karpenter.sh") -> dict:
    """Karpenter's NodePool CRD as its chart installs it (v1.14.x: Balanced accepted, consolidateAfter
    required; earlier v1 releases: no Balanced), with a large description the save must not keep."""
    policies = ["WhenEmpty", "WhenEmptyOrUnderutilized"] + (["Balanced"] if balanced else [])
    disruption = {"type": "object", "required": ["consolidateAfter"], "description": "x" * 5000,
                  "properties": {"consolidationPolicy": {"type": "string", "enum": policies, "description": "y"},
                                 "consolidateAfter": {"type": "string"}}}
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "disruption": disruption, "limits": {"type": "object"}}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": name, "annotations": {"controller-gen.kubebuilder.io/version": "v0.20.1"}},
            "spec": {"group": name.partition(".")[2], "names": {"kind": "NodePool", "plural": name.partition(".")[0]},
                     "scope": "Cluster", "conversion": {"strategy": "None"},
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": schema}]}}


def test_without_a_controller_the_live_version_comes_from_karpenters_nodepool_crd(api, kubeconfig):
    """No controller visible: the NodePool CRD places the release (v1.14.x here, then v1.0-v1.13 after
    it is replaced) and the header says so; only that CRD is asked for (a metadata.name field selector,
    which a ClusterRole's resourceNames authorizes); a controller that appears wins over it."""
    from karptui.views.info import karpenter_words, snapshot_info

    api.add(_nodepool_crd(balanced=True))
    api.add(_nodepool_crd(balanced=True, name="widgets.example.com"))
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        found = snapshot_info(cluster.snapshot())["karpenter_version"]
        assert (found["version"], found["source"]) == ("v1.14.3", "CRDs")
        assert "CRD nodepools.karpenter.sh" in found["detail"]
        assert karpenter_words(found).startswith("Karpenter v1.14.3 (CRDs)")
        assert [c.name for c in cluster.snapshot().karpenter_crds] == ["nodepools.karpenter.sh"]
        crd_lists = [q for _, path, q in api.requests if path.endswith("/customresourcedefinitions")]
        assert crd_lists and all(q.get("fieldSelector") == "metadata.name=nodepools.karpenter.sh" for q in crd_lists)
        api.modify(_nodepool_crd(balanced=False))
        eventually(lambda: snapshot_info(cluster.snapshot())["karpenter_version"]["version"] == "v1.13.0")
        api.add(_controller("public.ecr.aws/karpenter/controller:1.15.1"))
        eventually(lambda: snapshot_info(cluster.snapshot())["karpenter_version"]["source"] == "controller image")
        only_gets(api)
    finally:
        cluster.stop()


def test_a_forbidden_crd_falls_back_to_the_nodepools_api_version_and_says_why(api, kubeconfig):
    from karptui.views.info import snapshot_info

    api.add(_nodepool_crd(balanced=True))
    api.forbid("customresourcedefinitions")
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        found = cluster.snapshot()
        assert found.karpenter_crds == ()
        assert snapshot_info(found)["karpenter_version"]["source"] == "NodePool API version"
        assert any(n.startswith("customresourcedefinitions.apiextensions.k8s.io: forbidden") for n in cluster.status())
    finally:
        cluster.stop()


def test_snapshot_save_keeps_of_the_crd_only_what_places_the_release(api, kubeconfig, cli, tmp_path):
    import json

    from karptui.sources import load_snapshot
    from karptui.views.info import snapshot_info

    api.add(_nodepool_crd(balanced=True))
    out = tmp_path / "saved.json"
    code, _, err = cli("snapshot", "save", out, "--kubeconfig", kubeconfig, "--logs-since", "0")
    assert code == 0, err
    only_gets(api)
    (crd,) = [o for o in json.loads(out.read_text())["items"] if o["kind"] == "CustomResourceDefinition"]
    assert crd["metadata"]["name"] == "nodepools.karpenter.sh" and not crd["metadata"].get("annotations")
    disruption = crd["spec"]["versions"][0]["schema"]["openAPIV3Schema"]["properties"]["spec"]["properties"]
    assert disruption == {"disruption": {"required": ["consolidateAfter"], "properties": {
        "consolidationPolicy": {"enum": ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"]}}}}
    assert "conversion" not in crd["spec"] and "scope" not in crd["spec"]
    found = snapshot_info(load_snapshot(out))["karpenter_version"]
    assert (found["version"], found["source"]) == ("v1.14.3", "CRDs")


def test_410_gone_means_list_again_and_nothing_is_lost(api, live):
    nodes = watched_nodes(api, live)
    api.drop_watches()
    api.add(node_obj("node-after-410"))  # while the informer waits to reconnect...
    api.compact()  # ...its resourceVersion is compacted away: the watch answers 410
    eventually(lambda: nodes.counts["relists"] >= 1 and "node-after-410" in live.snapshot().node_by_name)
    assert nodes.state == SYNCED


def test_dropped_connections_and_garbage_lines_are_counted_and_survived(api, live):
    nodes = watched_nodes(api, live)
    api.send_garbage()
    eventually(lambda: nodes.counts["malformed"] >= 1)
    api.drop_watches()
    eventually(lambda: nodes.counts["reconnects"] >= 1)
    api.wait_for_streams(watching(live))
    api.add(node_obj("node-after-drop"))
    eventually(lambda: "node-after-drop" in live.snapshot().node_by_name)
    assert len(live.snapshot().nodes) == 6
    only_gets(api)


def test_a_malformed_object_is_skipped_not_fatal(api, live):
    nodes = watched_nodes(api, live)
    bad = node_obj("node-bad")
    bad["status"]["allocatable"]["cpu"] = "lots"
    api.add(bad)
    api.add(node_obj("node-good"))
    eventually(lambda: "node-good" in live.snapshot().node_by_name)
    assert nodes.counts["skipped"] == 1 and "node-bad" not in live.snapshot().node_by_name


# ---- the TUI in live mode ------------------------------------------------------------------

async def test_the_tui_shows_a_new_node_and_a_pod_going_from_pending_to_scheduled(api, live):
    from karptui.tui.app import KarptuiApp
    from karptui.tui.screens.main import MainScreen
    from karptui.tui.widgets import VirtualTable

    assert live.wait_synced(10)
    app = KarptuiApp(live.snapshot(), live=live, logs_since=0, live_interval=0.1)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, MainScreen)
        nodes = screen.query_one("#nodes-table", VirtualTable)
        pending = screen.query_one("#pending-table", VirtualTable)
        assert "pod:default/pending-0" in pending.keys and "live fake" in app.source_line()
        api.wait_for_streams(watching(live))
        api.add(node_obj("node-new", zone="us-east-1c"))

        async def shown(check):
            for _ in range(100):
                await pilot.pause(0.05)
                if check():
                    return True
            return False

        assert await shown(lambda: "node:node-new" in nodes.keys)
        bound = pod_obj("pending-0", node="node-new")
        bound["status"] = {"phase": "Running"}
        api.modify(bound)
        assert await shown(lambda: "pod:default/pending-0" not in pending.keys)
        assert pending.keys == ["empty"] and "0 pending" in app.source_line()
        # the answer for the cluster as it is now: an earlier run (the node added, the pod not yet bound)
        # may also say 0 pending and land first; wait until no simulation is under way
        assert await shown(lambda: app.result is not None and app.result.pending == 0 and not any(
            w.is_running for w in app.workers if w.group == "simulate"))
        result, snapshot = app.result, app.snapshot
        relabelled = pod_obj("web-0", node="node-0", labels={"team": "checkout"})
        api.modify(relabelled)  # nothing the scheduler looks at: no new simulation
        assert await shown(lambda: app.snapshot is not snapshot)
        await pilot.pause(0.3)
        assert app.result is result
        await pilot.press("q")
    only_gets(api)


def test_the_shipped_clusterrole_grants_every_read_and_nothing_more():
    from pathlib import Path

    import yaml

    import karptui.cluster
    from karptui.cluster.resources import BUILTIN, KARPENTER_CRD, KARPENTER_GROUPS, NODEPOOL_CRD

    role = yaml.safe_load((Path(karptui.cluster.__file__).parent / "karptui-readonly.yaml").read_text())
    granted = {(group, res): set(rule["verbs"]) for rule in role["rules"]
               for group in rule["apiGroups"] for res in rule["resources"]}
    assert set().union(*granted.values()) == {"get", "list", "watch"}
    for resource in BUILTIN:
        assert granted[(resource.group, resource.plural)] >= {"list", "watch"}, resource.name
    for plural in ("nodepools", "nodeclaims", "provisioners", "machines"):
        assert granted[(KARPENTER_GROUPS[0], plural)] >= {"list", "watch"}
    for plural in ("ec2nodeclasses", "awsnodetemplates"):
        assert granted[(KARPENTER_GROUPS[1], plural)] >= {"list", "watch"}
    assert granted[("autoscaling.x-k8s.io", "capacitybuffers")] >= {"list", "watch"}
    # one CRD, by name: karptui lists it with the field selector resourceNames authorizes
    (crds,) = [r for r in role["rules"] if "customresourcedefinitions" in r["resources"]]
    assert crds["resourceNames"] == [NODEPOOL_CRD] and set(crds["verbs"]) >= {"list", "watch"}
    assert KARPENTER_CRD.field_selector == f"metadata.name={NODEPOOL_CRD}"
    assert granted[("", "pods/log")] == {"get"} and granted[("coordination.k8s.io", "leases")] == {"get"}
    assert not any(res in ("secrets", "configmaps") for _, res in granted)


def test_a_slow_server_times_out_is_retried_and_recovers(api, kubeconfig):
    api.slow("nodes", 3)
    cluster = LiveCluster(connect(kubeconfig), read_timeout=1).start()
    try:
        nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
        eventually(lambda: nodes.counts["reconnects"] >= 1)
        assert "retrying" in nodes.note and any("nodes:" in n for n in cluster.status())
        api.clear_faults()
        eventually(lambda: nodes.state == SYNCED, timeout=15)
        assert len(cluster.snapshot().nodes) == 5 and nodes.note == ""
    finally:
        cluster.stop()


def test_resync_lists_afresh_now_and_then(api, kubeconfig):
    cluster = LiveCluster(connect(kubeconfig), read_timeout=5, watch_seconds=1, resync=0.5).start()
    try:
        nodes = next(i for i in cluster.informers if i.resource.kind == "Node")
        eventually(lambda: nodes.counts["resyncs"] >= 1)
        assert len(cluster.snapshot().nodes) == 5
    finally:
        cluster.stop()


def test_namespace_limits_pods_but_not_nodes(api, kubeconfig):
    api.add(pod_obj("other-0", namespace="team-a", node="node-0"))
    cluster = LiveCluster(connect(kubeconfig, namespace="team-a"), read_timeout=5).start()
    try:
        assert cluster.wait_synced(10)
        snapshot = cluster.snapshot()
        assert [p.key for p in snapshot.pods] == ["team-a/other-0"] and len(snapshot.nodes) == 5
        assert any("only from team-a" in n for n in cluster.status())
        pod_paths = {path for _, path, _ in api.requests if path.endswith("/pods")}
        assert pod_paths == {"/api/v1/namespaces/team-a/pods"}
    finally:
        cluster.stop()


def test_bookmarks_move_the_resource_version_on_and_bad_input_shows_in_the_status(api, live):
    nodes = watched_nodes(api, live)
    api.add(pod_obj("elsewhere-0"))  # a change to another kind: only a bookmark tells the node watch
    api.bookmark_now()
    eventually(lambda: nodes.resource_version == api.resource_version)
    api.send_garbage()
    eventually(lambda: any("malformed" in note for note in live.status()))


def test_credentials_refused_mid_session_are_named_and_retried(api, live):
    nodes = watched_nodes(api, live)
    api.fail_next("nodes", status=401, times=2)
    api.drop_watches()
    eventually(lambda: "credentials expired or revoked" in nodes.note)
    eventually(lambda: nodes.note == "" and nodes.state == SYNCED, timeout=10)  # logged in again: said so
    api.add(node_obj("node-after-login"))
    eventually(lambda: "node-after-login" in live.snapshot().node_by_name)


async def test_the_whatif_panel_starts_from_the_cluster_as_it_is_now_unless_it_holds_edits(api, live):
    from karptui.tui.app import KarptuiApp
    from karptui.views import whatif_form as wf

    nodes = watched_nodes(api, live)
    app = KarptuiApp(live.snapshot(), live=live, logs_since=0, live_interval=0.1, simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:

        async def updated(snapshot):
            for _ in range(100):
                await pilot.pause(0.05)
                if app.snapshot is not snapshot:
                    return True
            return False

        await pilot.press("w")
        assert app.screen.snapshot is app.snapshot
        await pilot.press("escape")
        before = app.snapshot
        api.add(node_obj("node-later"))
        assert await updated(before)
        await pilot.press("w")
        panel = app.screen
        assert panel.snapshot is app.snapshot and "node-later" in panel.snapshot.node_by_name
        panel.stack.push(wf.cordon_edit("node-0"))  # an experiment under way
        await pilot.press("escape")
        held = app.snapshot
        api.add(node_obj("node-even-later"))
        assert await updated(held)
        await pilot.press("w")
        assert app.screen is panel and panel.snapshot is held
        assert any("undo them all to start from now" in str(n.message) for n in app._notifications)
        await pilot.press("escape", "q")
    assert nodes.state == SYNCED
