"""Pod scheduling constraints: node affinity, pod (anti-)affinity, topology spread."""

from __future__ import annotations

from dataclasses import dataclass

from .errors import ModelError
from .fields import as_int, as_list, as_map, as_str, as_str_list
from .selectors import (
    LabelSelector,
    NodeSelector,
    NodeSelectorTerm,
    parse_label_selector,
    parse_node_selector,
    parse_node_selector_term,
)

DO_NOT_SCHEDULE, SCHEDULE_ANYWAY = "DoNotSchedule", "ScheduleAnyway"
HONOR, IGNORE = "Honor", "Ignore"


@dataclass(frozen=True, slots=True)
class PreferredNodeTerm:
    weight: int
    term: NodeSelectorTerm


@dataclass(frozen=True, slots=True)
class PodAffinityTerm:
    """One (anti-)affinity term. ``namespaces`` empty and no selector = the pod's own."""

    label_selector: LabelSelector | None
    topology_key: str
    namespaces: tuple[str, ...] = ()
    namespace_selector: LabelSelector | None = None
    match_label_keys: tuple[str, ...] = ()
    mismatch_label_keys: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class WeightedPodAffinityTerm:
    weight: int
    term: PodAffinityTerm


@dataclass(frozen=True, slots=True)
class Affinity:
    node_required: NodeSelector | None = None
    node_preferred: tuple[PreferredNodeTerm, ...] = ()
    pod_required: tuple[PodAffinityTerm, ...] = ()
    pod_preferred: tuple[WeightedPodAffinityTerm, ...] = ()
    anti_required: tuple[PodAffinityTerm, ...] = ()
    anti_preferred: tuple[WeightedPodAffinityTerm, ...] = ()


NO_AFFINITY = Affinity()


@dataclass(frozen=True, slots=True)
class TopologySpreadConstraint:
    max_skew: int
    topology_key: str
    when_unsatisfiable: str
    label_selector: LabelSelector | None
    min_domains: int | None = None
    node_affinity_policy: str = HONOR
    node_taints_policy: str = IGNORE
    match_label_keys: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        out: dict = {
            "maxSkew": self.max_skew,
            "topologyKey": self.topology_key,
            "whenUnsatisfiable": self.when_unsatisfiable,
        }
        if self.label_selector is not None:
            out["labelSelector"] = self.label_selector.to_dict()
        if self.min_domains is not None:
            out["minDomains"] = self.min_domains
        if self.node_affinity_policy != HONOR:
            out["nodeAffinityPolicy"] = self.node_affinity_policy
        if self.node_taints_policy != IGNORE:
            out["nodeTaintsPolicy"] = self.node_taints_policy
        if self.match_label_keys:
            out["matchLabelKeys"] = list(self.match_label_keys)
        return out


def _pod_affinity_term(raw: object, where: str) -> PodAffinityTerm:
    data = as_map(raw, where)
    key = as_str(data.get("topologyKey"), f"{where}.topologyKey")
    if not key:
        raise ModelError(f"{where}.topologyKey: missing")
    return PodAffinityTerm(
        label_selector=parse_label_selector(data.get("labelSelector"), f"{where}.labelSelector"),
        topology_key=key,
        namespaces=as_str_list(data.get("namespaces"), f"{where}.namespaces"),
        namespace_selector=parse_label_selector(data.get("namespaceSelector"), f"{where}.namespaceSelector"),
        match_label_keys=as_str_list(data.get("matchLabelKeys"), f"{where}.matchLabelKeys"),
        mismatch_label_keys=as_str_list(data.get("mismatchLabelKeys"), f"{where}.mismatchLabelKeys"),
    )


def _weighted(raw: object, where: str) -> WeightedPodAffinityTerm:
    data = as_map(raw, where)
    return WeightedPodAffinityTerm(
        weight=as_int(data.get("weight"), f"{where}.weight", 0),
        term=_pod_affinity_term(data.get("podAffinityTerm"), f"{where}.podAffinityTerm"),
    )


def _pod_terms(section: object, where: str) -> tuple[tuple, tuple]:
    data = as_map(section, where)
    req_key, pref_key = "requiredDuringSchedulingIgnoredDuringExecution", "preferredDuringSchedulingIgnoredDuringExecution"
    required = tuple(
        _pod_affinity_term(t, f"{where}.{req_key}[{i}]") for i, t in enumerate(as_list(data.get(req_key), req_key))
    )
    preferred = tuple(
        _weighted(t, f"{where}.{pref_key}[{i}]") for i, t in enumerate(as_list(data.get(pref_key), pref_key))
    )
    return required, preferred


def _preferred_node_term(raw: object, where: str) -> PreferredNodeTerm:
    data = as_map(raw, where)
    return PreferredNodeTerm(
        weight=as_int(data.get("weight"), f"{where}.weight", 0),
        term=parse_node_selector_term(data.get("preference"), f"{where}.preference"),
    )


def parse_affinity(raw: object, where: str = "spec.affinity") -> Affinity:
    if not raw:
        return NO_AFFINITY
    data = as_map(raw, where)
    node = as_map(data.get("nodeAffinity"), f"{where}.nodeAffinity")
    pref_key = "preferredDuringSchedulingIgnoredDuringExecution"
    preferred = tuple(
        _preferred_node_term(p, f"{where}.nodeAffinity.{pref_key}[{i}]")
        for i, p in enumerate(as_list(node.get(pref_key), f"{where}.nodeAffinity.{pref_key}"))
    ) if node.get(pref_key) is not None else ()
    # a section left out is read as empty, without spelling out the field paths an error would name
    # (every DaemonSet pod pins its own node: its affinity is parsed once per pod)
    pod_req, pod_pref = (_pod_terms(data.get("podAffinity"), f"{where}.podAffinity")
                         if data.get("podAffinity") is not None else ((), ()))
    anti_req, anti_pref = (_pod_terms(data.get("podAntiAffinity"), f"{where}.podAntiAffinity")
                           if data.get("podAntiAffinity") is not None else ((), ()))
    required = node.get("requiredDuringSchedulingIgnoredDuringExecution")
    return Affinity(
        node_required=parse_node_selector(
            required, f"{where}.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution",
        ) if required is not None else None,
        node_preferred=preferred,
        pod_required=pod_req,
        pod_preferred=pod_pref,
        anti_required=anti_req,
        anti_preferred=anti_pref,
    )


def parse_spread_constraints(raw: object, where: str = "spec.topologySpreadConstraints") -> tuple:
    out = []
    for i, item in enumerate(as_list(raw, where)):
        at = f"{where}[{i}]"
        data = as_map(item, at)
        max_skew = as_int(data.get("maxSkew"), f"{at}.maxSkew")
        if max_skew is None or max_skew < 1:
            raise ModelError(f"{at}.maxSkew: must be an integer of at least 1")
        key = as_str(data.get("topologyKey"), f"{at}.topologyKey")
        if not key:
            raise ModelError(f"{at}.topologyKey: missing")
        when = as_str(data.get("whenUnsatisfiable"), f"{at}.whenUnsatisfiable", DO_NOT_SCHEDULE)
        if when not in (DO_NOT_SCHEDULE, SCHEDULE_ANYWAY):
            raise ModelError(f"{at}.whenUnsatisfiable: {when!r} is not DoNotSchedule or ScheduleAnyway")
        policies = []
        for field_name, default in (("nodeAffinityPolicy", HONOR), ("nodeTaintsPolicy", IGNORE)):
            value = as_str(data.get(field_name), f"{at}.{field_name}", default) or default
            if value not in (HONOR, IGNORE):
                raise ModelError(f"{at}.{field_name}: {value!r} is not Honor or Ignore")
            policies.append(value)
        out.append(
            TopologySpreadConstraint(
                max_skew=max_skew,
                topology_key=key,
                when_unsatisfiable=when,
                label_selector=parse_label_selector(data.get("labelSelector"), f"{at}.labelSelector"),
                min_domains=as_int(data.get("minDomains"), f"{at}.minDomains"),
                node_affinity_policy=policies[0],
                node_taints_policy=policies[1],
                match_label_keys=as_str_list(data.get("matchLabelKeys"), f"{at}.matchLabelKeys"),
            )
        )
    return tuple(out)
