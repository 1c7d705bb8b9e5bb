"""Karpenter NodePool, normalised across karpenter.sh/v1, v1beta1 and v1alpha5 Provisioner.

Later code reads one shape and never branches on the API version. Where the
versions disagree, this module holds the translation:

- consolidation: v1 ``WhenEmptyOrUnderutilized`` = v1beta1 ``WhenUnderutilized``
  = v1alpha5 ``consolidation.enabled``; v1alpha5 ``ttlSecondsAfterEmpty`` =
  ``WhenEmpty`` after that many seconds; neither = no consolidation (``None``).
- expiry: v1 ``template.spec.expireAfter``, v1beta1 ``disruption.expireAfter``,
  v1alpha5 ``ttlSecondsUntilExpired``; ``None`` means Never.
- budgets: v1/v1beta1 default to ``nodes: 10%``; v1alpha5 had none (empty).
- ``Balanced`` (v1.14) is a third consolidation policy; any other value the CRD refuses.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from .cron import parse_cron
from .errors import ModelError
from .fields import as_int, as_list, as_map, as_str, as_str_list, as_str_map, parse_duration
from .kubelet import KubeletConfig, parse_kubelet
from .meta import KubeObject, meta_fields
from .nodeclass import NodeClassRef, parse_node_class_ref
from .resources import EMPTY, Resources
from .selectors import Requirement, parse_requirements
from .taints import Taint, parse_taints

WHEN_EMPTY_OR_UNDERUTILIZED = "WhenEmptyOrUnderutilized"
WHEN_EMPTY = "WhenEmpty"
BALANCED = "Balanced"  # v1.14: consolidate a move only when its savings are worth its disruption
DEFAULT_EXPIRY = 720 * 3600.0


@dataclass(frozen=True, slots=True)
class Budget:
    """A disruption budget: at most ``nodes`` (count or percent) at once, maybe on a schedule."""

    nodes: str
    schedule: str = ""
    duration: float | None = None
    reasons: tuple[str, ...] = ()


DEFAULT_BUDGETS = (Budget("10%"),)


@dataclass(frozen=True, slots=True, kw_only=True)
class NodePool(KubeObject):
    api_version: str
    kind: str  # "NodePool" or "Provisioner"
    template_labels: Mapping[str, str]
    template_annotations: Mapping[str, str]
    requirements: tuple[Requirement, ...] = ()
    taints: tuple[Taint, ...] = ()
    startup_taints: tuple[Taint, ...] = ()
    limits: Resources = EMPTY
    weight: int = 0
    node_class_ref: NodeClassRef | None = None
    consolidation_policy: str | None = WHEN_EMPTY_OR_UNDERUTILIZED
    consolidate_after: float | None = 0.0
    # spec.disruption.consolidateAfter left out: v1.15's CRD defaults it to 0s, which consolidate_after
    # holds; before v1.15 the CRD required it (karptui.sim.karpenter.consolidate_after)
    consolidate_after_missing: bool = False
    expire_after: float | None = DEFAULT_EXPIRY
    budgets: tuple[Budget, ...] = DEFAULT_BUDGETS
    kubelet: KubeletConfig | None = None
    ready: bool = True                  # status Ready is not False/Unknown (absent status: assumed ready)
    replicas: int | None = None         # a static NodePool (spec.replicas): no dynamic provisioning
    # fields Karpenter's API server would refuse, kept so the pool is still shown and simulated with
    # the field's default (a NodePool copied from the docs with its "A | B" placeholder was dropped whole)
    refused: tuple[tuple[str, str], ...] = ()   # (what is wrong, what karptui simulates instead)

    @property
    def ref(self) -> str:
        return f"{self.kind}/{self.name}"


# Karpenter's CRD schema for budgets[].nodes: a count, or a percentage up to 100.
_BUDGET_NODES = re.compile(r"(100|[0-9]{1,2})%|[0-9]+")


def _budget_nodes(value: object, where: str) -> str:
    text = as_str(value, where, "10%")
    if _BUDGET_NODES.fullmatch(text) is None:
        raise ModelError(f"{where}: {text!r} is not a count or a percentage up to 100% (the API refuses it)")
    return text


def _schedule(data: Mapping, where: str) -> str:
    """The budget's cron schedule, checked as the API does: it comes with a duration or not at
    all, and Karpenter's cron parser must read it (a budget it cannot read would allow nothing)."""
    text = as_str(data.get("schedule"), f"{where}.schedule")
    if bool(text) != (data.get("duration") is not None):
        raise ModelError(f"{where}: 'schedule' must be set with 'duration' (the API refuses one without the other)")
    if text:
        try:
            parse_cron(text)
        except ModelError as exc:
            raise ModelError(f"{where}.schedule: {exc}") from None
    return text


def _budgets(raw: object, where: str) -> tuple[Budget, ...]:
    if raw is None:
        return DEFAULT_BUDGETS
    out = []
    for i, item in enumerate(as_list(raw, where)):
        data = as_map(item, f"{where}[{i}]")
        out.append(
            Budget(
                nodes=_budget_nodes(data.get("nodes"), f"{where}[{i}].nodes"),
                schedule=_schedule(data, f"{where}[{i}]"),
                duration=parse_duration(data.get("duration"), f"{where}[{i}].duration"),
                reasons=as_str_list(data.get("reasons"), f"{where}[{i}].reasons"),
            )
        )
    return tuple(out)


def _ready(obj: Mapping) -> bool:
    """Karpenter only provisions from a NodePool whose Ready condition is True; one without
    conditions (an old Karpenter, or a hand-written file) is taken as ready."""
    status = as_map(obj.get("status"), "status")
    for i, raw in enumerate(as_list(status.get("conditions"), "status.conditions")):
        cond = as_map(raw, f"status.conditions[{i}]")
        if cond.get("type") == "Ready":
            return as_str(cond.get("status"), f"status.conditions[{i}].status") == "True"
    return True


def _template_parts(template: Mapping) -> dict:
    meta = as_map(template.get("metadata"), "spec.template.metadata")
    spec = as_map(template.get("spec"), "spec.template.spec")
    return {
        "template_labels": as_str_map(meta.get("labels"), "spec.template.metadata.labels"),
        "template_annotations": as_str_map(meta.get("annotations"), "spec.template.metadata.annotations"),
        "requirements": parse_requirements(spec.get("requirements"), "spec.template.spec.requirements"),
        "taints": parse_taints(spec.get("taints"), "spec.template.spec.taints"),
        "startup_taints": parse_taints(spec.get("startupTaints"), "spec.template.spec.startupTaints"),
        "node_class_ref": parse_node_class_ref(spec.get("nodeClassRef"), "spec.template.spec.nodeClassRef"),
    }


def _build_v1(obj: Mapping, api_version: str) -> NodePool:
    spec = as_map(obj.get("spec"), "spec")
    template = as_map(spec.get("template"), "spec.template")
    tspec = as_map(template.get("spec"), "spec.template.spec")
    disruption = as_map(spec.get("disruption"), "spec.disruption")
    beta = api_version.endswith("v1beta1")
    refused: list[tuple[str, str]] = []
    policy = as_str(disruption.get("consolidationPolicy"), "spec.disruption.consolidationPolicy")
    if policy in ("", "WhenUnderutilized"):
        policy = WHEN_EMPTY_OR_UNDERUTILIZED
    if policy not in (WHEN_EMPTY_OR_UNDERUTILIZED, WHEN_EMPTY, BALANCED):
        refused.append((f"spec.disruption.consolidationPolicy: {policy!r} is not WhenEmpty, WhenEmptyOrUnderutilized "
                        "or Balanced", f"{WHEN_EMPTY_OR_UNDERUTILIZED}, the default"))
        policy = WHEN_EMPTY_OR_UNDERUTILIZED
    after = disruption.get("consolidateAfter", "0s")
    try:
        consolidate_after = parse_duration(after, "spec.disruption.consolidateAfter")
    except ModelError as exc:
        if not isinstance(after, str):   # a number past any duration is no placeholder: the pool goes
            raise
        refused.append((str(exc), "0s, the default"))
        consolidate_after = 0.0
    expire = (disruption if beta else tspec).get("expireAfter", "720h")
    limits = Resources.parse(spec.get("limits"), "spec.limits")
    replicas = as_int(spec.get("replicas"), "spec.replicas")
    if replicas is not None:  # the CRD's rules for a static NodePool (v1.14)
        if set(limits) - {"nodes"}:
            raise ModelError("spec.limits: only 'limits.nodes' is supported on static NodePools")
        if spec.get("weight") is not None:
            raise ModelError("spec.weight: 'weight' is not supported on static NodePools")
    return NodePool(
        **meta_fields(obj),
        api_version=api_version,
        kind="NodePool",
        **_template_parts(template),
        limits=limits,
        weight=as_int(spec.get("weight"), "spec.weight", 0),
        consolidation_policy=policy,
        consolidate_after=consolidate_after,
        consolidate_after_missing=not beta and "consolidateAfter" not in disruption,
        expire_after=parse_duration(expire, "expireAfter"),
        budgets=_budgets(disruption.get("budgets"), "spec.disruption.budgets"),
        kubelet=parse_kubelet(tspec.get("kubelet"), "spec.template.spec.kubelet"),
        ready=_ready(obj),
        replicas=replicas,
        refused=tuple(refused),
    )


def _build_provisioner(obj: Mapping, api_version: str) -> NodePool:
    spec = as_map(obj.get("spec"), "spec")
    consolidation = as_map(spec.get("consolidation"), "spec.consolidation")
    empty_ttl = as_int(spec.get("ttlSecondsAfterEmpty"), "spec.ttlSecondsAfterEmpty")
    expiry = as_int(spec.get("ttlSecondsUntilExpired"), "spec.ttlSecondsUntilExpired")
    if consolidation.get("enabled") is True:
        policy, after = WHEN_EMPTY_OR_UNDERUTILIZED, 0.0
    elif empty_ttl is not None:
        policy, after = WHEN_EMPTY, float(empty_ttl)
    else:
        policy, after = None, None
    return NodePool(
        **meta_fields(obj),
        api_version=api_version,
        kind="Provisioner",
        template_labels=as_str_map(spec.get("labels"), "spec.labels"),
        template_annotations=as_str_map(spec.get("annotations"), "spec.annotations"),
        requirements=parse_requirements(spec.get("requirements"), "spec.requirements"),
        taints=parse_taints(spec.get("taints"), "spec.taints"),
        startup_taints=parse_taints(spec.get("startupTaints"), "spec.startupTaints"),
        limits=Resources.parse(as_map(spec.get("limits"), "spec.limits").get("resources"), "spec.limits.resources"),
        weight=as_int(spec.get("weight"), "spec.weight", 0),
        node_class_ref=parse_node_class_ref(spec.get("providerRef"), "spec.providerRef", "AWSNodeTemplate"),
        consolidation_policy=policy,
        consolidate_after=after,
        expire_after=float(expiry) if expiry is not None else None,
        budgets=(),
        kubelet=parse_kubelet(spec.get("kubeletConfiguration"), "spec.kubeletConfiguration"),
    )


def build_nodepool(obj: Mapping, api_version: str, kind: str) -> NodePool:
    if kind == "Provisioner":
        return _build_provisioner(obj, api_version)
    return _build_v1(obj, api_version)
