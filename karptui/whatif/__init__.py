"""What-if experiments: edits as data, saved as YAML, applied to a Snapshot.

A what-if is replayable: the same file applied to the same snapshot gives
the same new snapshot, which the simulator then runs against. Imports
neither textual nor kubernetes.

File format (``apiVersion: karptui/v1``, ``kind: WhatIf``); this example
applies to the bundled ``topology-spread`` snapshot (a test keeps it so)::

    apiVersion: karptui/v1
    kind: WhatIf
    name: drop-hostname-spread          # default: the file name
    description: free text              # optional
    edits:                              # applied in order; each sees the ones before
    # Kind/namespace/name, or Kind/name when cluster-scoped (Node, NodePool, ...)
    - target: Deployment/default/host-spread
      patch:                            # strategic merge patch, kubectl's default
        spec:
          template:
            spec:
              topologySpreadConstraints:
              - $patch: replace         # replace the list instead of merging by key
              - maxSkew: 5
                topologyKey: topology.kubernetes.io/zone
                whenUnsatisfiable: DoNotSchedule
                labelSelector: {matchLabels: {app: host-spread}}
    - target: Provisioner/default
      patchType: merge                  # strategic (default) | merge (RFC 7386) | json (RFC 6902)
      patch: {spec: {limits: {resources: {cpu: "2000"}}}}
    - target: Deployment/default/inflate
      patchType: json
      patch:
      - {op: replace, path: /spec/template/spec/containers/0/resources/requests/cpu, value: 500m}
    - target: Deployment/default/inflate
      scale: 10                         # replicas (a Job: parallelism); not DaemonSets
    - target: Node/ip-192-168-11-21.ap-northeast-2.compute.internal
      cordon: true                      # false uncordons
    - target: Node/ip-192-168-12-45.ap-northeast-2.compute.internal
      remove: true                      # drain and delete; also PodDisruptionBudgets and workloads
    - addNodes:
        instanceType: m5.xlarge         # a type in the instance catalog
        zone: ap-northeast-2c
        count: 2                        # default 1
        capacityType: on-demand         # on-demand (default) | spot | reserved
        nodepool: default               # optional: its template labels and taints apply
        namePrefix: whatif              # optional: whatif-1, whatif-2 (default whatif-<type>)
        # names: [ip-10-0-1-9.ec2.internal]   optional, instead: the nodes' own names (count is their number)
        region: ap-northeast-2          # optional: default from the zone
        labels: {team: a}               # optional extra labels
        taints: [{key: dedicated, value: a, effect: NoSchedule}]   # optional

Targets name any kind the model reads (Node, Deployment, StatefulSet,
DaemonSet, Job, PodDisruptionBudget, NodePool, Provisioner, EC2NodeClass,
...); kinds are case-insensitive. Patches need the object's manifest, which a
snapshot keeps for everything but Pods, ReplicaSets, NodeClaims and Events.
Strategic merge lists: containers, initContainers, ephemeralContainers,
volumes, env, imagePullSecrets by ``name``; ports by ``containerPort``;
volumeMounts by ``mountPath``; topologySpreadConstraints by ``(topologyKey,
whenUnsatisfiable)``; every other list (tolerations, nodeSelectorTerms,
NodePool requirements, taints) is replaced whole. ``null`` deletes a key.

``create: MANIFEST`` (no target) adds an object the snapshot does not hold, from its whole
manifest: a NodePool, EC2NodeClass, PDB, a workload (whose controller makes its pods, pending)...
(``karptui check --apply`` makes these for new objects; :mod:`karptui.whatif.manifests`).

Errors are one line naming the file and the edit (numbered from 1):
``drop.yaml: edit 2: Deployment/default/nope not found in the snapshot``.
See :mod:`karptui.whatif.apply` for what each edit does to the cluster.
"""

from .apply import Applied, apply_whatif
from .edits import AddNodes, Cordon, Create, Edit, Patch, Remove, RemoveNode, Scale, Target, WhatIf
from .io import dump_whatif, load_whatif, parse_whatif, save_whatif
from .patch import PatchError, apply_patch, json_patch, merge_patch, strategic_merge_patch

__all__ = [
    "AddNodes", "Applied", "Cordon", "Create", "Edit", "Patch", "PatchError", "Remove", "RemoveNode", "Scale",
    "Target", "WhatIf", "apply_patch", "apply_whatif", "dump_whatif", "json_patch", "load_whatif",
    "merge_patch", "parse_whatif", "save_whatif", "strategic_merge_patch",
]
