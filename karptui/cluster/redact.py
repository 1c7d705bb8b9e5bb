"""What ``karptui snapshot save`` keeps: the fields karptui reads, one allow-list per kind.

A snapshot is meant to be shared (attached to a ticket, sent to a colleague). A list of
fields to take out always misses the next place a secret hides (a tool's copy of the
object under a new annotation, a CSI driver's volume attributes, a probe's URL with a
token in its query string...), so the file keeps only what the model, the simulator and
the panes read, kind by kind (:data:`KINDS`), and drops everything else, unknown fields
included. Secrets and ConfigMaps are never read at all.

Every kind keeps ``apiVersion``, ``kind`` and the metadata in :data:`META`: name,
namespace, uid, labels, owner references, creation and deletion times, and of the
annotations only those karptui reads (:data:`READ_ANNOTATIONS`, each named where its
meaning lives). ``managedFields`` and every copy of the object a tool keeps in an
annotation go with the rest.

Within a kept object, a few fields karptui reads only to know they are there are
*marked*: the key stays and its value becomes :data:`REDACTED`:

* the ``command`` and ``args`` of containers (one marker for the list): Karpenter's
  controller flags live there, and the settings reader says a setting given as a flag
  was not saved rather than silently using the default;
* an EC2NodeClass's (or AWSNodeTemplate's, or an old Provisioner's inline provider's)
  ``userData`` and the values of its ``tags``: the model reads the tags, and the drift
  preview compares both before and after an edit (a what-if that sets them still shows).

Kept whole, because karptui reads all of them and they are written in Karpenter's or
kube-scheduler's terms: the specs of NodePools, Provisioners, NodeClaims, Machines and
NodeOverlays (the drift preview hashes a NodePool's whole template as Karpenter does),
pods' scheduling fields (resources, affinity, tolerations, spread constraints, node
selector), Events (their messages are the scheduler's and Karpenter's words, which the
Pending and Activity panes show) and Karpenter's log lines (kept in the snapshot's
metadata, outside this module). Of a container's environment only the values of
:data:`KEPT_ENV` are kept: Karpenter's scheduling settings, which change where pods go.
"""

from __future__ import annotations

from collections.abc import Mapping

from ..model import labels as L
from ..model.classes import DEFAULT_CLASS_ANNOTATIONS
from ..model.csi import MIGRATED_PLUGINS, PV_SOURCES

REDACTED = "<redacted by karptui>"
#: Karpenter's scheduling settings (karptui.sim.karpenter.settings.SETTINGS) and its feature gates: kept.
KEPT_ENV = ("PREFERENCE_POLICY", "MIN_VALUES_POLICY", "SCHEDULER_CONFIG", "LEGACY_NODE_REPAIR", "AWS_FEATURE_GATES",
            "FEATURE_GATES")

#: The annotations something in karptui reads; any other annotation is not saved.
READ_ANNOTATIONS = frozenset({
    L.MIRROR_POD, L.DO_NOT_DISRUPT, L.DO_NOT_EVICT, L.DO_NOT_CONSOLIDATE, L.NODECLAIM_MIN_VALUES_RELAXED,
    L.SELECTED_NODE, L.DELETION_COST, L.BIND_COMPLETED, L.DEPLOYMENT_REVISION,
    L.NODEPOOL_HASH, L.NODEPOOL_HASH_VERSION, L.NODECLASS_HASH, L.NODECLASS_HASH_VERSION,
    MIGRATED_PLUGINS, *DEFAULT_CLASS_ANNOTATIONS,
})

# ---- the schema language: what to keep of a value ------------------------------------------------
# KEEP: the value as it is.  A dict: only the keys it names, each by its own schema.  Each(s): a list,
# each item by s.  Mark: the key stays, the value becomes REDACTED.  MarkValues: a map's keys stay,
# every value becomes REDACTED.  A function: any other rule, given the value, returning what to keep
# (or _DROP).
KEEP = object()
_DROP = object()


class Each:
    def __init__(self, schema):
        self.schema = schema


class _Mark:
    pass


MARK = _Mark()


class _MarkValues:
    pass


MARK_VALUES = _MarkValues()


def _apply(value, schema):
    if schema is KEEP:
        return value
    if schema is MARK:
        return [REDACTED] if isinstance(value, list) and value else REDACTED
    if schema is MARK_VALUES:
        return {str(k): REDACTED for k in value} if isinstance(value, Mapping) else REDACTED
    if isinstance(schema, Each):
        if not isinstance(value, list):
            return _DROP
        items = (_apply(v, schema.schema) for v in value)
        return [v for v in items if v is not _DROP]
    if isinstance(schema, dict):
        if not isinstance(value, Mapping):
            return _DROP
        out = {}
        for key, sub in schema.items():
            if key in value:
                kept = _apply(value[key], sub)
                if kept is not _DROP:
                    out[key] = kept
        return out
    if callable(schema):
        return schema(value)
    raise TypeError(f"not a schema: {schema!r}")


def _annotations(value):
    if not isinstance(value, Mapping):
        return _DROP
    return {k: v for k, v in value.items() if k in READ_ANNOTATIONS}


def _env(value):
    """Only Karpenter's settings, and only as literal values (a Secret reference is not a setting)."""
    if not isinstance(value, list):
        return _DROP
    return [{"name": e["name"], "value": e["value"]} for e in value
            if isinstance(e, Mapping) and e.get("name") in KEPT_ENV and isinstance(e.get("value"), str)]


META = {"name": KEEP, "namespace": KEEP, "uid": KEEP, "labels": KEEP, "ownerReferences": KEEP,
        "creationTimestamp": KEEP, "deletionTimestamp": KEEP, "annotations": _annotations}
TEMPLATE_META = {"name": KEEP, "labels": KEEP, "annotations": _annotations}
CONDITIONS = Each({"type": KEEP, "status": KEEP, "reason": KEEP, "message": KEEP, "lastTransitionTime": KEEP})

CONTAINER = {
    "name": KEEP, "image": KEEP, "resources": KEEP, "restartPolicy": KEEP,
    "ports": Each({"name": KEEP, "containerPort": KEEP, "hostPort": KEEP, "protocol": KEEP, "hostIP": KEEP}),
    "env": _env, "command": MARK, "args": MARK,
}
PVC_SPEC = {"accessModes": KEEP, "resources": {"requests": KEEP, "limits": KEEP}, "storageClassName": KEEP,
            "volumeName": KEEP, "volumeMode": KEEP, "selector": KEEP}
POD_SPEC = {
    "nodeName": KEEP, "nodeSelector": KEEP, "affinity": KEEP, "tolerations": KEEP,
    "topologySpreadConstraints": KEEP, "priority": KEEP, "priorityClassName": KEEP, "preemptionPolicy": KEEP,
    "schedulerName": KEEP, "overhead": KEEP, "resources": KEEP, "resourceClaims": Each({"name": KEEP}),
    "containers": Each(CONTAINER), "initContainers": Each(CONTAINER),
    "volumes": Each({"name": KEEP, "persistentVolumeClaim": {"claimName": KEEP, "readOnly": KEEP},
                     "ephemeral": {"volumeClaimTemplate": {"metadata": {"labels": KEEP}, "spec": PVC_SPEC}}}),
}
POD_TEMPLATE = {"metadata": TEMPLATE_META, "spec": POD_SPEC}
_COUNTS = ("replicas", "readyReplicas", "availableReplicas", "updatedReplicas", "currentReplicas",
           "numberReady", "numberAvailable", "desiredNumberScheduled", "currentNumberScheduled",
           "updatedNumberScheduled", "active", "succeeded", "failed", "observedGeneration")
WORKLOAD = {
    "spec": {"replicas": KEEP, "parallelism": KEEP, "completions": KEEP, "selector": KEEP, "template": POD_TEMPLATE,
             "strategy": KEEP, "updateStrategy": KEEP, "minReadySeconds": KEEP, "podManagementPolicy": KEEP,
             "revisionHistoryLimit": KEEP, "ordinals": KEEP, "persistentVolumeClaimRetentionPolicy": KEEP,
             "serviceName": KEEP, "backoffLimit": KEEP, "suspend": KEEP, "completionMode": KEEP,
             "volumeClaimTemplates": Each({"metadata": TEMPLATE_META, "spec": PVC_SPEC})},
    "status": {k: KEEP for k in _COUNTS},
}
# An EC2NodeClass as AWS's provider defines it (v1, v1beta1) and v1alpha1's AWSNodeTemplate, with
# the fields a provisioning or drift answer reads; userData and the tags' values are marked.
NODE_CLASS_SPEC = {
    **{k: KEEP for k in ("amiFamily", "amiSelectorTerms", "subnetSelectorTerms", "securityGroupSelectorTerms",
                         "capacityReservationSelectorTerms", "role", "instanceProfile", "kubelet",
                         "blockDeviceMappings", "instanceStorePolicy", "detailedMonitoring",
                         "associatePublicIPAddress", "metadataOptions", "ipPrefixCount", "context",
                         "subnetSelector", "securityGroupSelector", "amiSelector", "launchTemplate")},
    "userData": MARK, "tags": MARK_VALUES,
}
KARPENTER_STATUS = {"conditions": CONDITIONS, "resources": KEEP, "nodes": KEEP, "allocatable": KEEP,
                    "capacity": KEEP, "nodeName": KEEP, "providerID": KEEP, "imageID": KEEP,
                    "lastPodEventTime": KEEP}

#: Kind -> what of it is saved (besides apiVersion, kind and :data:`META`).
KINDS: dict[str, dict] = {
    "Node": {"spec": {"taints": KEEP, "unschedulable": KEEP, "providerID": KEEP},
             "status": {"allocatable": KEEP, "capacity": KEEP, "conditions": CONDITIONS,
                        "nodeInfo": {k: KEEP for k in ("kubeletVersion", "architecture", "operatingSystem",
                                                       "containerRuntimeVersion", "kernelVersion", "osImage")}}},
    "Pod": {"spec": POD_SPEC,
            "status": {"phase": KEEP, "conditions": CONDITIONS, "nominatedNodeName": KEEP, "startTime": KEEP,
                       "containerStatuses": Each({"name": KEEP, "restartCount": KEEP, "ready": KEEP})}},
    # the scheduler's and Karpenter's messages: inputs the Pending and Activity panes need
    "Event": {k: KEEP for k in ("involvedObject", "regarding", "reason", "message", "note", "type", "action",
                                "source", "deprecatedSource", "reportingController", "reportingComponent",
                                "reportingInstance", "firstTimestamp", "lastTimestamp", "eventTime", "count",
                                "series", "deprecatedFirstTimestamp", "deprecatedLastTimestamp",
                                "deprecatedCount")},
    "Namespace": {"status": {"phase": KEEP}},
    "PersistentVolume": {
        "spec": {"capacity": KEEP, "storageClassName": KEEP, "nodeAffinity": KEEP, "accessModes": KEEP,
                 "claimRef": {k: KEEP for k in ("kind", "namespace", "name", "uid")}, "volumeMode": KEEP,
                 "persistentVolumeReclaimPolicy": KEEP, "csi": {"driver": KEEP, "volumeHandle": KEEP},
                 "local": {"path": KEEP}, "hostPath": {"path": KEEP, "type": KEEP},
                 **{source: {id_field: KEEP} for source, (_, id_field) in PV_SOURCES.items()}},
        "status": {"phase": KEEP}},
    "PersistentVolumeClaim": {"spec": PVC_SPEC, "status": {"phase": KEEP, "capacity": KEEP, "accessModes": KEEP}},
    "Deployment": WORKLOAD, "ReplicaSet": WORKLOAD, "StatefulSet": WORKLOAD, "DaemonSet": WORKLOAD, "Job": WORKLOAD,
    "PodDisruptionBudget": {
        "spec": {"minAvailable": KEEP, "maxUnavailable": KEEP, "selector": KEEP, "unhealthyPodEvictionPolicy": KEEP},
        "status": {k: KEEP for k in ("currentHealthy", "desiredHealthy", "disruptionsAllowed", "expectedPods")}},
    "StorageClass": {k: KEEP for k in ("provisioner", "volumeBindingMode", "allowedTopologies", "reclaimPolicy",
                                       "allowVolumeExpansion")},
    "CSINode": {"spec": {"drivers": Each({"name": KEEP, "allocatable": KEEP, "topologyKeys": KEEP})}},
    "PriorityClass": {"value": KEEP, "globalDefault": KEEP, "preemptionPolicy": KEEP},
    # Karpenter's own kinds: their specs are Karpenter's API, read whole (drift hashes the template)
    "NodePool": {"spec": KEEP, "status": KARPENTER_STATUS},
    "NodeClaim": {"spec": KEEP, "status": KARPENTER_STATUS},
    "Machine": {"spec": KEEP, "status": KARPENTER_STATUS},
    "NodeOverlay": {"spec": KEEP, "status": KARPENTER_STATUS},
    # what a CapacityBuffer asks Karpenter to keep room for (its spec is the autoscaling API, read
    # whole), and the PodTemplates buffers name: a template's pod spec as a workload's is kept
    "CapacityBuffer": {"spec": KEEP, "status": {"conditions": CONDITIONS, "replicas": KEEP}},
    "PodTemplate": {"template": POD_TEMPLATE},
    # v1alpha5's Provisioner could hold its AWS settings inline (spec.provider): a node class
    "Provisioner": {"spec": lambda spec: _provisioner_spec(spec), "status": KARPENTER_STATUS},
    "EC2NodeClass": {"spec": NODE_CLASS_SPEC,
                     "status": {"conditions": CONDITIONS, "subnets": Each({"id": KEEP, "zone": KEEP, "zoneID": KEEP})}},
    "AWSNodeTemplate": {"spec": NODE_CLASS_SPEC,
                        "status": {"conditions": CONDITIONS, "subnets": Each({"id": KEEP, "zone": KEEP})}},
    # Karpenter's NodePool CRD, of which only what bounds the release (karptui.model.crd): the group,
    # kind, each version's name and whether it is served or stored, and of the schema only what
    # spec.disruption requires and which consolidation policies it accepts
    "CustomResourceDefinition": {"spec": {
        "group": KEEP, "names": {"kind": KEEP, "plural": KEEP},
        "versions": Each({"name": KEEP, "served": KEEP, "storage": KEEP, "schema": {"openAPIV3Schema": {
            "properties": {"spec": {"properties": {"disruption": {
                "required": KEEP, "properties": {"consolidationPolicy": {"enum": KEEP}}}}}}}}})}},
}


def _provisioner_spec(spec):
    if not isinstance(spec, Mapping):
        return _DROP
    out = {k: v for k, v in spec.items() if k != "provider"}
    if isinstance(spec.get("provider"), Mapping):
        out["provider"] = _apply(spec["provider"], NODE_CLASS_SPEC)
    return out


def redact(obj: dict) -> dict:
    """What of ``obj`` a snapshot keeps (a new dict): its kind's allow-list, or, for a kind karptui
    does not read, only its identity."""
    schema: Mapping[str, object] = {"apiVersion": KEEP, "kind": KEEP, "metadata": META, **KINDS.get(obj.get("kind"), {})}
    kept = _apply(obj, dict(schema))
    return kept if kept is not _DROP else {}

