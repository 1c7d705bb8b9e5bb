"""Writing files in a hostile world (issue 12): what ``snapshot save`` leaves out, and how
karptui's one writer treats links, crashes, permissions, read-only targets and the open file.

Everything is checked where the user meets it: the saved file's text, the file system
afterwards, the command's exit status and stderr, the TUI through Pilot.
"""

from __future__ import annotations

import json

import yaml

from karptui.cluster.redact import REDACTED, redact
from karptui.model import SnapshotMeta
from karptui.sources import load_snapshot
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import nodepool, only_gets

META = SnapshotMeta(name="t", context="ctx")


# ---------------------------------------------------------------- finding 3: what a snapshot keeps out

SECRETS: list[str] = []


def secret(where: str) -> str:
    """A string that must not reach the file, remembered so the test can look for every one."""
    value = f"s3cr3t-{where}"
    SECRETS.append(value)
    return value


def spec_copies(where: str) -> dict:
    """The annotations tools write with a copy of the object, plus one ordinary annotation."""
    return {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({"password": secret(f"{where}-kubectl")}),
            "kapp.k14s.io/original": json.dumps({"password": secret(f"{where}-kapp")}),
            "objectset.rio.cattle.io/applied": secret(f"{where}-rio"),
            "example.com/team": "payments"}


def container(where: str) -> dict:
    return {"name": "c", "image": "app:1",
            "command": ["/bin/sh", "-c", f"serve --token={secret(f'{where}-command')}"],
            "args": [f"--db-password={secret(f'{where}-args')}"],
            "env": [{"name": "DB", "value": secret(f"{where}-env")},
                    {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "db", "key": "key"}}}],
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            "livenessProbe": {"exec": {"command": ["check", secret(f"{where}-probe")]}},
            "readinessProbe": {"httpGet": {"path": "/", "port": 80, "httpHeaders": [
                {"name": "Authorization", "value": f"Bearer {secret(f'{where}-header')}"}]}},
            "lifecycle": {"preStop": {"exec": {"command": ["drain", secret(f"{where}-hook")]}}}}


def pod_spec(where: str) -> dict:
    return {"containers": [container(where)], "initContainers": [container(f"{where}-init")]}


def managed(where: str) -> list:
    return [{"manager": "kubectl", "operation": "Update", "fieldsV1": {f"f:{secret(f'{where}-managed')}": {}}}]


def workload(kind: str, api_version: str) -> dict:
    name = kind.lower()
    obj = {"apiVersion": api_version, "kind": kind,
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": name},
                        "annotations": spec_copies(kind), "managedFields": managed(kind)},
           "spec": {"selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}, "annotations": spec_copies(f"{kind}-template")},
                                 "spec": pod_spec(f"{kind}-template")}}}
    if kind != "Job":
        obj["spec"]["replicas"] = 1
    return obj


def hostile_cluster(api: FakeAPI) -> None:
    api.add(node_obj("node-0"))
    pod = pod_obj("web-0", node="node-0")
    pod["metadata"].update(annotations=spec_copies("Pod"), managedFields=managed("Pod"))
    pod["spec"].update(pod_spec("Pod"))
    pod["spec"]["ephemeralContainers"] = [container("Pod-ephemeral")]
    api.add(pod)
    for kind, version in (("Deployment", "apps/v1"), ("ReplicaSet", "apps/v1"), ("StatefulSet", "apps/v1"),
                          ("DaemonSet", "apps/v1"), ("Job", "batch/v1")):
        api.add(workload(kind, version))
    api.add(nodepool("default"))
    api.add({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
             "metadata": {"name": "default", "annotations": spec_copies("EC2NodeClass")},
             "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                      "userData": f"#!/bin/bash\nexport JOIN_TOKEN={secret('userData')}\n"}})


def test_snapshot_save_keeps_no_copy_of_a_secret(tmp_path, cli):
    SECRETS.clear()
    with FakeAPI() as api:
        hostile_cluster(api)
        out = tmp_path / "cluster.yaml"
        code, stdout, err = cli("snapshot", "save", out, "--kubeconfig", api.kubeconfig(tmp_path / "k"),
                                "--logs-since", "0")
        only_gets(api)
    assert code == 0 and stdout.startswith("saved 9 objects"), err
    raw = out.read_text()
    assert len(SECRETS) > 60
    assert [s for s in SECRETS if s in raw] == []
    assert "s3cr3t" not in raw  # nothing partial either
    assert "managedFields" not in raw and "last-applied-configuration" not in raw
    assert "kapp.k14s.io/original" not in raw and "objectset.rio.cattle.io/applied" not in raw
    snapshot = load_snapshot(out)
    assert sorted(w.kind for w in snapshot.workloads) == ["DaemonSet", "Deployment", "Job", "ReplicaSet",
                                                          "StatefulSet"]
    # What is kept, and how a redaction looks: the field is still there.
    docs = list(yaml.safe_load_all(raw))
    objects = {(o["kind"], o["metadata"]["name"]): o for o in docs[1]["items"]}
    deployment = objects[("Deployment", "deployment")]
    assert deployment["metadata"]["annotations"] == {"example.com/team": "payments"}
    template = deployment["spec"]["template"]
    assert template["metadata"] == {"labels": {"app": "deployment"}, "annotations": {"example.com/team": "payments"}}
    app = template["spec"]["containers"][0]
    assert app["command"] == [REDACTED] and app["args"] == [REDACTED]
    assert app["env"] == [{"name": "DB", "value": REDACTED},
                          {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "db", "key": "key"}}}]
    assert app["livenessProbe"] == {"exec": {"command": [REDACTED]}}
    assert app["readinessProbe"]["httpGet"]["httpHeaders"] == [{"name": "Authorization", "value": REDACTED}]
    assert app["resources"] == {"requests": {"cpu": "100m", "memory": "64Mi"}} and app["image"] == "app:1"
    pod = objects[("Pod", "web-0")]
    assert pod["spec"]["ephemeralContainers"][0]["args"] == [REDACTED]
    node_class = objects[("EC2NodeClass", "default")]
    assert node_class["spec"]["userData"] == REDACTED
    assert node_class["spec"]["amiSelectorTerms"] == [{"alias": "al2023@latest"}]


def test_an_aws_node_template_loses_its_user_data_too():
    template = {"apiVersion": "karpenter.k8s.aws/v1alpha1", "kind": "AWSNodeTemplate", "metadata": {"name": "a"},
                "spec": {"userData": "password=hunter2", "amiFamily": "AL2"}}
    assert redact(template)["spec"] == {"userData": REDACTED, "amiFamily": "AL2"}
