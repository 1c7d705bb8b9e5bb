"""v1.15's terminate-first for a node in a full capacity reservation, as operators see it: the JSON
names the reservation, the Disruption pane says why the node goes before its replacement, and the
instance it frees is there for the rest of the plan.

The rule per release is held by scenarios (tests/karpenter_spec/drift/from-code-terminate-first-*,
node-health/from-code-repair-terminate-first-full-reservation); these cover what they cannot say."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import yaml

from karptui.catalog import load_catalog_file
from karptui.model.snapshot import SnapshotMeta
from karptui.sim import simulate
from karptui.sources.files import load_snapshot
from karptui.sources.snapshot_file import write_snapshot
from karptui.views.disruption import simulated_view
from tests.karpenter_spec.harness import NOW, Cluster, fake_type, run_cli

SMALL = fake_type({"name": "small-instance-type", "resources": {"cpu": "2", "memory": "2Gi"}, "offerings": [
    {"zone": "test-zone-1", "capacityType": "on-demand", "available": True},
    {"zone": "test-zone-1", "capacityType": "reserved", "price": 0.0001, "available": True,
     "reservationId": "r-small", "reservationCapacity": 0}]})


def _files(tmp_path: Path, drifted: int) -> tuple[str, str]:
    """Two nodes in reservation r-small (none of its instances left), ``drifted`` of them drifted,
    a one-cpu pod on each (no room for another on a node); the NodePool launches reserved capacity only."""
    cluster = Cluster({"small-instance-type": SMALL})
    cluster.apply({"kind": "NodePool", "metadata": {"name": "default"}, "spec": {
        "template": {"spec": {"requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                                "values": ["reserved"]}]}},
        "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "Never",
                       "budgets": [{"nodes": "100%"}]}}})
    for i in (1, 2):
        cluster.add_node({"name": f"node-{i}", "instanceType": "small-instance-type", "zone": "test-zone-1",
                          "capacityType": "reserved", "nodepool": "default", "drifted": i <= drifted,
                          "labels": {"karpenter.k8s.aws/capacity-reservation-id": "r-small"}})
        cluster.add_pods(cluster.pod_manifests({"name": f"app-{i}", "nodeName": f"node-{i}",
                                                "requests": {"cpu": "1"}}, pending=False))
    snapshot, catalog = tmp_path / "snap.yaml", tmp_path / "catalog.yaml"
    write_snapshot(snapshot, cluster.manifests(), SnapshotMeta(name="reserved", captured_at=NOW))
    catalog.write_text(yaml.safe_dump({"instanceTypes": [SMALL]}, sort_keys=False))
    return str(snapshot), str(catalog)


def _json(snapshot: str, catalog: str, version: str) -> dict:
    code, out, err = run_cli("simulate", snapshot, "--instance-types", catalog, "--consolidate", "--output", "json",
                             "--karpenter-version", version)
    assert code == 0, err
    return json.loads(out)


def test_the_json_and_the_pane_name_the_full_reservation(tmp_path):
    snapshot, catalog = _files(tmp_path, drifted=1)
    doc = _json(snapshot, catalog, "v1.15.1")
    first = doc["disruptions"][0]
    assert (first["method"], first["action"], first["nodes"], first["terminate_first"],
            first["terminate_first_reservation"], first["replacements"]) == \
        ("drift", "delete", ["node-1"], True, "r-small", [])
    loaded = load_snapshot(snapshot)
    result = simulate(_versioned(loaded, "v1.15.1"), catalog=load_catalog_file(catalog), consolidate=True)
    why = result.verdicts["node-1"].of("drift")
    assert why.kind == "terminate-first" and dict(why.facts)["reservation"] == "r-small"
    row = next(r for r in simulated_view(result, result.snapshot).rows if r.node == "node-1")
    assert "capacity reservation r-small is full" in row.because and "1 pod(s) go pending" in row.because


def test_before_v1_15_drift_waits_and_the_json_names_no_reservation(tmp_path):
    snapshot, catalog = _files(tmp_path, drifted=1)
    doc = _json(snapshot, catalog, "v1.14.3")
    assert doc["disruptions"] == []
    loaded = load_snapshot(snapshot)
    result = simulate(_versioned(loaded, "v1.14.3"), catalog=load_catalog_file(catalog), consolidate=True)
    assert result.verdicts["node-1"].of("drift").kind == "no-room"


def test_the_freed_instance_serves_the_rest_of_the_plan(tmp_path):
    """Both nodes drifted: the first goes first and gives its instance back; its pod, pending, takes that
    instance in every later simulation, so the second node goes first too, by the instance it frees in
    turn (were the first instance forgotten, the second node's pod would find no place and drift stop)."""
    snapshot, catalog = _files(tmp_path, drifted=2)
    doc = _json(snapshot, catalog, "v1.15.1")
    assert [(d["nodes"], d["terminate_first"], d["terminate_first_reservation"]) for d in doc["disruptions"]] == \
        [(["node-1"], True, "r-small"), (["node-2"], True, "r-small")]


def _versioned(snapshot, version: str):
    return replace(snapshot, karpenter_version=version, karpenter_version_set_by="--karpenter-version")
