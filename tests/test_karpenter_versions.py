"""Which Karpenter a simulation follows: found in the snapshot, said where it came from, settable,
and the rules that differ between v1.9, v1.14 and v1.15 (docs/karpenter-versions.md)."""

from __future__ import annotations

import json

import pytest

KARPENTER_LABELS = {"app.kubernetes.io/name": "karpenter", "app.kubernetes.io/instance": "karpenter"}


def _deployment(image: str, labels=None) -> dict:
    labels = labels or KARPENTER_LABELS
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": labels},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels},
                                  "spec": {"containers": [{"name": "controller", "image": image}]}}}}


def _pod(name: str, image: str, labels=None) -> dict:
    return {"apiVersion": "v1", "kind": "Pod",
            "metadata": {"name": name, "namespace": "kube-system", "labels": labels or {}},
            "spec": {"nodeName": "n1", "containers": [{"name": "controller", "image": image}]},
            "status": {"phase": "Running"}}


def _nodepool(api_version: str = "karpenter.sh/v1") -> dict:
    return {"apiVersion": api_version, "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"disruption": {"consolidateAfter": "0s"},
                     "template": {"spec": {"requirements": [], "nodeClassRef": {
                         "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}


def _crd(disruption_required: list[str], policies: list[str]) -> dict:
    disruption = {"type": "object", "properties": {"consolidationPolicy": {"type": "string", "enum": policies},
                                                   "consolidateAfter": {"type": "string"}}}
    if disruption_required:
        disruption["required"] = disruption_required
    schema = {"openAPIV3Schema": {"type": "object", "properties": {"spec": {"type": "object", "properties": {
        "disruption": disruption}}}}}
    return {"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
            "metadata": {"name": "nodepools.karpenter.sh"},
            "spec": {"group": "karpenter.sh", "names": {"kind": "NodePool", "plural": "nodepools"},
                     "scope": "Cluster",
                     "versions": [{"name": "v1", "served": True, "storage": True, "schema": schema}]}}


def _info(cli, write, items: list[dict]) -> dict:
    path = write("dump.json", {"apiVersion": "v1", "kind": "List", "items": items})
    code, out, err = cli("snapshot", "info", path, "--output", "json")
    assert code == 0, err
    return json.loads(out)["karpenter_version"]


@pytest.mark.parametrize("items, version, source", [
    ([_deployment("public.ecr.aws/karpenter/controller:1.15.1@sha256:" + "a" * 64)], "v1.15.1", "controller image"),
    ([_deployment("123456789012.dkr.ecr.eu-west-1.amazonaws.com/karpenter/controller:v1.14.3")], "v1.14.3",
     "controller image"),
    # no Deployment in the dump: the running pods, the newest of a rollout
    ([_pod("karpenter-a", "public.ecr.aws/karpenter/controller:1.9.2"),
      _pod("karpenter-b", "public.ecr.aws/karpenter/controller:1.14.3")], "v1.14.3", "controller image"),
    # a digest without a tag: the Helm chart's version label
    ([_pod("karpenter-a", "public.ecr.aws/karpenter/controller@sha256:" + "b" * 64,
           {**KARPENTER_LABELS, "app.kubernetes.io/version": "1.9.2"})], "v1.9.2", "Helm chart label"),
    ([_crd([], ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"])], "v1.15.1", "CRDs"),
    ([_crd(["consolidateAfter"], ["WhenEmpty", "WhenEmptyOrUnderutilized", "Balanced"])], "v1.14.3", "CRDs"),
    ([_crd(["consolidateAfter"], ["WhenEmpty", "WhenEmptyOrUnderutilized"])], "v1.13.0", "CRDs"),
    ([_nodepool("karpenter.sh/v1beta1")], "v0.37.0", "NodePool API version"),
    ([_nodepool()], "v1.15.1", "NodePool API version"),
    ([{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}], "v1.15.1", "assumed: newest modelled"),
])
def test_the_version_is_found_in_the_snapshot_and_says_where(cli, write, items, version, source):
    found = _info(cli, write, items)
    assert (found["version"], found["source"]) == (version, source)


def test_a_version_older_than_the_lines_modelled_is_said_plainly(cli, write):
    found = _info(cli, write, [_deployment("public.ecr.aws/karpenter/controller:v0.37.0")])
    assert found["version"] == "v0.37.0" and found["older_than_modelled"] is True
    assert "older than the lines karptui models" in found["detail"] and "v1.9" in found["detail"]
    code, out, _ = cli("snapshot", "info", write("d.json", {"apiVersion": "v1", "kind": "List", "items": [
        _deployment("public.ecr.aws/karpenter/controller:v0.37.0")]}))
    assert code == 0 and "Karpenter v0.37.0 (controller image; simulated by v1.9's rules)" in " ".join(out.split())


@pytest.mark.parametrize("name, version", [("consolidation", "v1.0.1"), ("multi-nodepool", "v0.35.1"),
                                           ("overprovisioning", "v1.0.1"), ("topology-spread", "v0.27.3")])
def test_every_bundled_snapshot_says_which_version_it_assumes(cli, name, version):
    """In `snapshot info`, in `simulate`'s JSON and in the TUI header: each bundled snapshot's controller image, and
    that a release older than v1.9 is simulated by v1.9's rules."""
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.views.overview import header_totals

    code, out, _ = cli("snapshot", "info", name, "--output", "json")
    found = json.loads(out)["karpenter_version"]
    assert code == 0 and (found["version"], found["source"]) == (version, "controller image"), (name, found)
    code, out, err = cli("simulate", name, "--output", "json")
    assert code == 0, err
    assert json.loads(out)["karpenter_version"] == found
    snapshot = load_snapshot(bundled_snapshot(name))
    assert f"Karpenter {version} (controller image; simulated by v1.9's rules)" in header_totals(snapshot, snapshot.as_of)


def test_the_flag_sets_the_version_and_the_json_says_so(cli):
    code, out, err = cli("simulate", "consolidation", "--karpenter-version", "v1.14", "--output", "json")
    assert code == 0, err
    found = json.loads(out)["karpenter_version"]
    assert found["version"] == "v1.14.0" and found["source"] == "set by --karpenter-version"
    assert "v1.0.1 (controller image)" in found["detail"]


@pytest.mark.parametrize("command", [["simulate", "consolidation"], ["open", "consolidation"], ["demo"]])
@pytest.mark.parametrize("value", ["1.x", "latest", "v1"])
def test_a_bad_version_is_one_line_and_exit_2(cli, command, value):
    code, out, err = cli(*command, "--karpenter-version", value)
    assert code == 2 and out == ""
    assert err.strip().count("\n") == 0 and "--karpenter-version" in err and "Traceback" not in err


def _whatif(write, edits: list[dict]) -> str:
    return str(write("w.yaml", {"apiVersion": "karptui/v1", "kind": "WhatIf", "name": "versions", "edits": edits}))


def test_a_whatif_sets_the_version(cli, write):
    code, out, err = cli("simulate", "consolidation", "--whatif", _whatif(write, [{"karpenterVersion": "v1.9"}]),
                         "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["karpenter_version"]["version"] == "v1.9.0" and doc["karpenter_version"]["source"] == "set by what-if"
    assert "Karpenter v1.9.0" in doc["whatif"]["notes"]


@pytest.mark.parametrize("value", [1.10, "one", None])
def test_a_bad_whatif_version_is_one_line_and_exit_2(cli, write, value):
    code, _, err = cli("simulate", "consolidation", "--whatif", _whatif(write, [{"karpenterVersion": value}]))
    assert code == 2 and ("karpenterVersion" in err or "Karpenter version" in err)
    assert err.strip().count("\n") == 0


# ---- consolidateAfter left out: v1.15 defaults it to 0s, before v1.15 the CRD required it ----------------
# kubernetes-sigs/karpenter pkg/apis/v1/nodepool.go: +required at v1.9.1 and v1.14.1, +kubebuilder:default "0s"
# and +optional on main (kubernetes-sigs/karpenter#3220, in v1.15.0)
NO_CONSOLIDATE_AFTER = [{"target": "NodePool/default", "patchType": "merge",
                         "patch": {"spec": {"disruption": {"consolidateAfter": None}}}}]


@pytest.mark.parametrize("version, consolidates", [("v1.9.2", False), ("v1.14.0", False), ("v1.14.3", False),
                                                   ("v1.15.0", True), ("v1.15.1", True)])
def test_a_nodepool_without_consolidate_after(cli, write, version, consolidates):
    whatif = _whatif(write, NO_CONSOLIDATE_AFTER)
    code, out, err = cli("simulate", "consolidation", "--consolidate", "--explain", "--whatif", whatif,
                         "--karpenter-version", version, "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert bool(doc["disruptions"]) is consolidates
    said = "consolidateAfter is missing: Karpenter before v1.15 requires it" in json.dumps(doc)
    assert said is not consolidates


def test_a_nodepool_with_consolidate_after_consolidates_under_every_line(cli):
    for version in ("v1.9", "v1.14", "v1.15"):
        code, out, err = cli("simulate", "consolidation", "--consolidate", "--karpenter-version", version,
                             "--output", "json")
        assert code == 0, err
        assert [d["action"] for d in json.loads(out)["disruptions"]] == ["delete"], version


# ---- Balanced consolidation: a policy from v1.14.0 (kubernetes-sigs/karpenter#2962) ------------------------
# Before it the CRD's enum refuses Balanced, and v1.9.1's consolidation.go ShouldDisrupt takes any policy but
# WhenEmptyOrUnderutilized as "has non-empty consolidation disabled" (emptiness still runs).
@pytest.mark.parametrize("version, moves, scored", [
    ("v1.9.2", [], False),
    ("v1.14.1", [("delete", ["node-light"])], True),
    ("v1.15.1", [("delete", ["node-light"])], True),
])
def test_a_balanced_nodepool_is_scored_from_v1_14_and_consolidates_only_empty_nodes_before(cli, version, moves, scored):
    from tests.conftest import FIXTURES

    code, out, err = cli("simulate", FIXTURES / "balanced" / "balanced-policy.yaml", "--consolidate", "--explain",
                         "--karpenter-version", version, "--output", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert [(d["action"], d["nodes"]) for d in doc["disruptions"]] == moves
    assert bool(doc["consolidation_scores"]) is scored
    said = "is Balanced, which Karpenter before v1.14 does not have" in json.dumps(doc)
    assert said is not scored
