"""Karpenter on top of the kube-scheduler simulation: provisioning and consolidation."""

from .scheduler import Results, Scheduler

__all__ = ["Results", "Scheduler"]
