"""A pod asking for DRA ResourceClaims: Karpenter v1.14 refuses it, and karptui says it does not model DRA."""

from __future__ import annotations

import json

import yaml

from karptui.model.snapshot import SnapshotMeta
from karptui.sources.snapshot_file import write_snapshot
from tests.karpenter_spec.harness import NOW, Cluster, fake_type, nodepool_manifest, run_cli


def _run(tmp_path, spec: dict) -> dict:
    catalog = [fake_type({"name": "default-instance-type"})]
    cluster = Cluster({t["name"]: t for t in catalog})
    cluster.apply({**nodepool_manifest({"metadata": {"name": "default"}}), "kind": "NodePool"})
    cluster.add_pods(cluster.pod_manifests({"name": "pod", "requests": {"cpu": "1"}, "spec": spec}, pending=True))
    write_snapshot(tmp_path / "s.yaml", cluster.manifests(), SnapshotMeta(name="dra", captured_at=NOW))
    (tmp_path / "c.yaml").write_text(yaml.safe_dump({"instanceTypes": catalog}))
    code, out, err = run_cli("simulate", str(tmp_path / "s.yaml"), "--instance-types", str(tmp_path / "c.yaml"),
                             "--output", "json")
    assert code == 0, err
    return json.loads(out)


def test_a_pod_with_a_container_claim_gets_karpenters_dra_error_and_a_not_modelled_note(tmp_path):
    doc = _run(tmp_path, {"resourceClaims": [{"name": "gpu", "resourceClaimName": "gpu"}],
                          "containers": [{"name": "app", "image": "registry.example/app:1",
                                          "resources": {"claims": [{"name": "gpu"}]}}]})
    pod = doc["pods"][0]
    assert pod["node"] is None and doc["nodeclaims"] == []
    assert "Dynamic Resource Allocation requirements that are not yet supported by Karpenter" in pod["reason"]
    assert any("DRA ResourceClaims: not modelled" in note for note in doc["notes"])


def test_a_pod_without_claims_is_provisioned_and_gets_no_note(tmp_path):
    doc = _run(tmp_path, {})
    assert doc["pods"][0]["node"] and len(doc["nodeclaims"]) == 1
    assert not any("DRA" in note for note in doc.get("notes", []))
