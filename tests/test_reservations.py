"""Capacity reservations a catalog names: used up as Karpenter's scheduler uses them up, per release.

Real-shaped inputs: an EC2 on-demand capacity reservation (``cr-…``) for m5.large in one zone,
the NodePool's EC2NodeClass listing the reservations it selected in ``status.capacityReservations``.
The ported upstream tests are scenarios (tests/karpenter_spec/scheduling/4713 … 5057); these hold
what a catalog file and a snapshot add: a reservation already full when captured, and a node
class that selected none.
"""

from __future__ import annotations

import dataclasses

import pytest

from karptui.catalog import parse_catalog
from karptui.model import build_snapshot
from karptui.sim import simulate
from tests.simkit import pod

RID = "karpenter.k8s.aws/capacity-reservation-id"


def _cluster(version: str, left: int, pods: int = 1, selected: list[str] | None = None):
    catalog = parse_catalog({"instanceTypes": [
        {"name": "m5.large", "cpu": "2", "memory": "8Gi", "pods": "29",
         "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096},
                       {"zone": "us-east-1a", "capacityType": "reserved", "price": 0.0,
                        "reservationId": "cr-0a1b2c3d4e5f60718", "reservationCapacity": left}]}]})
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {
                "requirements": [{"key": "karpenter.sh/capacity-type", "operator": "In",
                                  "values": ["reserved", "on-demand"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    objects = [pool]
    if selected is not None:
        status = {"conditions": [{"type": "Ready", "status": "True"}]}
        if selected:
            status["capacityReservations"] = [
                {"id": rid, "availabilityZone": "us-east-1a", "instanceType": "m5.large",
                 "instanceMatchCriteria": "targeted", "ownerID": "123456789012"} for rid in selected]
        objects.append({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass", "metadata": {"name": "default"},
                        "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}]},
                        "status": status})
    for i in range(pods):
        raw = pod(f"web-{i}", cpu="1500m", labels={"app": "web"})
        raw["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
        objects.append(raw)
    return dataclasses.replace(build_snapshot(objects), karpenter_version=version), catalog


def _launches(result):
    return sorted((p.launch["capacity_type"], p.launch.get("reservation_id")) for p in result.nodeclaims)


def test_a_reservation_with_room_is_launched_into_and_named():
    snapshot, catalog = _cluster("v1.14.3", left=1)
    (plan,) = simulate(snapshot, catalog=catalog).nodeclaims
    assert plan.launch["capacity_type"] == "reserved"
    assert plan.launch["reservation_id"] == "cr-0a1b2c3d4e5f60718"
    assert plan.requirements[RID] == ("cr-0a1b2c3d4e5f60718",)
    assert plan.requirements["karpenter.sh/capacity-type"] == ("reserved",)


@pytest.mark.parametrize("version", ["v1.9.2", "v1.14.0", "v1.14.3"])
def test_before_v1_15_the_pod_beyond_the_reservation_waits_for_the_next_simulation(version):
    snapshot, catalog = _cluster(version, left=1, pods=2)
    result = simulate(snapshot, catalog=catalog)
    assert _launches(result) == [("reserved", "cr-0a1b2c3d4e5f60718")]
    waiting = [a for a in result.attempts if a.node is None]
    assert [a.pod.name for a in waiting] == ["web-1"]
    assert "compatible reserved offerings are available, but could not be reserved" in waiting[0].karpenter_reason


@pytest.mark.parametrize("version", ["v1.15.0", "v1.15.1"])
def test_from_v1_15_the_pod_beyond_the_reservation_falls_through_to_on_demand(version):
    snapshot, catalog = _cluster(version, left=1, pods=2)
    result = simulate(snapshot, catalog=catalog)
    assert _launches(result) == [("on-demand", None), ("reserved", "cr-0a1b2c3d4e5f60718")]
    assert all(a.node is not None for a in result.attempts)


def test_a_reservation_full_when_captured_is_no_reason_to_wait_on_either_line():
    """Before v1.15 the provider reports it unavailable; from v1.15 it is available but full and falls through."""
    for version in ("v1.9.2", "v1.14.3", "v1.15.1"):
        snapshot, catalog = _cluster(version, left=0)
        assert _launches(simulate(snapshot, catalog=catalog)) == [("on-demand", None)], version


def test_a_nodepool_uses_only_the_reservations_its_ec2nodeclass_selected():
    snapshot, catalog = _cluster("v1.14.3", left=1, selected=[])
    assert _launches(simulate(snapshot, catalog=catalog)) == [("on-demand", None)]
    snapshot, catalog = _cluster("v1.14.3", left=1, selected=["cr-0a1b2c3d4e5f60718"])
    assert _launches(simulate(snapshot, catalog=catalog)) == [("reserved", "cr-0a1b2c3d4e5f60718")]
