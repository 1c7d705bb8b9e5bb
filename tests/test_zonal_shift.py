"""An ARC zonal shift, as the AWS provider's NodePool events show it: no launch in the shifted zone.

The events are the provider's own (aws ``pkg/cloudprovider/events/events.go`` from v1.14.0):
``Warning ZonalShiftActive`` and ``Normal ZonalShiftCleared`` on a NodePool, the zone's name and id
in the message.
"""

from __future__ import annotations

import dataclasses

import pytest

from karptui.catalog import parse_catalog
from karptui.model import build_snapshot
from karptui.sim import simulate
from tests.simkit import pod

ZONE = "topology.kubernetes.io/zone"


def _event(reason, zone, zone_id, at):
    kind, what = ("Warning", "Zonal shift detected: offerings in zone {} ({}) are unavailable for this NodePool") \
        if reason == "ZonalShiftActive" else \
        ("Normal", "Zonal shift cleared: offerings in zone {} ({}) are restored for this NodePool")
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"default.{reason.lower()}{at}", "namespace": "default"},
            "involvedObject": {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "name": "default"},
            "reason": reason, "message": what.format(zone, zone_id), "type": kind,
            "source": {"component": "karpenter"}, "count": 1,
            "firstTimestamp": f"2026-10-20T10:{at:02d}:00Z", "lastTimestamp": f"2026-10-20T10:{at:02d}:00Z"}


def _run(events, version="v1.15.1", zone=None):
    catalog = parse_catalog({"instanceTypes": [
        {"name": "m5.large", "cpu": "2", "memory": "8Gi", "pods": "29",
         "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.090},
                       {"zone": "us-east-1b", "capacityType": "on-demand", "price": 0.096}]}]})
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"requirements": [], "nodeClassRef": {
                "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    web = pod("web", cpu="1")
    web["status"]["conditions"] = [{"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]
    if zone:
        web["spec"]["nodeSelector"] = {ZONE: zone}
    snapshot = dataclasses.replace(build_snapshot([pool, web, *events]), karpenter_version=version)
    return simulate(snapshot, catalog=catalog)


def _zones(result):
    return [p.launch["zone"] for p in result.nodeclaims]


def test_no_shift_launches_in_the_cheapest_zone():
    assert _zones(_run([])) == ["us-east-1a"]


@pytest.mark.parametrize("version", ["v1.14.0", "v1.14.3", "v1.15.1"])
def test_a_shifted_zone_gets_no_launch_and_a_note_says_why(version):
    result = _run([_event("ZonalShiftActive", "us-east-1a", "use1-az1", 5)], version=version)
    assert _zones(result) == ["us-east-1b"]
    assert "zonal shift: no launch in us-east-1a (event ZonalShiftActive on NodePool default)" in result.notes
    pinned = _run([_event("ZonalShiftActive", "us-east-1a", "use1-az1", 5)], version=version, zone="us-east-1a")
    assert pinned.nodeclaims == () and [a.node for a in pinned.attempts] == [None]


@pytest.mark.parametrize("version", ["v1.14.0", "v1.15.1"])
def test_a_shift_cleared_later_is_over(version):
    events = [_event("ZonalShiftActive", "us-east-1a", "use1-az1", 5), _event("ZonalShiftCleared", "us-east-1a", "use1-az1", 9)]
    assert _zones(_run(events, version=version)) == ["us-east-1a"]
    assert _zones(_run(list(reversed(events)), version=version)) == ["us-east-1a"]  # by time, not by order in the dump


def test_v1_9_has_no_zonal_shift():
    assert _zones(_run([_event("ZonalShiftActive", "us-east-1a", "use1-az1", 5)], version="v1.9.2")) == ["us-east-1a"]
