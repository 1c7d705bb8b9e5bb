"""What ``snapshot save`` keeps (issue 29 item 15): only the fields karptui reads, kind by kind.

Two sides, both through the stand-in API server and the real client:

* nothing the product shows is lost: ``simulate -o json`` (with consolidation and every
  node's verdict) and ``budgets -o json`` give the same answer on the saved file as on the
  objects the server held, unredacted, for the bundled snapshots and a generated cluster;
* nothing else is kept: a canary planted in each place a secret was found to survive the
  old deny-list (and a few more) is absent from the saved file.
"""

from __future__ import annotations

import copy
import json
import sys
from pathlib import Path

import pytest
import yaml

from karptui.cluster.redact import KINDS
from karptui.sources import load_snapshot, write_snapshot
from tests.conftest import REPO, node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import nodepool, only_gets

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "bench"))
import gen_cluster  # noqa: E402  (the benchmarks' cluster generator)

# Karpenter's kinds by era: a real API server serves a kind's objects in every version it has; the
# stand-in serves each only in the version the test's objects are written in
PLURALS = {"NodePool": "nodepools", "NodeClaim": "nodeclaims", "Provisioner": "provisioners", "Machine": "machines",
           "EC2NodeClass": "ec2nodeclasses", "AWSNodeTemplate": "awsnodetemplates", "NodeOverlay": "nodeoverlays"}


def _serve(api: FakeAPI, items: list[dict]) -> list[dict]:
    """Every object of a kind karptui reads on the server; what it holds (uid and creation time
    filled in) is returned. (A RuntimeClass, say, is neither listed live nor saved.)"""
    for item in items:
        if item["kind"] in PLURALS:
            group, _, version = item["apiVersion"].partition("/")
            api.add_resource(group, version, PLURALS[item["kind"]], item["kind"])
    served = []
    for item in items:
        try:
            served.append(api.add(copy.deepcopy(item)))
        except KeyError:
            assert item["kind"] not in KINDS
    return served


def _save(cli, api: FakeAPI, tmp_path: Path, name: str = "saved.json") -> Path:
    out = tmp_path / name
    code, _, err = cli("snapshot", "save", out, "--kubeconfig", api.kubeconfig(tmp_path / "k"), "--logs-since", "0")
    assert code == 0, err
    only_gets(api)
    return out


def _answers(cli, path: Path) -> tuple[dict, dict]:
    code, out, err = cli("simulate", path, "-o", "json", "--consolidate", "--explain")
    assert code == 0, err
    simulated = json.loads(out)
    code, out, err = cli("budgets", path, "-o", "json")
    assert code == 0, err
    return simulated, json.loads(out)


def _round_trip(cli, tmp_path: Path, items: list[dict]) -> None:
    with FakeAPI(karpenter=False) as api:
        served = _serve(api, items)
        saved = _save(cli, api, tmp_path)
    # the same objects, unredacted, under the saved file's metadata (its capture time): only the
    # objects' fields differ between the two files
    whole = tmp_path / "whole.json"
    write_snapshot(whole, served, load_snapshot(saved).meta)
    simulated, budgets = _answers(cli, saved)
    assert simulated["summary"] and budgets
    assert (simulated, budgets) == _answers(cli, whole)
    assert len(load_snapshot(saved).pods) == len(load_snapshot(whole).pods) > 0


def _bundled_items(name: str) -> list[dict]:
    docs = [d for d in yaml.safe_load_all((REPO / "snapshots" / f"{name}.yaml").read_text()) if d]
    return [item for doc in docs if doc.get("kind") == "List" for item in doc["items"]]


@pytest.mark.parametrize("name", ["consolidation", "multi-nodepool", "overprovisioning", "topology-spread"])
def test_a_saved_bundled_cluster_answers_as_the_unredacted_one(cli, tmp_path, name):
    items = _bundled_items(name)
    assert items
    _round_trip(cli, tmp_path, items)


def test_a_saved_generated_cluster_answers_as_the_unredacted_one(cli, tmp_path):
    _round_trip(cli, tmp_path, gen_cluster.generate(40, 500, seed=3, pending_fraction=0.1)["items"])


# ---------------------------------------------------------------- canaries

CANARIES: list[str] = []


def canary(where: str) -> str:
    value = f"CANARY-{where}-7f3a"
    CANARIES.append(value)
    return value


def _container(where: str) -> dict:
    return {
        "name": "app", "image": "app:1", "resources": {"requests": {"cpu": "100m"}},
        "env": {"DB_PASSWORD": canary(f"{where}-env-map")},       # env written as a map (not a list)
        "envFrom": [{"prefix": canary(f"{where}-envFrom-prefix"), "secretRef": {"name": "db"}}],
        "livenessProbe": {"httpGet": {"path": f"/healthz?token={canary(f'{where}-probe-query')}", "port": 80}},
        "readinessProbe": {"exec": {"command": ["check", canary(f"{where}-probe-exec")]}},
        "workingDir": canary(f"{where}-workingDir"),
    }


def _pod_spec(where: str) -> dict:
    return {"containers": [_container(where)],
            "volumes": [{"name": "csi", "csi": {"driver": "secrets-store.csi.k8s.io",
                                                 "volumeAttributes": {"token": canary(f"{where}-csi-attributes")}}},
                        {"name": "flex", "flexVolume": {"driver": "acme/flex",
                                                        "options": {"password": canary(f"{where}-flex-options")}}},
                        {"name": "data", "persistentVolumeClaim": {"claimName": "data"}}],
            "imagePullSecrets": [{"name": "regcred"}]}


def _annotations(where: str) -> dict:
    """Copies of the object as tools keep them, in every spelling seen."""
    return {"kubectl.kubernetes.io/last-applied-configuration": canary(f"{where}-kubectl"),
            "Kubectl.Kubernetes.io/Last-Applied-Configuration": canary(f"{where}-kubectl-case"),
            "app.oam.dev/last-applied-configuration": canary(f"{where}-kubevela"),
            "oam.dev/kubevela-version": "v1.9", "example.com/note": canary(f"{where}-annotation")}


def hostile(api: FakeAPI) -> None:
    api.add(node_obj("node-0"))
    pod = pod_obj("web-0", node="node-0")
    pod["metadata"]["annotations"] = _annotations("pod")
    pod["metadata"]["managedFields"] = [{"manager": "kubectl", "fieldsV1": {f"f:{canary('managed')}": {}}}]
    pod["spec"].update(_pod_spec("pod"))
    pod["status"] = {**pod.get("status", {}), "message": canary("pod-status-message"),
                     "reason": canary("pod-status-reason"),
                     "containerStatuses": [{"name": "app", "restartCount": 2, "ready": False,
                                            "state": {"waiting": {"reason": "CrashLoopBackOff",
                                                                  "message": canary("waiting-message")}},
                                            "lastState": {"terminated": {"exitCode": 1,
                                                                         "message": canary("terminated-message")}}}]}
    api.add(pod)
    api.add({"apiVersion": "apps/v1", "kind": "StatefulSet",
             "metadata": {"name": "db", "namespace": "default", "annotations": _annotations("sts")},
             "spec": {"replicas": 1, "selector": {"matchLabels": {"app": "db"}},
                      "template": {"metadata": {"labels": {"app": "db"}, "annotations": _annotations("sts-template")},
                                   "spec": _pod_spec("sts")},
                      "volumeClaimTemplates": [{"metadata": {"name": "data", "annotations": _annotations("vct")},
                                                "spec": {"accessModes": ["ReadWriteOnce"],
                                                         "resources": {"requests": {"storage": "1Gi"}}}}]}})
    api.add({"apiVersion": "v1", "kind": "PersistentVolume",
             "metadata": {"name": "pv-0", "annotations": _annotations("pv")},
             "spec": {"capacity": {"storage": "1Gi"}, "accessModes": ["ReadWriteOnce"],
                      "csi": {"driver": "ebs.csi.aws.com", "volumeHandle": "vol-0",
                              "volumeAttributes": {"password": canary("pv-csi-attributes")},
                              "nodePublishSecretRef": {"name": canary("pv-secret-ref"), "namespace": "kube-system"}},
                      "mountOptions": [canary("pv-mount-options")]}})
    api.add({"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "heketi"},
             "provisioner": "kubernetes.io/glusterfs", "volumeBindingMode": "WaitForFirstConsumer",
             "parameters": {"restuser": "admin", "restuserkey": canary("storageclass-restuserkey")}})
    api.add(nodepool("default"))
    api.add({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
             "metadata": {"name": "default", "annotations": _annotations("nodeclass")},
             "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                      "tags": {"team": canary("nodeclass-tag")},
                      "userData": canary("nodeclass-userData")}})


def test_no_canary_survives_in_a_saved_snapshot(cli, tmp_path):
    CANARIES.clear()
    with FakeAPI() as api:
        hostile(api)
        saved = _save(cli, api, tmp_path, "saved.yaml")
        asked = {path for _, path, _ in api.requests}
    text = saved.read_text()
    assert len(CANARIES) >= 30
    assert [c for c in CANARIES if c in text] == []
    assert "7f3a" not in text and "managedFields" not in text
    # Secrets and ConfigMaps are never even asked for
    assert not [p for p in asked if "secrets" in p or "configmaps" in p]
    # ... while what karptui reads is there, and image pull secrets' names are harmless
    snapshot = load_snapshot(saved)
    pod = next(p for p in snapshot.pods if p.name == "web-0")
    assert pod.restarts == 2 and pod.pvc_names == ("data",) and pod.node_name == "node-0"
    assert [c.name for c in snapshot.nodeclasses] == ["default"]
    assert dict(snapshot.nodeclasses[0].tags) == {"team": "<redacted by karptui>"}
    assert [s.name for s in snapshot.storage_classes] == ["heketi"]


def test_events_and_read_annotations_are_kept(cli, tmp_path):
    """Event messages are the scheduler's and Karpenter's words: kept. So are the annotations
    karptui reads (do-not-disrupt, deletion cost...), each by name."""
    with FakeAPI() as api:
        api.add(node_obj("node-0"))
        pod = pod_obj("web-0", node="node-0")
        pod["metadata"]["annotations"] = {"karpenter.sh/do-not-disrupt": "true",
                                          "controller.kubernetes.io/pod-deletion-cost": "5",
                                          "example.com/other": "dropped"}
        api.add(pod)
        api.add({"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e1", "namespace": "default"},
                 "involvedObject": {"kind": "Pod", "namespace": "default", "name": "web-0"},
                 "reason": "FailedScheduling", "type": "Warning", "source": {"component": "default-scheduler"},
                 "message": "0/3 nodes are available: 3 Insufficient cpu.",
                 "lastTimestamp": "2024-09-10T01:14:52Z", "count": 1})
        saved = _save(cli, api, tmp_path)
    snapshot = load_snapshot(saved)
    assert [e.message for e in snapshot.events] == ["0/3 nodes are available: 3 Insufficient cpu."]
    pod = next(p for p in snapshot.pods if p.name == "web-0")
    assert dict(pod.annotations) == {"karpenter.sh/do-not-disrupt": "true",
                                     "controller.kubernetes.io/pod-deletion-cost": "5"}
