"""Following the Karpenter leader's log on a live cluster, and ``snapshot save``."""

from __future__ import annotations

import sys
import threading

import pytest

from karptui.cluster.connect import connect
from karptui.cluster.karpenter_logs import KarpenterLogs
from karptui.sources import load_snapshot
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import eventually, nodepool, only_gets

NS = "kube-system"
V1_LINE = ('{"level":"INFO","time":"2024-05-01T12:00:0%d.000Z","logger":"controller","message":"found provisionable '
           'pod(s)","commit":"abc","controller":"provisioner","Pods":"default/web-%d","duration":"10ms"}')


def karpenter_pod(name: str) -> dict:
    pod = pod_obj(name, namespace=NS, node="node-0", labels={"app.kubernetes.io/name": "karpenter"})
    pod["spec"]["containers"] = [{"name": "controller", "image": "karpenter:1.0",
                                  "env": [{"name": "CLUSTER_NAME", "value": "secret-cluster"},
                                          {"name": "TOKEN", "valueFrom": {"secretKeyRef": {"name": "x", "key": "y"}}}]}]
    return pod


def lease(holder: str) -> dict:
    return {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease",
            "metadata": {"name": "karpenter-leader-election", "namespace": NS},
            "spec": {"holderIdentity": f"{holder}_0f6e4c1a-uid"}}


@pytest.fixture
def api():
    with FakeAPI(bookmark_interval=0.2) as fake:
        fake.add(node_obj("node-0"))
        fake.add(karpenter_pod("karpenter-a"))
        fake.add(karpenter_pod("karpenter-b"))
        fake.add(lease("karpenter-b"))
        fake.add(nodepool("default"))
        yield fake


def test_the_leaders_log_is_followed_and_a_lease_move_switches_pods(api, tmp_path):
    api.append_log(NS, "karpenter-a", "controller", "a follower's line")
    api.append_log(NS, "karpenter-b", "controller", V1_LINE % (0, 0))
    got: list[str] = []
    notes: list[str] = []
    follower = KarpenterLogs(connect(api.kubeconfig(tmp_path / "k")), got.extend, since_seconds=600.0,
                             on_note=notes.append, lease_poll=0.2, read_timeout=5)
    thread = threading.Thread(target=follower.run, daemon=True)
    thread.start()
    try:
        eventually(lambda: got == [V1_LINE % (0, 0)])
        api.append_log(NS, "karpenter-b", "controller", V1_LINE % (1, 1))
        eventually(lambda: len(got) == 2)
        api.modify(lease("karpenter-a"))  # leadership moves
        eventually(lambda: follower.following == f"{NS}/karpenter-a")
        api.append_log(NS, "karpenter-a", "controller", V1_LINE % (2, 2))
        eventually(lambda: V1_LINE % (2, 2) in got)
        assert follower.switches == 1 and any("leader moved" in n for n in notes)
        api.end_log(NS, "karpenter-a", "controller")  # the container restarts: the stream ends
        api.append_log(NS, "karpenter-a", "controller", V1_LINE % (3, 3))
        eventually(lambda: V1_LINE % (3, 3) in got)
        assert got.count(V1_LINE % (2, 2)) == 1  # picking up again repeats nothing
    finally:
        follower.stop()
        thread.join(5)
    assert not thread.is_alive()
    logs = [q for _, path, q in api.requests if path.endswith("/log")]
    assert logs and all(q.get("container") == "controller" and q.get("follow") in ("true", "True") for q in logs)
    assert logs[0]["sinceSeconds"] == "600"  # --logs-since 10m, in the whole seconds the API takes
    only_gets(api)


def test_snapshot_save_captures_everything_redacts_env_and_reads_back(api, tmp_path, cli):
    api.append_log(NS, "karpenter-b", "controller", V1_LINE % (0, 0))
    api.add(pod_obj("web-0", node="node-0"))
    api.add({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "migrate", "namespace": "default",
             "annotations": {"kubectl.kubernetes.io/last-applied-configuration": '{"DB_PASSWORD": "hunter2"}'}},
             "spec": {"template": {"spec": {"containers": [{"name": "m", "image": "m:1",
                                                            "env": [{"name": "DB_PASSWORD", "value": "hunter2"}]}]}}}})
    out = tmp_path / "cluster.json.gz"
    code, stdout, err = cli("snapshot", "save", out, "--kubeconfig", api.kubeconfig(tmp_path / "k"),
                            "--logs-since", "30m")
    assert code == 0, err
    assert stdout.startswith("saved ") and "1 Karpenter log lines from fake" in stdout
    snapshot = load_snapshot(out)
    assert len(snapshot.nodes) == 1 and len(snapshot.pods) == 3 and len(snapshot.nodepools) == 1
    assert snapshot.meta.context == "fake" and snapshot.meta.captured_at is not None
    assert snapshot.meta.logs_text.strip() == V1_LINE % (0, 0)
    assert "karpenter-b" in snapshot.meta.logs_source
    import gzip
    raw = gzip.decompress(out.read_bytes()).decode()
    assert "secret-cluster" not in raw and "secretKeyRef" not in raw
    assert "hunter2" not in raw and [w.name for w in snapshot.workloads] == ["migrate"]
    assert not [p for _, p, _ in api.requests if "secrets" in p or "configmaps" in p]
    since = [q for _, p, q in api.requests if p.endswith("/log")]
    assert since and since[0].get("sinceSeconds") == "1800"
    only_gets(api)


def test_snapshot_save_bad_input_is_one_line(cli, tmp_path):
    code, _, err = cli("snapshot", "save", tmp_path / "nowhere" / "x.json", "--kubeconfig", tmp_path / "k")
    assert code == 2 and "does not exist" in err and len(err.strip().splitlines()) == 1
    code, _, err = cli("snapshot", "save", tmp_path / "x.json", "--logs-since", "soon")
    assert code == 2 and err.startswith("karptui: --logs-since: ") and len(err.strip().splitlines()) == 1


EXEC_PLUGIN = r'''
import datetime, json, os, pathlib, sys
spec = json.loads(os.environ["KUBERNETES_EXEC_INFO"])["spec"]
runs = pathlib.Path(sys.argv[1])
seen = runs.read_text().split() if runs.exists() else []
runs.write_text(" ".join(seen + [f"interactive={spec['interactive']}"]))
sys.stderr.write("exec plugin noise on stderr\n")
expired = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(hours=1)  # every request refreshes
print(json.dumps({"apiVersion": "client.authentication.k8s.io/v1beta1", "kind": "ExecCredential",
                  "status": {"token": f"token-{len(seen) + 1}",
                             "expirationTimestamp": expired.strftime("%Y-%m-%dT%H:%M:%SZ")}}))
'''


class TtyLike:
    """What sys.stdout is inside a Textual app: a capture object that says it is a terminal."""

    def isatty(self) -> bool:
        return True

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


def test_a_token_refresh_mid_session_never_runs_the_plugin_interactively(api, tmp_path, monkeypatch):
    """The client runs an exec plugin "interactively" (our terminal's stdin, and a plugin may
    prompt) when sys.stdout says it is a tty, as Textual's capture does; ours must not."""
    plugin, runs = tmp_path / "plugin.py", tmp_path / "runs"
    plugin.write_text(EXEC_PLUGIN)
    path = api.kubeconfig(tmp_path / "k", exec_command=[sys.executable, str(plugin), str(runs)])
    connection = connect(path)  # credentials loaded before the TUI starts
    before = runs.read_text().split()
    monkeypatch.setattr(sys, "stdout", TtyLike())
    from kubernetes import client
    client.CoreV1Api(connection.api).list_node(_request_timeout=5)  # the token has expired: a refresh
    monkeypatch.undo()
    after = runs.read_text().split()
    assert len(after) == len(before) + 1 and after[-1] == "interactive=False"
    assert api.request_headers[-1].get("authorization") == f"Bearer token-{len(after)}"


def test_the_lease_is_looked_up_where_each_set_of_controller_pods_runs(api, tmp_path):
    """An old install left labelled pods in another namespace: the lease, not the first pod, decides."""
    from karptui.cluster.karpenter_logs import karpenter_pods, leader

    old = karpenter_pod("karpenter-old")
    old["metadata"]["namespace"] = "aaa-old-install"
    old["metadata"]["creationTimestamp"] = "2030-01-01T00:00:00Z"  # newest: the fallback would pick it
    api.add(old)
    connection = connect(api.kubeconfig(tmp_path / "k"))
    assert leader(connection.api, karpenter_pods(connection.api))["metadata"]["name"] == "karpenter-b"


async def test_the_activity_pane_shows_the_leaders_log_as_it_is_written(api, tmp_path):
    from karptui.cluster.live import LiveCluster
    from karptui.tui.app import KarptuiApp
    from karptui.tui.widgets import VirtualTable

    api.append_log(NS, "karpenter-b", "controller", V1_LINE % (0, 0))
    live = LiveCluster(connect(api.kubeconfig(tmp_path / "k")), read_timeout=5).start()
    try:
        assert live.wait_synced(10)
        app = KarptuiApp(live.snapshot(), live=live, logs_since=600.0, live_interval=0.1)
        async with app.run_test(size=(160, 45)) as pilot:
            table = app.screen.query_one("#activity-table", VirtualTable)

            async def rows(count):
                for _ in range(100):
                    await pilot.pause(0.05)
                    if len([k for k in table.keys if k.startswith("line:")]) >= count:
                        return True
                return False

            assert await rows(1)
            for i in range(1, 4):
                api.append_log(NS, "karpenter-b", "controller", V1_LINE % (i, i))
            assert await rows(4)
            assert "default/web-3" in " ".join(table.row(table.keys[-1]))
            assert "4 Karpenter log events" in app.source_line()
            await pilot.press("q")
    finally:
        live.stop()
