"""Karpenter's controller settings that change where pods go (PREFERENCE_POLICY, MIN_VALUES_POLICY,
SCHEDULER_CONFIG): read from the controller's Deployment, settable on the command line, said in
the JSON and the header, and refused as Karpenter refuses them."""

from __future__ import annotations

import json

import pytest

from karptui.cluster.redact import KEPT_ENV, REDACTED, redact
from karptui.sim.karpenter.settings import SETTINGS, parse_scheduler_config

IMAGE = "public.ecr.aws/karpenter/controller:1.15.1"
ZONE = "topology.kubernetes.io/zone"


def _controller(env=(), args=(), image=IMAGE) -> dict:
    labels = {"app.kubernetes.io/name": "karpenter"}
    container = {"name": "controller", "image": image, "env": [{"name": k, "value": v} for k, v in env]}
    if args:
        container["args"] = list(args)
    return {"apiVersion": "apps/v1", "kind": "Deployment",
            "metadata": {"name": "karpenter", "namespace": "kube-system", "labels": labels},
            "spec": {"replicas": 2, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [container]}}}}


def _nodepool() -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
            "spec": {"disruption": {"consolidateAfter": "0s"},
                     "template": {"spec": {"requirements": [], "nodeClassRef": {
                         "group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}}}}


def _pending(name: str, labels=None, spread=None, owner=None) -> dict:
    meta = {"name": name, "namespace": "default", "labels": labels or {"app": "web"},
            "creationTimestamp": "2026-01-01T00:00:00Z"}
    if owner:
        meta["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": owner,
                                    "uid": f"uid-{owner}", "controller": True}]
    spec = {"containers": [{"name": "app", "image": "app", "resources": {"requests": {"cpu": "500m"}}}]}
    if spread:
        spec["topologySpreadConstraints"] = spread
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec,
            "status": {"phase": "Pending", "conditions": [
                {"type": "PodScheduled", "status": "False", "reason": "Unschedulable"}]}}


def _replicaset(name: str, labels: dict) -> dict:
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
            "spec": {"replicas": 3, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels}, "spec": {"containers": [{"name": "a", "image": "a"}]}}}}


CATALOG = {"instanceTypes": [
    {"name": "m5.xlarge", "cpu": "4", "memory": "16Gi", "pods": "58",
     "offerings": [{"zone": z, "capacityType": "on-demand", "price": 0.192, "available": True}
                   for z in ("zone-a", "zone-b", "zone-c")]}]}

SOFT_SPREAD = [{"maxSkew": 1, "topologyKey": "kubernetes.io/hostname", "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}}}]


def _simulate(cli, write, items, *flags) -> dict:
    snapshot = write("dump.json", {"apiVersion": "v1", "kind": "List", "items": items})
    catalog = write("catalog.json", CATALOG)
    code, out, err = cli("simulate", snapshot, "--instance-types", catalog, "-o", "json", *flags)
    assert code == 0, err
    return json.loads(out)


def _spread_pods():
    return [_pending(f"web-{i}", spread=SOFT_SPREAD) for i in range(3)]


def test_preferences_are_respected_by_default(cli, write):
    doc = _simulate(cli, write, [_controller(), _nodepool(), *_spread_pods()])
    assert doc["karpenter_settings"]["preference_policy"] == "Respect"
    assert doc["karpenter_settings"]["sources"]["PREFERENCE_POLICY"] == "default"
    assert len(doc["nodeclaims"]) == 3   # a ScheduleAnyway hostname spread: one pod per new node


def test_the_controller_deployment_env_sets_a_policy(cli, write):
    doc = _simulate(cli, write, [_controller(env=[("PREFERENCE_POLICY", "Ignore")]), _nodepool(), *_spread_pods()])
    settings = doc["karpenter_settings"]
    assert settings["preference_policy"] == "Ignore"
    assert settings["sources"]["PREFERENCE_POLICY"] == "Deployment kube-system/karpenter"
    assert len(doc["nodeclaims"]) == 1   # the spread ignored: the three pods share a node


def test_a_controller_flag_wins_over_its_env_and_the_command_line_over_both(cli, write):
    items = [_controller(env=[("PREFERENCE_POLICY", "Respect")], args=["--preference-policy", "Ignore"]),
             _nodepool(), *_spread_pods()]
    assert _simulate(cli, write, items)["karpenter_settings"]["preference_policy"] == "Ignore"
    doc = _simulate(cli, write, items, "--preference-policy", "Respect")
    assert doc["karpenter_settings"]["preference_policy"] == "Respect"
    assert doc["karpenter_settings"]["sources"]["PREFERENCE_POLICY"] == "set by --preference-policy"
    assert len(doc["nodeclaims"]) == 3


def test_a_redacted_or_invalid_setting_in_the_deployment_falls_back_to_the_default_and_says_so(cli, write):
    doc = _simulate(cli, write, [_controller(env=[("PREFERENCE_POLICY", REDACTED), ("MIN_VALUES_POLICY", "Loose")]),
                                 _nodepool(), *_spread_pods()])
    settings = doc["karpenter_settings"]
    assert (settings["preference_policy"], settings["min_values_policy"]) == ("Respect", "Strict")
    assert any("PREFERENCE_POLICY" in n and "not saved" in n for n in settings["notes"])
    assert any("invalid MIN_VALUES_POLICY 'Loose'" in n for n in settings["notes"])


def _zone_default(when="DoNotSchedule") -> str:
    return json.dumps({"podTopologySpread": {"defaultConstraints": [
        {"topologyKey": ZONE, "maxSkew": 1, "whenUnsatisfiable": when}]}})


def _zones(doc) -> list[str]:
    return sorted(c["launch"]["zone"] for c in doc["nodeclaims"])


def test_default_spread_from_the_deployment_spreads_a_replicasets_pods_over_zones(cli, write):
    pods = [_pending(f"web-{i}", owner="web-rs") for i in range(3)]
    items = [_controller(env=[("SCHEDULER_CONFIG", _zone_default())]), _nodepool(),
             _replicaset("web-rs", {"app": "web"}), *pods]
    doc = _simulate(cli, write, items)
    assert doc["karpenter_settings"]["default_constraints"][0]["topologyKey"] == ZONE
    assert _zones(doc) == ["zone-a", "zone-b", "zone-c"]
    # Karpenter before v1.15 has no such setting: the pods share one node
    for version in ("v1.9.2", "v1.14.3"):
        older = _simulate(cli, write, items, "--karpenter-version", version)
        assert len(older["nodeclaims"]) == 1, version
        assert any("read from Karpenter v1.15" in n for n in older["karpenter_settings"]["notes"]), version


def test_default_spread_leaves_pods_with_constraints_of_their_own_and_pods_nothing_selects(cli, write):
    own = [_pending(f"own-{i}", owner="web-rs", spread=[{**SOFT_SPREAD[0], "topologyKey": ZONE, "maxSkew": 5}])
           for i in range(3)]
    loose = [_pending(f"loose-{i}", labels={"app": "loose"}) for i in range(3)]
    doc = _simulate(cli, write, [_controller(), _nodepool(), _replicaset("web-rs", {"app": "web"}), *own, *loose],
                    "--scheduler-config", _zone_default())
    assert len(doc["nodeclaims"]) == 1


@pytest.mark.parametrize("flag, value, message", [
    ("--preference-policy", "ignore", "invalid PREFERENCE_POLICY 'ignore' (Karpenter accepts Respect or Ignore)"),
    ("--min-values-policy", "Relaxed", "invalid MIN_VALUES_POLICY 'Relaxed'"),
    ("--scheduler-config", "{podTopologySpread: {defaultConstraints: [{topologyKey: " + ZONE
     + ", maxSkew: 1, whenUnsatisfiable: DoNotSchedule, labelSelector: {matchLabels: {a: b}}}]}}",
     "labelSelector must not be set"),
    ("--scheduler-config", "{podTopologySpread: {defaultConstraints: [{topologyKey: " + ZONE
     + ", maxSkew: 1, whenUnsatisfiable: DoNotSchedule, matchLabelKeys: [app]}]}}", "matchLabelKeys must not be set"),
    ("--scheduler-config", "{podTopologySpread: {defaultConstraints: [{topologyKey: " + ZONE
     + ", maxSkew: 1, whenUnsatisfiable: DoNotSchedule}, {topologyKey: " + ZONE
     + ", maxSkew: 2, whenUnsatisfiable: DoNotSchedule}]}}", "defaultConstraints[1] is a duplicate of [0]"),
    ("--scheduler-config", "{podTopologySpread: {defaultConstraints: [{topologyKey: " + ZONE
     + ", maxSkew: 0, whenUnsatisfiable: DoNotSchedule}]}}", "maxSkew"),
    ("--scheduler-config", "{kubeSchedulerProfiles: []}", "only podTopologySpread is known"),
    ("--scheduler-config", "{podTopologySpread: [", "not YAML or JSON"),
])
def test_a_bad_setting_is_one_line_and_exit_2(cli, write, flag, value, message):
    snapshot = write("dump.json", {"apiVersion": "v1", "kind": "List", "items": [_nodepool()]})
    for command in (("simulate", snapshot), ("open", snapshot), ("demo",)):
        code, out, err = cli(*command, flag, value)
        assert code == 2, command
        assert message in err and err.count("\n") == 1 and "Traceback" not in err


def test_the_header_and_snapshot_info_say_the_settings_that_differ_from_karpenters_defaults(cli, write):
    from karptui.sources import load_snapshot
    from karptui.views.overview import header_totals

    path = write("dump.json", {"apiVersion": "v1", "kind": "List", "items": [
        _controller(env=[("MIN_VALUES_POLICY", "BestEffort"), ("SCHEDULER_CONFIG", _zone_default())]), _nodepool()]})
    snapshot = load_snapshot(path)
    header = header_totals(snapshot, snapshot.as_of)
    assert "Karpenter v1.15.1 (controller image) MIN_VALUES_POLICY=BestEffort, default spread: zone" in header
    code, out, _ = cli("snapshot", "info", path)
    assert code == 0 and "MIN_VALUES_POLICY=BestEffort" in out
    plain = load_snapshot(write("plain.json", {"apiVersion": "v1", "kind": "List", "items": [_controller(), _nodepool()]}))
    assert "POLICY" not in header_totals(plain, plain.as_of)


def test_saving_a_snapshot_keeps_karpenters_settings_and_redacts_other_env():
    deployment = redact(_controller(env=[("PREFERENCE_POLICY", "Ignore"), ("DB_PASSWORD", "hunter2")]))
    env = deployment["spec"]["template"]["spec"]["containers"][0]["env"]
    assert env == [{"name": "PREFERENCE_POLICY", "value": "Ignore"}]   # any other variable is not saved
    assert set(KEPT_ENV) == set(SETTINGS) | {"FEATURE_GATES"}   # what is kept is exactly what the simulator reads


def _service(name: str, selector, namespace="default") -> dict:
    spec = {} if selector is None else {"selector": selector}
    return {"apiVersion": "v1", "kind": "Service", "metadata": {"name": name, "namespace": namespace}, "spec": spec}


def _selector(write, items, pod_name="web-0"):
    """The selector kube-scheduler (and Karpenter v1.15) work out for the pod, as matchLabels and
    matchExpressions dicts; None when the pod gets no default spread."""
    from karptui.sim.default_selector import default_selector
    from karptui.sources import load_snapshot

    snapshot = load_snapshot(write("dump.json", {"apiVersion": "v1", "kind": "List", "items": items}))
    pod = next(p for p in snapshot.pods if p.name == pod_name)
    found = default_selector(snapshot, pod)
    return None if found is None else found.to_dict()


# After kubernetes-sigs/karpenter#3205's defaultconstraints_test.go (main): what each source adds.
def test_a_replicasets_selector_not_the_pods_labels(write):
    found = _selector(write, [_replicaset("web-rs", {"app": "web"}),
                              _pending("web-0", labels={"app": "web", "pod-template-hash": "abc"}, owner="web-rs")])
    assert found == {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}


def test_every_matching_service_merges_and_others_add_nothing(write):
    found = _selector(write, [
        _service("web", {"app": "web"}), _service("front", {"tier": "frontend"}),
        _service("other", {"app": "other"}), _service("headless", None), _service("everything", {}),
        _service("elsewhere", {"app": "web", "zone": "x"}, namespace="other"),
        _pending("web-0", labels={"app": "web", "tier": "frontend"})])
    assert found == {"matchLabels": {"app": "web", "tier": "frontend"}}


def test_a_service_and_the_owner_combine(write):
    found = _selector(write, [_service("front", {"tier": "frontend"}), _replicaset("web-rs", {"app": "web"}),
                              _pending("web-0", labels={"app": "web", "tier": "frontend"}, owner="web-rs")])
    assert found == {"matchLabels": {"tier": "frontend"},
                     "matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}


def test_no_selector_without_a_supported_controller_or_a_matching_service(write):
    job_pod = _pending("web-0", owner="batch")
    job_pod["metadata"]["ownerReferences"][0]["kind"] = "Job"
    assert _selector(write, [job_pod]) is None
    missing_owner = _pending("web-0", owner="gone-rs")
    assert _selector(write, [missing_owner]) is None
    not_controller = _pending("web-0", owner="web-rs")
    not_controller["metadata"]["ownerReferences"][0]["controller"] = False
    assert _selector(write, [_replicaset("web-rs", {"app": "web"}), not_controller]) is None


def test_a_statefulsets_selector_not_its_pods_volatile_labels(write):
    """defaultconstraints_test.go:98 (main): a StatefulSet pod's per-pod labels (pod-name, pod-index) are left out."""
    statefulset = _replicaset("db", {"app": "db"})
    statefulset["kind"] = "StatefulSet"
    pod = _pending("db-0", labels={"app": "db", "controller-revision-hash": "db-6f8c",
                                   "statefulset.kubernetes.io/pod-name": "db-0", "apps.kubernetes.io/pod-index": "0"},
                   owner="db")
    pod["metadata"]["ownerReferences"][0]["kind"] = "StatefulSet"
    assert _selector(write, [statefulset, pod], "db-0") == {
        "matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]}


def test_a_replicasets_match_expressions_carried_verbatim(write):
    """defaultconstraints_test.go:119 (main): a NotIn selector stays a NotIn."""
    replicaset = _replicaset("web-rs", {"app": "web"})
    replicaset["spec"]["selector"] = {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["other"]}]}
    found = _selector(write, [replicaset, _pending("web-0", labels={"app": "web"}, owner="web-rs")])
    assert found == {"matchExpressions": [{"key": "app", "operator": "NotIn", "values": ["other"]}]}


def test_a_replicasets_conflicting_selector_is_anded_and_selects_nothing(write):
    """defaultconstraints_test.go:272 (main): a Service's app=web and the ReplicaSet's app=other are both kept."""
    from karptui.sim.default_selector import default_selector
    from karptui.sources import load_snapshot

    items = [_replicaset("web-rs", {"app": "other"}), _service("web", {"app": "web"}),
             _pending("web-0", labels={"app": "web"}, owner="web-rs")]
    assert _selector(write, items) == {"matchLabels": {"app": "web"},
                                       "matchExpressions": [{"key": "app", "operator": "In", "values": ["other"]}]}
    snapshot = load_snapshot(write("dump.json", {"apiVersion": "v1", "kind": "List", "items": items}))
    selector = default_selector(snapshot, next(p for p in snapshot.pods if p.name == "web-0"))
    assert not selector.matches({"app": "web"}) and not selector.matches({"app": "other"})


def test_pods_of_one_owner_with_different_labels_get_their_own_selectors(write):
    """defaultconstraints_test.go:298 (main): the answer is kept per (namespace, controller, labels)."""
    items = [_replicaset("web-rs", {"app": "web"}), _service("front", {"tier": "frontend"}),
             _pending("web-0", labels={"app": "web", "tier": "frontend"}, owner="web-rs"),
             _pending("web-1", labels={"app": "web"}, owner="web-rs")]
    assert _selector(write, items, "web-0")["matchLabels"] == {"tier": "frontend"}
    assert "matchLabels" not in _selector(write, items, "web-1")


def test_identically_labelled_pods_in_other_namespaces_do_not_share_a_selector(write):
    """defaultconstraints_test.go:314 (main): a Service selects only pods of its own namespace."""
    other = _pending("web-0", labels={"app": "web"})
    other["metadata"]["namespace"] = "other"
    other["metadata"]["name"] = "web-other"
    items = [_service("web", {"app": "web"}), _pending("web-0", labels={"app": "web"}), other]
    assert _selector(write, items, "web-0") == {"matchLabels": {"app": "web"}}
    assert _selector(write, items, "web-other") is None


def test_the_live_cluster_carries_the_settings_given_on_the_command_line(tmp_path):
    from karptui.cli.karpenter_settings import set_by
    from karptui.cluster.connect import connect
    from karptui.cluster.live import LiveCluster
    from karptui.sim.karpenter.settings import karpenter_settings
    from tests.fakeapi import FakeAPI

    given = {"PREFERENCE_POLICY": "Ignore"}
    with FakeAPI(bookmark_interval=0.2) as api:
        api.add(_controller(env=[("MIN_VALUES_POLICY", "BestEffort")]))
        live = LiveCluster(connect(api.kubeconfig(tmp_path / "kubeconfig")), read_timeout=5,
                           karpenter_settings=(given, set_by(given))).start()
        try:
            assert live.wait_synced(10)
            settings = karpenter_settings(live.snapshot())
        finally:
            live.stop()
    assert (settings.preference_policy, settings.min_values_policy) == ("Ignore", "BestEffort")
    assert dict(settings.sources)["PREFERENCE_POLICY"] == "set by --preference-policy"
    assert dict(settings.sources)["MIN_VALUES_POLICY"] == "Deployment kube-system/karpenter"


# kubernetes-sigs/karpenter pkg/operator/options/suite_test.go on main (2026-08-20), Context
# "ParseSchedulerConfiguration" (core#3205, v1.15.0): the It's line there, the document, and how many default
# constraints Karpenter reads from it (None: it refuses the document and does not start).
_C = "{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, whenUnsatisfiable: ScheduleAnyway}"
PARSE_SCHEDULER_CONFIG = [
    pytest.param("", 0, id="409 a nil configuration for an empty value"),
    pytest.param("podTopologySpread:\n  defaultConstraints:\n  - maxSkew: 1\n    topologyKey: topology.kubernetes.io/zone\n"
                 "    whenUnsatisfiable: ScheduleAnyway\n  - maxSkew: 2\n    topologyKey: kubernetes.io/hostname\n"
                 "    whenUnsatisfiable: DoNotSchedule\n", 2, id="414 a valid defaultConstraints document"),
    pytest.param('{"podTopologySpread":{"defaultConstraints":[{"maxSkew":1,"topologyKey":"topology.kubernetes.io/zone",'
                 '"whenUnsatisfiable":"ScheduleAnyway"}]}}', 1, id="434 an equivalent JSON document"),
    pytest.param("{podTopologySpread: {defaultConstraints: [" + _C + "]}, notARealField: true}", None,
                 id="439 fail fast on an unknown field"),
    pytest.param("podTopologySpread: [", None, id="450 malformed YAML"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 0, topologyKey: topology.kubernetes.io/zone, "
                 "whenUnsatisfiable: ScheduleAnyway}]}}", None, id="454 a non-positive maxSkew"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 1, whenUnsatisfiable: ScheduleAnyway}]}}", None,
                 id="464 a missing topologyKey"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
                 "whenUnsatisfiable: ScheduleAnyway, labelSelector: {matchLabels: {app: x}}}]}}", None,
                 id="473 a labelSelector"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
                 "whenUnsatisfiable: ScheduleAnyway, matchLabelKeys: [app]}]}}", None, id="488 matchLabelKeys"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: 'not a valid label name', "
                 "whenUnsatisfiable: ScheduleAnyway}]}}", None, id="501 a topologyKey that is no label name"),
    pytest.param("{podTopologySpread: {defaultConstraints: [" + _C + ", " + _C + "]}}", None,
                 id="511 a duplicated topologyKey and whenUnsatisfiable pair"),
    pytest.param("{podTopologySpread: {defaultConstraints: [" + _C + ", {maxSkew: 1, topologyKey: "
                 "topology.kubernetes.io/zone, whenUnsatisfiable: DoNotSchedule}]}}", 2,
                 id="524 the same topologyKey with a different whenUnsatisfiable"),
    pytest.param("{podTopologySpread: {defaultConstraints: [{maxSkew: 1, topologyKey: topology.kubernetes.io/zone, "
                 "whenUnsatisfiable: Sometimes}]}}", None, id="538 an invalid whenUnsatisfiable"),
]


@pytest.mark.parametrize("text, constraints", PARSE_SCHEDULER_CONFIG)
def test_scheduler_config_is_read_and_refused_as_karpenters_options_are(text, constraints):
    if constraints is None:
        with pytest.raises(ValueError, match="^scheduler config: "):
            parse_scheduler_config(text)
    else:
        assert len(parse_scheduler_config(text)) == constraints
