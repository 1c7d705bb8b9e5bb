"""Instance-type catalogs: the bundled EC2 data, user catalog files, and simulated Nodes."""

from __future__ import annotations

import gzip
import importlib.util
import json
import re
import sys

import pytest

from karptui.sim.karpenter.instancetypes import type_set
from karptui.sim.karpenter.requirements import Reqs
from karptui.catalog import (
    Offering, bundled_catalog, bundled_regions, catalog_from_snapshot_region,
    instance_id, load_catalog_file, node_manifest, region_of_zone, snapshot_region,
)
from karptui.errors import InputError
from karptui.model import build_snapshot
from karptui.model.resources import Resources
from karptui.model.selectors import Requirement
from karptui.model.taints import Taint
from tests.conftest import REPO, node_obj

SHARED = REPO.parent / "shared" / "data" / "ec2-instance-types.json"
BUNDLED = REPO / "karptui" / "catalog" / "data" / "ec2-instance-types.json.gz"
ZONE, CT, FAMILY = "topology.kubernetes.io/zone", "karpenter.sh/capacity-type", "karpenter.k8s.aws/instance-family"
Mi, Gi = 2**20, 2**30


def req(key, op, *values):
    return Requirement(key, op, tuple(values))


@pytest.fixture(scope="module")
def east():
    return bundled_catalog("us-east-1", ["us-east-1a", "us-east-1b", "us-east-1c"])


# -- bundled data -------------------------------------------------------------------------------

def test_m5_large_matches_karpenters_figures(east):
    m5 = east.get("m5.large")
    assert m5.capacity["cpu"] == 2000 and m5.labels["karpenter.k8s.aws/instance-cpu"] == "2"
    assert m5.allocatable["cpu"] == 1930
    assert m5.allocatable["pods"] == 29
    assert m5.allocatable["memory"] == 6903 * Mi
    assert m5.allocatable["ephemeral-storage"] == 17 * Gi
    assert m5.allocatable["vpc.amazonaws.com/pod-eni"] == 9
    # Karpenter's capacity: 8192 MiB less its 7.5% VM overhead share (ceil 614.4 = 615)
    assert m5.capacity["memory"] == (8192 - 615) * Mi
    assert m5.labels[FAMILY] == "m5" and m5.labels["kubernetes.io/arch"] == "amd64"
    assert m5.arch == "amd64" and m5.os == ("linux",)
    on_demand = m5.offering("us-east-1a", "on-demand")
    assert on_demand.price == 0.096 and not on_demand.price_estimated


def test_bundled_catalog_holds_every_type_in_the_shared_data(east):
    if not SHARED.exists():
        pytest.skip("shared data not present")
    source = json.loads(SHARED.read_text())["instanceTypes"]
    assert len(east) == len(source) == 1363
    assert east.names == tuple(sorted(t["name"] for t in source))
    for raw in source[::97]:
        kind = east.get(raw["name"])
        assert kind.allocatable == Resources.parse(raw["resources"])
        assert dict(kind.labels) == raw["labels"]
        assert kind.capacity["cpu"] == raw["capacity"]["cpu"] * 1000


def test_gpu_and_arm_types_keep_their_extended_resources_and_arch(east):
    g4 = east.get("g4dn.xlarge")
    assert g4.allocatable["nvidia.com/gpu"] == 1 and g4.capacity["nvidia.com/gpu"] == 1
    assert g4.labels["karpenter.k8s.aws/instance-gpu-name"] == "t4"
    assert east.get("m6g.large").arch == "arm64"


def test_region_without_static_prices_falls_back_to_us_east_1_marked_estimated():
    seoul = bundled_catalog("ap-northeast-2", ["ap-northeast-2a", "ap-northeast-2c"])
    m5 = seoul.get("m5.large")
    assert m5.zones == {"ap-northeast-2a", "ap-northeast-2c"}
    offer = m5.offering("ap-northeast-2c", "on-demand")
    assert offer.price == 0.096 and offer.price_estimated
    assert seoul.region == "ap-northeast-2"


def test_gov_region_uses_its_own_table():
    gov = bundled_catalog("us-gov-west-1").get("m5.large")
    offer = gov.offering("us-gov-west-1a", "on-demand")
    assert offer.price == 0.121 and not offer.price_estimated
    assert {"us-east-1", "us-gov-west-1", "us-gov-east-1"} <= set(bundled_regions())


def test_default_zones_are_a_b_c():
    assert bundled_catalog("eu-west-1").zones == ("eu-west-1a", "eu-west-1b", "eu-west-1c")


def test_spot_is_cheaper_than_on_demand_and_estimated(east):
    priced = [t for t in east if t.offering("us-east-1a", "on-demand").price is not None]
    assert len(priced) > 1300
    for kind in priced:
        spot = kind.offering("us-east-1a", "spot")
        if spot is None:
            continue
        assert spot.price_estimated
        assert 0 < spot.price < kind.offering("us-east-1a", "on-demand").price
    assert east.get("m5.large").offering("us-east-1b", "spot").price == pytest.approx(0.0346)


def test_hpc_types_have_no_spot_offering(east):
    hpc = east.get("hpc7g.16xlarge")
    assert hpc.capacity_types == {"on-demand"}


def test_spot_ratio_one_reproduces_karpenters_seeding():
    m5 = bundled_catalog("us-east-1", ["us-east-1a"], spot_ratio=1.0).get("m5.large")
    assert m5.offering("us-east-1a", "spot").price == m5.offering("us-east-1a", "on-demand").price


def test_types_without_a_price_stay_usable(east):
    unpriced = east.get("dl2q.24xlarge")
    assert unpriced.offering("us-east-1a", "on-demand").price is None
    assert unpriced.zones == {"us-east-1a", "us-east-1b", "us-east-1c"}
    assert meets(east, "dl2q.24xlarge", req(ZONE, "In", "us-east-1a"))


def test_cheapest_prefers_priced_spot(east):
    types = type_set(east)
    m5 = types.index["m5.large"]
    on_demand_b = Reqs.from_model([req(CT, "In", "on-demand"), req(ZONE, "In", "us-east-1b")])
    assert types.cheapest_price(m5, on_demand_b) == pytest.approx(0.096)
    assert types.cheapest_price(m5, Reqs()) == pytest.approx(east.get("m5.large").offering("us-east-1a", "spot").price)
    assert types.cheapest_price(m5, Reqs.from_model([req(ZONE, "In", "us-west-2a")])) == float("inf")


# -- requirements (the Karpenter simulation's TypeSet owns "a type meets these requirements") ----

def meets(catalog, name, *requirements) -> bool:
    types = type_set(catalog)
    reqs = Reqs.from_model(requirements)
    i = types.index[name]
    return bool(types.compatible_mask(reqs)[i] and types.offered_mask(reqs)[i])


def test_requirements_match_labels_and_offerings(east):
    assert meets(east, "m5.large", req(FAMILY, "In", "m5", "c5"), req(ZONE, "In", "us-east-1a"),
                 req(CT, "In", "spot"), req("kubernetes.io/os", "In", "linux"))
    assert not meets(east, "m5.large", req(ZONE, "In", "us-east-1d"))
    assert not meets(east, "m5.large", req("karpenter.k8s.aws/instance-cpu", "Gt", "4"))
    assert not meets(east, "m5.large", req("kubernetes.io/arch", "In", "arm64"))
    assert not meets(east, "m5.large", req("karpenter.k8s.aws/instance-gpu-name", "In", "t4"))
    assert meets(east, "m5.large", req("karpenter.k8s.aws/instance-gpu-count", "DoesNotExist"))
    assert meets(east, "m5.large", req("topology.kubernetes.io/region", "In", "us-east-1"))
    assert not meets(east, "m5.large", req("topology.kubernetes.io/region", "In", "eu-west-1"))
    # a NodePool's own label says nothing about the type
    assert meets(east, "m5.large", req("team", "In", "payments"))
    assert "karpenter.k8s.aws/instance-family" in east.well_known and "team" not in east.well_known


def test_zone_and_capacity_type_must_hold_on_the_same_offering(write):
    cat = load_catalog_file(write("c.yaml", """
instanceTypes:
- name: m5.large
  cpu: "2"
  memory: 8Gi
  offerings:
  - {zone: us-east-1a, capacityType: on-demand, price: 0.096}
  - {zone: us-east-1b, capacityType: spot, price: 0.04}
"""))
    assert meets(cat, "m5.large", req(ZONE, "In", "us-east-1a"), req(CT, "In", "on-demand"))
    assert not meets(cat, "m5.large", req(ZONE, "In", "us-east-1a"), req(CT, "In", "spot"))


# -- Catalog ------------------------------------------------------------------------------------

def test_catalog_get_select_and_for_region(east):
    assert east.get("nope.large") is None and "m5.large" in east
    small = east.select(["m5.large", "c5.xlarge", "nope"])
    assert small.names == ("c5.xlarge", "m5.large")
    narrowed = small.for_region("us-east-1", ["us-east-1b"])
    assert narrowed.get("m5.large").zones == {"us-east-1b"}
    elsewhere = small.for_region("us-west-2")
    assert elsewhere.get("m5.large").zones == frozenset() and len(elsewhere) == 2
    assert east.get("m5.large").zones == {"us-east-1a", "us-east-1b", "us-east-1c"}  # unchanged


def test_region_of_zone():
    assert region_of_zone("us-east-1a") == "us-east-1"
    assert region_of_zone("us-gov-west-1b") == "us-gov-west-1"
    assert region_of_zone("us-west-2-lax-1a") == "us-west-2"
    assert region_of_zone("zone-a") == ""


# -- snapshot region ----------------------------------------------------------------------------

def test_snapshot_region_from_nodes():
    snap = build_snapshot([node_obj("a", zone="ap-northeast-2a"), node_obj("c", zone="ap-northeast-2c")])
    assert snapshot_region(snap) == ("ap-northeast-2", ("ap-northeast-2a", "ap-northeast-2c"))
    cat = catalog_from_snapshot_region(snap)
    assert cat.region == "ap-northeast-2" and cat.zones == ("ap-northeast-2a", "ap-northeast-2c")
    assert cat.get("m5.large").offering("ap-northeast-2a", "on-demand").price_estimated


def test_snapshot_region_adds_nodepool_zones():
    pool = {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"template": {"spec": {"requirements": [
                {"key": ZONE, "operator": "In", "values": ["us-west-2d"]}],
                "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}
    snap = build_snapshot([node_obj("a", zone="us-west-2a"), pool])
    assert snapshot_region(snap) == ("us-west-2", ("us-west-2a", "us-west-2d"))


def test_snapshot_region_defaults_to_us_east_1():
    assert snapshot_region(build_snapshot([])) == ("us-east-1", ("us-east-1a", "us-east-1b", "us-east-1c"))


# -- catalog files ------------------------------------------------------------------------------

CATALOG = """
instanceTypes:
- name: m5.large
  cpu: "2"
  memory: 8Gi
  pods: "29"
  arch: amd64
  os: [linux]
  labels: {karpenter.k8s.aws/instance-family: m5, team: infra}
  overhead: {cpu: 70m, memory: 1Gi}
  offerings:
  - {zone: us-east-1a, capacityType: on-demand, price: 0.096, available: true}
  - {zone: us-east-1b, capacityType: spot, price: 0.035, available: false}
- name: g7x.4xlarge
  cpu: 16
  memory: 64Gi
  arch: arm64
  os: linux
  extendedResources: {nvidia.com/gpu: "2", ephemeral-storage: 100Gi}
  offerings:
  - {zone: us-east-1b, capacityType: spot}
"""


def test_catalog_file_capacity_overhead_and_offerings(write):
    cat = load_catalog_file(write("cat.yaml", CATALOG))
    assert cat.names == ("m5.large", "g7x.4xlarge") and cat.region == "us-east-1"
    assert cat.source.endswith("cat.yaml")
    m5 = cat.get("m5.large")
    assert m5.capacity == {"cpu": 2000, "memory": 8 * Gi, "pods": 29, "ephemeral-storage": 20 * Gi}
    assert m5.allocatable == {"cpu": 1930, "memory": 7 * Gi, "pods": 29, "ephemeral-storage": 20 * Gi}
    assert m5.zones == {"us-east-1a"} and m5.capacity_types == {"on-demand"}
    assert len(m5.offerings) == 2 and m5.offering("us-east-1b", "spot") is None
    gpu = cat.get("g7x.4xlarge")
    assert gpu.allocatable == {"cpu": 16000, "memory": 64 * Gi, "pods": 110,
                               "ephemeral-storage": 100 * Gi, "nvidia.com/gpu": 2}
    assert gpu.offerings == (Offering("us-east-1b", "spot", None),)
    assert gpu.arch == "arm64" and gpu.os == ("linux",)


def test_catalog_file_derives_well_known_labels(write):
    cat = load_catalog_file(write("cat.yaml", CATALOG))
    assert dict(cat.get("g7x.4xlarge").labels) == {
        "karpenter.k8s.aws/instance-family": "g7x", "karpenter.k8s.aws/instance-size": "4xlarge",
        "karpenter.k8s.aws/instance-category": "g", "karpenter.k8s.aws/instance-generation": "7",
        "karpenter.k8s.aws/instance-cpu": "16", "karpenter.k8s.aws/instance-memory": "65536",
        "kubernetes.io/arch": "arm64", "kubernetes.io/os": "linux",
        "node.kubernetes.io/instance-type": "g7x.4xlarge",
    }
    m5 = cat.get("m5.large").labels
    assert m5["team"] == "infra" and m5["karpenter.k8s.aws/instance-memory"] == "8192"


def test_catalog_file_labels_win_over_derived_ones(write):
    cat = load_catalog_file(write("c.yaml", """
instanceTypes:
- {name: u-6tb1.56xlarge, cpu: "224", memory: 6Ti, offerings: [{zone: z1, capacityType: on-demand}],
   labels: {karpenter.k8s.aws/instance-size: custom}}
"""))
    labels = cat.get("u-6tb1.56xlarge").labels
    assert labels["karpenter.k8s.aws/instance-category"] == "u"
    assert labels["karpenter.k8s.aws/instance-generation"] == "1"
    assert labels["karpenter.k8s.aws/instance-size"] == "custom"
    assert cat.region == ""


def test_catalog_file_json_and_gzip(write):
    doc = {"instanceTypes": [{"name": "c5.xlarge", "cpu": "4", "memory": "8Gi",
                              "offerings": [{"zone": "eu-west-1a", "capacityType": "spot", "price": "0.07"}]}]}
    cat = load_catalog_file(write("c.json.gz", gzip.compress(json.dumps(doc).encode())))
    assert cat.get("c5.xlarge").offering("eu-west-1a", "spot").price == 0.07
    assert cat.region == "eu-west-1"


def _one_type(**fields) -> str:
    base = {"name": "m5.large", "cpu": "2", "memory": "8Gi",
            "offerings": [{"zone": "us-east-1a", "capacityType": "on-demand", "price": 0.096}]}
    return json.dumps({"instanceTypes": [{**base, **fields}]})


BAD_FILES = {
    "not-yaml": ("key: [unclosed", "invalid YAML"),
    "bad-json": ('{"instanceTypes": [', "invalid JSON"),
    "top-list": ("- a\n- b\n", "instanceTypes list"),
    "no-types": ("instanceTypes: {}\n", "instanceTypes list"),
    "empty-types": ("instanceTypes: []\n", "instanceTypes: empty"),
    "not-a-map": ("instanceTypes: [3]\n", "instanceTypes[0]: expected an object"),
    "missing-name": (_one_type(name=""), "instanceTypes[0].name: missing"),
    "missing-cpu": (_one_type(cpu=None), "(m5.large).cpu: missing"),
    "bad-quantity": (_one_type(memory="8x"), "(m5.large).memory: '8x' is not a quantity"),
    "negative-quantity": (_one_type(pods="-3"), "(m5.large).pods: '-3' is negative"),
    "zero-cpu": (_one_type(cpu="0"), "(m5.large).cpu: must be more than zero"),
    "bad-extended": (_one_type(extendedResources={"nvidia.com/gpu": "one"}),
                     "extendedResources.nvidia.com/gpu: 'one' is not a quantity"),
    "big-overhead": (_one_type(overhead={"cpu": "3"}), "overhead: cpu larger than the capacity"),
    "bad-labels": (_one_type(labels=["a"]), "(m5.large).labels: expected an object"),
    "bad-os": (_one_type(os={"a": 1}), "(m5.large).os: expected a list"),
    "no-offerings": (_one_type(offerings=[]), "offerings: missing"),
    "negative-price": (_one_type(offerings=[{"zone": "a", "capacityType": "spot", "price": -1}]),
                       "offerings[0].price: -1 is negative"),
    "text-price": (_one_type(offerings=[{"zone": "a", "capacityType": "spot", "price": "cheap"}]),
                   "offerings[0].price: expected a number"),
    "bad-capacity-type": (_one_type(offerings=[{"zone": "a", "capacityType": "SPOT"}]),
                          "offerings[0].capacityType: 'SPOT' is not one of on-demand, spot, reserved"),
    "missing-zone": (_one_type(offerings=[{"capacityType": "spot"}]), "offerings[0].zone: missing"),
    "bad-available": (_one_type(offerings=[{"zone": "a", "capacityType": "spot", "available": "maybe"}]),
                      "offerings[0].available: expected true or false"),
    "duplicate-offering": (_one_type(offerings=[{"zone": "a", "capacityType": "spot"}] * 2),
                           "offerings[1]: duplicate offering a spot"),
    "duplicate-type": (json.dumps({"instanceTypes": [json.loads(_one_type())["instanceTypes"][0]] * 2}),
                       "instanceTypes[1]: duplicate name 'm5.large'"),
    "empty-file": ("\n\n", "file is empty"),
    "reservation-on-spot": (_one_type(offerings=[{"zone": "a", "capacityType": "spot", "reservationId": "cr-1",
                                                  "reservationCapacity": 1}]),
                            "offerings[0]: reservationId/reservationCapacity belong to a reserved offering, not spot"),
    "reservation-no-capacity": (_one_type(offerings=[{"zone": "a", "capacityType": "reserved", "reservationId": "cr-1"}]),
                                "offerings[0].reservationCapacity: missing"),
    "reservation-bad-capacity": (_one_type(offerings=[{"zone": "a", "capacityType": "reserved", "reservationId": "cr-1",
                                                       "reservationCapacity": 1.5}]),
                                 "offerings[0].reservationCapacity: 1.5 is not a whole number of instances"),
    "reservation-twice": (_one_type(offerings=[{"zone": "a", "capacityType": "reserved", "reservationId": "cr-1",
                                                "reservationCapacity": 1}] * 2),
                          "offerings[1]: duplicate offering a reserved cr-1"),
    "bad-capacity-override": (_one_type(offerings=[{"zone": "a", "capacityType": "spot",
                                                    "capacityOverride": {"example.com/slots": "four"}}]),
                              "offerings[0].capacityOverride.example.com/slots: 'four' is not a quantity"),
    "override-twice": (_one_type(offerings=[{"zone": "a", "capacityType": "spot",
                                             "overheadOverride": {"memory": "1Gi"}}] * 2),
                       "offerings[1]: duplicate offering a spot with the same overrides"),
}


def test_an_offering_with_overrides_has_its_own_allocatable(write):
    """Karpenter's CapacityOverride / OverheadOverride: the same zone and capacity type twice, the copy adding
    a resource and reserving more memory; the type's offerings group by the allocatable they give."""
    path = write("overrides.yaml", _one_type(offerings=[
        {"zone": "a", "capacityType": "spot", "price": 0.1},
        {"zone": "a", "capacityType": "spot", "price": 0.1, "capacityOverride": {"example.com/slots": "4"},
         "overheadOverride": {"memory": "1Gi"}},
        {"zone": "b", "capacityType": "spot", "price": 0.1, "available": False,
         "capacityOverride": {"example.com/slots": "2"}}]))
    itype = load_catalog_file(path).get("m5.large")
    groups = itype.allocatable_groups
    assert [len(offers) for _, offers in groups] == [1, 1]   # the unavailable override is in no group
    base, overridden = groups[0][0], groups[1][0]
    assert base == itype.allocatable and "example.com/slots" not in base
    assert overridden["example.com/slots"] == 4
    assert overridden["memory"] == base["memory"] - 2**30


def test_reserved_offerings_name_their_reservations(write):
    """Two reservations of one type in one zone are two offerings, each with what it has left."""
    path = write("reserved.yaml", _one_type(offerings=[
        {"zone": "a", "capacityType": "on-demand", "price": 0.1},
        {"zone": "a", "capacityType": "reserved", "price": 0.0, "reservationId": "cr-1", "reservationCapacity": 2},
        {"zone": "a", "capacityType": "reserved", "price": 0.0, "reservationId": "cr-2", "reservationCapacity": 0}]))
    offers = load_catalog_file(path).get("m5.large").offerings
    assert [(o.capacity_type, o.reservation_id, o.reservation_capacity) for o in offers] == [
        ("on-demand", None, None), ("reserved", "cr-1", 2), ("reserved", "cr-2", 0)]
    assert offers[1].labels["karpenter.k8s.aws/capacity-reservation-id"] == "cr-1"


@pytest.mark.parametrize("case", sorted(BAD_FILES))
def test_bad_catalog_files_give_one_line(write, case):
    text, expected = BAD_FILES[case]
    path = write(f"{case}.yaml", text)
    with pytest.raises(InputError) as info:
        load_catalog_file(path)
    line = str(info.value)
    assert "\n" not in line
    assert line.startswith(f"{path}: ")
    assert expected in line, line


@pytest.mark.parametrize("what", ["missing", "directory"])
def test_unreadable_catalog_file(tmp_path, what):
    path = tmp_path / "cat.yaml"
    if what == "directory":
        path.mkdir()
    with pytest.raises(InputError) as info:
        load_catalog_file(path)
    assert str(info.value).startswith(f"{path}: ") and "\n" not in str(info.value)


# -- node manifests -----------------------------------------------------------------------------

def test_node_manifest_builds_a_karpenter_node(east):
    m5 = east.get("m5.large")
    manifest = node_manifest(m5, "us-east-1b", "spot", "ip-10-0-2-7.ec2.internal", nodepool="default",
                             created="2024-05-01T10:00:00Z", extra_labels={"team": "web"})
    snap = build_snapshot([manifest])
    assert snap.warnings == ()
    node = snap.nodes[0]
    assert (node.name, node.zone, node.region) == ("ip-10-0-2-7.ec2.internal", "us-east-1b", "us-east-1")
    assert (node.instance_type, node.capacity_type, node.nodepool) == ("m5.large", "spot", "default")
    assert node.origin == "karpenter" and node.ready and node.arch == "amd64"
    assert node.allocatable == m5.allocatable and node.allocatable["cpu"] == 1930
    assert node.capacity == m5.capacity
    assert node.labels["karpenter.sh/registered"] == node.labels["karpenter.sh/initialized"] == "true"
    assert node.labels["kubernetes.io/hostname"] == node.name and node.labels["team"] == "web"
    assert node.labels["karpenter.k8s.aws/instance-family"] == "m5"
    assert node.labels["beta.kubernetes.io/instance-type"] == "m5.large"
    assert re.fullmatch(r"aws:///us-east-1b/i-[0-9a-f]{17}", node.provider_id)
    assert node.instance_id == instance_id(node.name)
    assert manifest["metadata"]["creationTimestamp"] == "2024-05-01T10:00:00Z"


def test_node_manifest_without_nodepool_taints_and_region(east):
    kind = east.get("m6g.large")
    manifest = node_manifest(kind, "us-gov-west-1a", "on-demand", "n1", region="us-gov-west-1",
                             taints=[Taint("dedicated", "gpu", "NoSchedule"), {"key": "x", "effect": "NoExecute"}])
    node = build_snapshot([manifest]).nodes[0]
    assert "karpenter.sh/nodepool" not in node.labels and node.origin == "self-managed"
    assert node.capacity_type == "on-demand" and node.region == "us-gov-west-1" and node.arch == "arm64"
    assert [(t.key, t.value, t.effect) for t in node.taints] == [("dedicated", "gpu", "NoSchedule"),
                                                                ("x", "", "NoExecute")]
    assert manifest["status"]["nodeInfo"]["architecture"] == "arm64"


def test_node_manifest_is_deterministic(east):
    m5 = east.get("m5.large")
    assert node_manifest(m5, "us-east-1a", "spot", "a") == node_manifest(m5, "us-east-1a", "spot", "a")
    assert instance_id("a") != instance_id("b")


def test_file_catalog_types_make_valid_nodes(write):
    kind = load_catalog_file(write("cat.yaml", CATALOG)).get("g7x.4xlarge")
    snap = build_snapshot([node_manifest(kind, "us-east-1b", "spot", "gpu-1", nodepool="gpu")])
    assert snap.warnings == ()
    assert snap.nodes[0].allocatable["nvidia.com/gpu"] == 2


# -- generator ----------------------------------------------------------------------------------

def _generator():
    spec = importlib.util.spec_from_file_location("gen_catalog", REPO / "tools" / "gen_catalog.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["gen_catalog"] = module
    spec.loader.exec_module(module)
    return module


@pytest.mark.skipif(not SHARED.exists(), reason="shared data not present")
def test_generator_is_deterministic_and_the_committed_file_is_current(tmp_path):
    gen = _generator()
    first, second = tmp_path / "1.json.gz", tmp_path / "2.json.gz"
    assert gen.main([str(SHARED), "--out", str(first)]) == 0
    assert gen.main([str(SHARED), "--out", str(second)]) == 0
    assert first.read_bytes() == second.read_bytes() == BUNDLED.read_bytes()


def test_bundled_file_is_compact_and_names_no_host():
    data = BUNDLED.read_bytes()
    assert len(data) < 500_000
    document = json.loads(gzip.decompress(data))
    assert document["format"] == 1 and len(document["types"]) == 1363
    assert "github" not in document["source"] and "://" not in gzip.decompress(data).decode()
    assert all(None not in t["onDemandPrice"].values() for t in document["types"])


def test_generator_reports_a_bad_source(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"instanceTypes": [{"name": "x"}]}')
    assert _generator().main([str(bad), "--out", str(tmp_path / "o.gz")]) == 2
    assert str(bad) in capsys.readouterr().err
    assert not (tmp_path / "o.gz").exists()


def test_types_and_catalogs_are_hashable_values(east):
    m5 = east.get("m5.large")
    assert {m5: 1}[bundled_catalog("us-east-1", ["us-east-1a", "us-east-1b", "us-east-1c"]).get("m5.large")] == 1
    assert bundled_catalog("us-east-1", ["us-east-1a"]) is bundled_catalog("us-east-1", ["us-east-1a"])
    assert hash(east.select(["m5.large"])) == hash(east.select(["m5.large"]))


@pytest.mark.parametrize("zone,kind", [
    (None, None), (req("topology.kubernetes.io/zone", "In", "us-east-1b"), None),
    (req("topology.kubernetes.io/zone", "NotIn", "us-east-1a", "us-east-1c"), req("karpenter.sh/capacity-type", "In", "spot")),
    (None, req("karpenter.sh/capacity-type", "NotIn", "spot")), (req("topology.kubernetes.io/zone", "Exists"), None),
    (req("topology.kubernetes.io/zone", "DoesNotExist"), None),
])
def test_offered_types_are_those_with_an_offering_the_requirements_allow(east, zone, kind):
    """The table asks every offering at once; the answer is the per-offering rule's (offering_allowed),
    with unavailable offerings, one-zone types and a type with no offering left among them."""
    from dataclasses import replace as dc_replace

    from karptui.catalog import Catalog
    from karptui.sim.karpenter.instancetypes import offering_allowed
    from karptui.sim.karpenter.requirements import Req

    types = list(east.types[:40])
    types[0] = dc_replace(types[0], offerings=tuple(dc_replace(o, available=False) for o in types[0].offerings))
    types[1] = dc_replace(types[1], offerings=types[1].offerings[:1])
    types[2] = dc_replace(types[2], offerings=())
    catalog = Catalog(tuple(types), region="us-east-1")
    reqs = Reqs.from_model([r for r in (zone, kind) if r is not None])
    got = type_set(catalog).offered_mask(reqs).tolist()
    z, k = reqs.get("topology.kubernetes.io/zone"), reqs.get("karpenter.sh/capacity-type")
    assert got == [any(offering_allowed(o, z, k) for o in t.offerings) for t in types]
    assert isinstance(z, (Req, type(None))) and got[0] is False and got[2] is False
