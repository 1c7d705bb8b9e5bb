"""Well-known label and annotation keys, in one place."""

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
INSTANCE_CATEGORY = "karpenter.k8s.aws/instance-category"
INSTANCE_FAMILY = "karpenter.k8s.aws/instance-family"

# EKS
EKS_NODEGROUP = "eks.amazonaws.com/nodegroup"
EKS_CAPACITY_TYPE = "eks.amazonaws.com/capacityType"
EKS_COMPUTE_TYPE = "eks.amazonaws.com/compute-type"
EKSCTL_NODEGROUP = "alpha.eksctl.io/nodegroup-name"

# Pods
POD_TEMPLATE_HASH = "pod-template-hash"
MIRROR_POD = "kubernetes.io/config.mirror"
SELECTED_NODE = "volume.kubernetes.io/selected-node"
