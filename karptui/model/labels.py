"""Well-known label and annotation keys, in one place, and what makes a label key valid."""

import re

HOSTNAME = "kubernetes.io/hostname"
ZONE = "topology.kubernetes.io/zone"
ZONE_BETA = "failure-domain.beta.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
REGION_BETA = "failure-domain.beta.kubernetes.io/region"
INSTANCE_TYPE = "node.kubernetes.io/instance-type"
INSTANCE_TYPE_BETA = "beta.kubernetes.io/instance-type"
ARCH = "kubernetes.io/arch"
ARCH_BETA = "beta.kubernetes.io/arch"
OS = "kubernetes.io/os"

# Karpenter (karpenter.sh/v1 and v1beta1, then v1alpha5's older names)
NODEPOOL = "karpenter.sh/nodepool"
PROVISIONER_NAME = "karpenter.sh/provisioner-name"
CAPACITY_TYPE = "karpenter.sh/capacity-type"
NODE_INITIALIZED = "karpenter.sh/initialized"
NODE_REGISTERED = "karpenter.sh/registered"
DO_NOT_DISRUPT = "karpenter.sh/do-not-disrupt"
DO_NOT_EVICT = "karpenter.sh/do-not-evict"
DO_NOT_CONSOLIDATE = "karpenter.sh/do-not-consolidate"
# annotation on a NodeClaim Karpenter launched: "true" when MIN_VALUES_POLICY=BestEffort lowered a minValues
NODECLAIM_MIN_VALUES_RELAXED = "karpenter.sh/nodeclaim-min-values-relaxed"
INSTANCE_CATEGORY = "karpenter.k8s.aws/instance-category"
INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family"

# EKS
EKS_NODEGROUP = "eks.amazonaws.com/nodegroup"
EKS_CAPACITY_TYPE = "eks.amazonaws.com/capacityType"
# the capacity reservation (EC2 ODCR or capacity block) a reserved node was launched into (AWS provider)
CAPACITY_RESERVATION_ID = "karpenter.k8s.aws/capacity-reservation-id"
EKS_COMPUTE_TYPE = "eks.amazonaws.com/compute-type"
EKSCTL_NODEGROUP = "alpha.eksctl.io/nodegroup-name"

# Pods
POD_TEMPLATE_HASH = "pod-template-hash"
MIRROR_POD = "kubernetes.io/config.mirror"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
DELETION_COST = "controller.kubernetes.io/pod-deletion-cost"  # which replica a controller deletes first
BIND_COMPLETED = "pv.kubernetes.io/bind-completed"           # a PVC the PV controller has bound
DEPLOYMENT_REVISION = "deployment.kubernetes.io/revision"    # a ReplicaSet's place in its Deployment's history

# The hashes Karpenter stamps on a NodeClaim (and on its NodePool / EC2NodeClass) for drift
NODEPOOL_HASH, NODEPOOL_HASH_VERSION = "karpenter.sh/nodepool-hash", "karpenter.sh/nodepool-hash-version"
NODECLASS_HASH = "karpenter.k8s.aws/ec2nodeclass-hash"
NODECLASS_HASH_VERSION = "karpenter.k8s.aws/ec2nodeclass-hash-version"

# Karpenter's own label sets (sigs.k8s.io/karpenter pkg/apis/v1/labels.go). The simulator,
# the catalog and the explanations all ask these, and nothing else, which keys are which.
WINDOWS_BUILD = "node.kubernetes.io/windows-build"
# Keys Karpenter knows the values of from the instance types and NodePools even when no
# requirement names them (the cloud provider adds its own instance-type keys: see
# karptui.catalog, where every label a catalog's types carry counts as one).
WELL_KNOWN = frozenset({NODEPOOL, ZONE, REGION, INSTANCE_TYPE, ARCH, OS, CAPACITY_TYPE, WINDOWS_BUILD})
# Keys no NodePool may constrain: they would interfere with provisioning.
RESTRICTED = frozenset({HOSTNAME})
RESTRICTED_DOMAINS = frozenset({"karpenter.sh"})
# Aliases Karpenter rewrites to the stable key before it compares anything.
NORMALIZED = {
    ZONE_BETA: ZONE,
    ARCH_BETA: ARCH,
    "beta.kubernetes.io/os": OS,
    INSTANCE_TYPE_BETA: INSTANCE_TYPE,
    REGION_BETA: REGION,
}
# Label keys a scheduling simulation puts on a NodeClaim so pods selecting them match.
SIMULATION_KEYS = frozenset({NODE_REGISTERED, NODE_INITIALIZED})


# Kubernetes' IsQualifiedName (apimachinery util/validation): a label key is an optional DNS subdomain
# prefix (at most 253 characters) and "/", then a name of at most 63 alphanumerics, '-', '_' or '.', starting
# and ending alphanumeric. Karpenter checks a default spread constraint's topologyKey with it.
_NAME = re.compile(r"^([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]$")
_SUBDOMAIN = re.compile(r"^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$")


def qualified_name_error(key: str) -> str:
    """Why ``key`` is not a valid label key, in a few words; "" when it is."""
    prefix, slash, name = key.rpartition("/")
    if slash and (not prefix or len(prefix) > 253 or not _SUBDOMAIN.match(prefix)):
        return "its prefix must be a DNS subdomain (lowercase alphanumerics, '-' and '.', at most 253 characters)"
    if not name or len(name) > 63 or not _NAME.match(name):
        return ("its name must be at most 63 alphanumerics, '-', '_' or '.', starting and ending with an "
                "alphanumeric")
    return ""
