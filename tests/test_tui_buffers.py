"""Capacity buffers where an operator looks: the Pending pane lists their virtual pods after the
pending pods, marked as buffer pods (not pending pods of the cluster), with where Karpenter puts
each; a node's drill-in says which of them fit on it and why emptiness leaves it alone."""

from __future__ import annotations

from karptui.model import build_snapshot
from karptui.tui.app import KarptuiApp
from karptui.tui.widgets import VirtualTable
from tests.conftest import node_obj, pod_obj
from tests.conftest import settled as after_keys

WIDE = (160, 45)
SMALL = (80, 24)
NODE = "ip-10-0-1-1.ec2.internal"


def _template(name: str, cpu: str, labels: dict) -> dict:
    return {"apiVersion": "v1", "kind": "PodTemplate", "metadata": {"name": name, "namespace": "default"},
            "template": {"metadata": {"labels": labels}, "spec": {"containers": [
                {"name": "c", "image": "pause:3", "resources": {"requests": {"cpu": cpu, "memory": "256Mi"}}}]}}}


def _buffer(name: str, template: str, replicas: int, status: dict | None = None) -> dict:
    obj = {"apiVersion": "autoscaling.x-k8s.io/v1beta1", "kind": "CapacityBuffer",
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}"},
           "spec": {"podTemplateRef": {"name": template}, "replicas": replicas}}
    if status is not None:
        obj["status"] = status
    return obj


def buffer_cluster():
    """One Karpenter node (4 cpu, no pods of its own) with room for two 1.5-cpu chunks; buffer ``warm`` (2 x 1.5 cpu) fits
    there, ``batch`` (2 x 6 cpu) needs new capacity (the NodePool's 8-cpu type), ``stale`` is not ready by its status; one user pod is
    pending. The controller runs v1.15.1 with the CapacityBuffer gate on."""
    labels = {"karpenter.sh/capacity-type": "on-demand", "karpenter.sh/nodepool": "default",
              "node.kubernetes.io/instance-type": "m5.xlarge"}
    claim = {"apiVersion": "karpenter.sh/v1", "kind": "NodeClaim",
             "metadata": {"name": "default-abcde", "labels": {"karpenter.sh/nodepool": "default"},
                          "creationTimestamp": "2024-05-01T10:00:00Z"},
             "spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}},
             "status": {"nodeName": NODE, "providerID": "aws:///us-east-1a/i-0abc",
                        "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2024-05-01T10:01:00Z"}
                                       for t in ("Launched", "Registered", "Initialized", "Ready")]}}
    labels.update({"karpenter.sh/initialized": "true", "karpenter.sh/registered": "true"})
    items = [node_obj(NODE, zone="us-east-1a", labels=labels, providerID="aws:///us-east-1a/i-0abc"), claim,
             {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": "default"},
              "spec": {"template": {"spec": {"requirements": [
                  {"key": "node.kubernetes.io/instance-type", "operator": "In", "values": ["m5.xlarge", "m5.2xlarge"]}],
                  "nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass", "name": "default"}}},
                  "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s"}}},
             {"apiVersion": "apps/v1", "kind": "Deployment",
              "metadata": {"name": "karpenter", "namespace": "kube-system",
                           "labels": {"app.kubernetes.io/name": "karpenter"}},
              "spec": {"replicas": 1, "selector": {"matchLabels": {"app.kubernetes.io/name": "karpenter"}},
                       "template": {"metadata": {"labels": {"app.kubernetes.io/name": "karpenter"}},
                                    "spec": {"containers": [{"name": "controller",
                                                             "image": "public.ecr.aws/karpenter/controller:1.15.1",
                                                             "env": [{"name": "FEATURE_GATES",
                                                                      "value": "CapacityBuffer=true"}]}]}}}},
             _template("warm", "1500m", {"app": "warm"}), _template("batch", "6", {"app": "batch"}),
             _template("stale", "1", {"app": "stale"}),
             _buffer("warm", "warm", 2), _buffer("batch", "batch", 2),
             _buffer("stale", "stale", 3, {"replicas": 3, "conditions": [
                 {"type": "ReadyForProvisioning", "status": "False", "reason": "PodTemplateNotFound"}]})]
    items += [pod_obj("web-pending", cpu="8")]
    return build_snapshot(items)


def _lines(table: VirtualTable) -> list[str]:
    return [table.render_line(y).text for y in range(table.size.height)]


async def _pending(app, pilot) -> VirtualTable:
    await app.workers.wait_for_complete()
    await pilot.pause()
    await pilot.press("2")
    await app.workers.wait_for_complete()
    await pilot.pause()
    return app.screen.query_one("#pending-table", VirtualTable)


async def test_the_pending_pane_lists_buffer_pods_apart_from_pending_pods():
    app = KarptuiApp(buffer_cluster())
    async with app.run_test(size=WIDE) as pilot:
        table = await _pending(app, pilot)
        keys = list(table.keys)
        # the one pending user pod first, then each buffer's group of virtual pods
        assert keys.index("pod:default/web-pending") < keys.index("buffer:default/batch")
        assert [k for k in keys if k.startswith("bufferpod:")] == [
            "bufferpod:default/capacity-buffer-batch-1", "bufferpod:default/capacity-buffer-batch-2",
            "bufferpod:default/capacity-buffer-warm-1", "bufferpod:default/capacity-buffer-warm-2"]
        text = "\n".join(_lines(table))
        groups = {line.partition("CapacityBuffer ")[2].split()[0]: line for line in _lines(table)
                  if line.startswith("▼ ") and "CapacityBuffer" in line}
        assert "2 buffer pods" in groups["default/warm"] and "2 fit" in groups["default/warm"]
        assert "FitsExistingCapac" in groups["default/warm"]
        assert "2 new" in groups["default/batch"] and "RequiresNewCapac" in groups["default/batch"]
        assert "not ready" in groups["default/stale"] and "no buffer pods" in groups["default/stale"]
        warm = next(line for line in _lines(table) if "capacity-buffer-warm-1" in line)
        assert "fits ip-10-0-1-1" in warm and "virtual: not a pending pod" in warm
        batch = next(line for line in _lines(table) if "capacity-buffer-batch-1" in line)
        assert " new default-" in batch
        # the header still counts only the cluster's pending pods
        assert "▼ -  1 pending" in text
        # the detail strip on a buffer pod says what it is and where it goes
        table.move_cursor(keys.index("bufferpod:default/capacity-buffer-batch-1"))
        await pilot.pause()
        strip = str(app.screen.query_one("#pending-detail").render())
        assert "a buffer pod, virtual" in strip and "not a pending pod" in strip
        assert "Karpenter launches NodeClaim" in strip and "read from its spec" in strip
        # the filter finds them by buffer
        await pilot.press("slash")
        await pilot.press(*"warm", "enter")
        await pilot.pause()
        assert [k for k in table.keys if k.startswith("bufferpod:")] == [
            "bufferpod:default/capacity-buffer-warm-1", "bufferpod:default/capacity-buffer-warm-2"]


async def test_a_nodes_drill_in_names_the_buffer_pods_it_holds():
    app = KarptuiApp(buffer_cluster())
    async with app.run_test(size=WIDE) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        app.drill("node", NODE)
        await pilot.pause()
        sections = app.screen.sections
        held = sections["buffer pods"]
        assert held[0] == "2 of CapacityBuffer default/warm: capacity-buffer-warm-1, capacity-buffer-warm-2"
        assert "the emptiness method does not take it for empty" in held[1]
        # the Disruption pane's answer, which the drill-in asks for, says the same in Karpenter's words
        await app.workers.wait_for_complete()
        await pilot.pause()
        assert any('Node "ip-10-0-1-1.ec2.internal" has buffer pods' in line
                   for line in app.screen.sections["disruption"])
        order = list(sections)
        assert order[0] == "pods" and order.index("buffer pods") < order.index("taints")


def test_the_pending_pane_with_buffers_160(snap_compare):
    assert snap_compare(KarptuiApp(buffer_cluster()), terminal_size=WIDE, run_before=after_keys("2"))


def test_the_pending_pane_with_buffers_80(snap_compare):
    assert snap_compare(KarptuiApp(buffer_cluster()), terminal_size=SMALL, run_before=after_keys("2", "G"))
