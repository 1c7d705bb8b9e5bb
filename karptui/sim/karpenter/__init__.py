"""Karpenter on top of the kube-scheduler simulation: provisioning (and consolidation)."""

from .provision import Provisioned, Provisioner

__all__ = ["Provisioned", "Provisioner"]
