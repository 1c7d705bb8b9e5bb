"""Karpenter's controller settings that change where pods go: one owner for what they are.

Karpenter reads its settings from the controller's environment, each overridable by a flag
(``pkg/operator/options/options.go``). Four of them change what the simulation answers:

* ``PREFERENCE_POLICY`` (``--preference-policy``): ``Respect`` (the default) or ``Ignore``. Under
  ``Ignore`` Karpenter provisions as if pods had no preferred node affinity, no preferred pod
  (anti-)affinity and no ``ScheduleAnyway`` spread constraints; kube-scheduler still weighs them
  when it binds, so the answer can differ from what it would do on its own.
* ``MIN_VALUES_POLICY`` (``--min-values-policy``): ``Strict`` (the default) or ``BestEffort``.
  Under ``BestEffort`` a NodePool whose ``minValues`` the instance types left cannot meet still
  launches, with ``minValues`` lowered to what is left, instead of refusing the pod.
* ``SCHEDULER_CONFIG`` (``--scheduler-config``, from v1.15): a YAML/JSON document whose
  ``podTopologySpread.defaultConstraints`` mirror kube-scheduler's cluster-wide default spread,
  so Karpenter spreads new capacity the way kube-scheduler will spread the pods.
* ``LEGACY_NODE_REPAIR`` (``--legacy-node-repair``, from v1.15): ``false`` (the default) or ``true``.
  Karpenter v1.15 repairs unhealthy nodes as a voluntary disruption method (budgeted, replacement
  first); ``true`` keeps v1.14's forceful repair controller instead (:mod:`.repair` says both).
* ``AWS_FEATURE_GATES`` (``--aws-feature-gates``, the AWS provider's, from v1.15): ``NodeClassCEL``
  (default false) lets an EC2NodeClass's kubelet ``maxPods``, ``kubeReserved`` and ``systemReserved``
  be CEL expressions evaluated per instance type (.nodeclass_cel).

The values come from, in order: what the user set (``--preference-policy``, ... on the command line,
kept on the snapshot), the Karpenter controller's Deployment in the snapshot (its container's
``env`` and ``args``; a flag wins over the variable, as in Karpenter), else Karpenter's defaults.
:func:`karpenter_settings` is the only reader; every rule that depends on a setting asks it.
"""

from __future__ import annotations

import weakref
from collections.abc import Mapping
from dataclasses import dataclass

from ...model.affinity import TopologySpreadConstraint, parse_spread_constraints
from ...model import labels as L
from ...model.errors import ModelError
from .featuregates import DEFAULT_GATES, FeatureGates, parse_feature_gates
from .versions import V1_15, image_version, karpenter_version

from .setting_names import (AWS_FEATURE_GATES, BEST_EFFORT, BOOLEAN, FALSE, IGNORE,  # noqa: F401 (re-exported)
                            LEGACY_NODE_REPAIR, MIN_VALUES_POLICY, PREFERENCE_POLICY, RESPECT, SCHEDULER_CONFIG,
                            SETTINGS, STRICT, TRUE)

AWS_GATE_NAMES = ("NodeClassCEL",)   # aws pkg/operator/options/options.go on main (v1.15); unknown names refused
DEFAULTS = {PREFERENCE_POLICY: RESPECT, MIN_VALUES_POLICY: STRICT, SCHEDULER_CONFIG: "", LEGACY_NODE_REPAIR: FALSE,
            AWS_FEATURE_GATES: "NodeClassCEL=false"}
# from which release Karpenter reads a setting (the others: every line modelled)
SINCE = {SCHEDULER_CONFIG: V1_15, LEGACY_NODE_REPAIR: V1_15}
_REDACTED = "<redacted by karptui>"   # karptui.cluster.redact's marker: the value was not saved


@dataclass(frozen=True, slots=True)
class KarpenterSettings:
    """The settings a simulation follows, and where each came from (``sources``: setting ->
    ``default``, ``Deployment ns/name``, or the flag that set it)."""

    preference_policy: str = RESPECT
    min_values_policy: str = STRICT
    scheduler_config: str = ""
    default_constraints: tuple[TopologySpreadConstraint, ...] = ()
    legacy_node_repair: bool = False   # as the version simulated reads it (False before v1.15)
    sources: tuple[tuple[str, str], ...] = ()
    notes: tuple[str, ...] = ()
    aws_feature_gates: str = DEFAULTS[AWS_FEATURE_GATES]

    @property
    def node_class_cel(self) -> bool:
        """The AWS provider's ``NodeClassCEL`` gate."""
        return parse_aws_feature_gates(self.aws_feature_gates).get("NodeClassCEL", False)

    @property
    def respect_preferences(self) -> bool:
        return self.preference_policy == RESPECT

    @property
    def relax_min_values(self) -> bool:
        return self.min_values_policy == BEST_EFFORT

    def changed(self) -> dict[str, str]:
        """The settings that differ from Karpenter's defaults, by Karpenter's variable names."""
        values = {PREFERENCE_POLICY: self.preference_policy, MIN_VALUES_POLICY: self.min_values_policy,
                  SCHEDULER_CONFIG: self.scheduler_config,
                  LEGACY_NODE_REPAIR: TRUE if self.legacy_node_repair else FALSE,
                  AWS_FEATURE_GATES: self.aws_feature_gates}
        return {k: v for k, v in values.items() if v != DEFAULTS[k]}

    def to_dict(self) -> dict:
        return {"preference_policy": self.preference_policy, "min_values_policy": self.min_values_policy,
                "default_constraints": [c.to_dict() for c in self.default_constraints],
                "legacy_node_repair": self.legacy_node_repair,
                "node_class_cel": self.node_class_cel,
                "sources": dict(self.sources), "notes": list(self.notes)}


def check_value(setting: str, value: str) -> str:
    """``value`` checked as Karpenter checks it at start-up; ``ValueError`` with one line otherwise."""
    flag, allowed = SETTINGS[setting]
    if setting == AWS_FEATURE_GATES:
        parse_aws_feature_gates(value)
        return value
    if allowed is None:
        parse_scheduler_config(value)
        return value
    if setting in BOOLEAN:  # strconv.ParseBool's spellings, as Go's flag package reads a bool
        parsed = _GO_BOOLS.get(value.strip())
        if parsed is None:
            raise ValueError(f"invalid {setting} {value!r} (Karpenter accepts true or false)")
        return TRUE if parsed else FALSE
    if value not in allowed:
        raise ValueError(f"invalid {setting} {value!r} (Karpenter accepts {' or '.join(allowed)})")
    return value


def parse_aws_feature_gates(text: str) -> dict[str, bool]:
    """``NodeClassCEL=true`` as the AWS provider's flag reads it; ``ValueError`` with one line otherwise."""
    gates: dict[str, bool] = {}
    for item in filter(None, (part.strip() for part in (text or "").split(","))):
        name, sep, value = item.partition("=")
        name, value = name.strip(), value.strip()
        if name not in AWS_GATE_NAMES:
            raise ValueError(f"unknown AWS feature gate {name!r} (known: {', '.join(AWS_GATE_NAMES)})")
        if not sep or value.lower() not in ("true", "false", "1", "0", "t", "f"):
            raise ValueError(f"AWS feature gate {name} must be true or false, got {value!r}")
        gates[name] = value.lower() in ("true", "1", "t")
    return gates


def parse_scheduler_config(text: str) -> tuple[TopologySpreadConstraint, ...]:
    """``podTopologySpread.defaultConstraints`` of a ``--scheduler-config`` document, refused as
    Karpenter refuses it: unknown fields, a ``labelSelector`` (the selector is worked out for each
    pod) or ``matchLabelKeys`` (it has no effect on default constraints), a topologyKey that is no
    valid label name, a repeated (topologyKey, whenUnsatisfiable) pair. ``ValueError`` with one line."""
    if not text.strip():
        return ()
    from ...errors import InputError
    from ...sources import yaml_load  # the one YAML entry point (depth and aliases checked); loaded when used

    try:
        doc = yaml_load.load(text, "scheduler config")
    except InputError as exc:
        raise ValueError(f"scheduler config: not YAML or JSON ({exc.message})") from None
    if doc is None:
        return ()
    if not isinstance(doc, dict) or set(doc) - {"podTopologySpread"}:
        raise ValueError("scheduler config: only podTopologySpread is known")
    spread = doc.get("podTopologySpread") or {}
    if not isinstance(spread, dict) or set(spread) - {"defaultConstraints"}:
        raise ValueError("scheduler config: podTopologySpread has only defaultConstraints")
    raw = spread.get("defaultConstraints") or []
    where = "podTopologySpread.defaultConstraints"
    if not isinstance(raw, list):
        raise ValueError(f"scheduler config: {where} must be a list")
    for i, item in enumerate(raw):
        if isinstance(item, dict) and item.get("labelSelector") is not None:
            raise ValueError(f"scheduler config: {where}[{i}].labelSelector must not be set, "
                             "as selectors are deduced for each pod")
        if isinstance(item, dict) and item.get("matchLabelKeys"):
            raise ValueError(f"scheduler config: {where}[{i}].matchLabelKeys must not be set, "
                             "as it has no effect on default constraints")
    try:
        constraints = parse_spread_constraints(raw, where)
    except ModelError as exc:
        raise ValueError(f"scheduler config: {exc}") from None
    for i, c in enumerate(constraints):
        bad = L.qualified_name_error(c.topology_key)
        if bad:
            raise ValueError(f"scheduler config: {where}[{i}].topologyKey {c.topology_key!r} is not a valid label "
                             f"name: {bad}")
        for j, d in enumerate(constraints[:i]):
            if (c.topology_key, c.when_unsatisfiable) == (d.topology_key, d.when_unsatisfiable):
                raise ValueError(f"scheduler config: {where}[{i}] is a duplicate of [{j}], "
                                 f"{{{c.topology_key}, {c.when_unsatisfiable}}}")
    return constraints


def _controller_container(snapshot) -> tuple[str, Mapping] | None:
    """The Karpenter controller's container in its Deployment (the one whose image tag gives the
    version, :mod:`.versions`), with the Deployment's name."""
    for workload in snapshot.workloads:
        if workload.kind != "Deployment" or workload.template is None or not workload.raw:
            continue
        if image_version(workload.template.images) is None:
            continue
        spec = ((workload.raw.get("spec") or {}).get("template") or {}).get("spec") or {}
        for container in spec.get("containers") or ():
            if isinstance(container, Mapping) and image_version((str(container.get("image", "")),)):
                return f"Deployment {workload.key}", container
    return None


def _deployed(container: Mapping) -> dict[str, str]:
    """Setting -> value as the controller starts: its env, then its flags over them."""
    found: dict[str, str] = {}
    for env in container.get("env") or ():
        if isinstance(env, Mapping) and env.get("name") in SETTINGS and isinstance(env.get("value"), str):
            found[env["name"]] = env["value"]
    args = [str(a) for a in (container.get("args") or ()) if isinstance(a, (str, int))]
    flags = {flag: name for name, (flag, _) in SETTINGS.items()}
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag in flags:
            if not eq and flags[flag] in BOOLEAN:  # a Go bool flag alone is true; its value needs "="
                value = TRUE
            elif not eq:
                if i + 1 >= len(args):
                    continue
                value = args[i + 1]
            found[flags[flag]] = value
    return found


FEATURE_GATES, FEATURE_GATES_FLAG = "FEATURE_GATES", "--feature-gates"


def controller_gates(snapshot) -> FeatureGates:
    """The feature gates the controller's Deployment in the snapshot runs with (its ``FEATURE_GATES``
    env, a ``--feature-gates`` flag in its ``args`` winning), over Karpenter's defaults; the defaults
    when it shows none, or none karptui can read (a redacted or unknown value). What a simulation uses
    when no ``--feature-gates`` is given: how the Helm chart's ``settings.featureGates`` reach Karpenter."""
    found = _gates_found.get(snapshot)
    if found is None:
        found = _gates_found[snapshot] = _controller_gates(snapshot)
    return found


def _controller_gates(snapshot) -> FeatureGates:
    controller = _controller_container(snapshot)
    if controller is None:
        return DEFAULT_GATES
    _, container = controller
    text = None
    for env in container.get("env") or ():
        if isinstance(env, Mapping) and env.get("name") == FEATURE_GATES and isinstance(env.get("value"), str):
            text = env["value"]
    args = [str(a) for a in (container.get("args") or ()) if isinstance(a, (str, int))]
    for i, arg in enumerate(args):
        flag, eq, value = arg.partition("=")
        if flag == FEATURE_GATES_FLAG:
            text = value if eq else (args[i + 1] if i + 1 < len(args) else text)
    try:
        return parse_feature_gates(text)
    except ValueError:  # redacted, or a gate this karptui does not know: Karpenter's defaults
        return DEFAULT_GATES


_gates_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()
_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def karpenter_settings(snapshot) -> KarpenterSettings:
    """The settings this snapshot is simulated with (see the module's docstring)."""
    found = _found.get(snapshot)
    if found is None:
        found = _found[snapshot] = _settings(snapshot)
    return found


def _settings(snapshot) -> KarpenterSettings:
    values, sources, notes = dict(DEFAULTS), {k: "default" for k in DEFAULTS}, []
    controller = _controller_container(snapshot)
    if controller is not None:
        where, container = controller
        for name, value in _deployed(container).items():
            if value == _REDACTED:
                notes.append(f"{name} on {where} was not saved in the snapshot; Karpenter's default assumed")
                continue
            try:
                values[name] = check_value(name, value)
                sources[name] = where
            except ValueError as exc:
                notes.append(f"{where}: {exc}; Karpenter's default assumed")
    for name, value in (getattr(snapshot, "karpenter_settings", None) or {}).items():
        values[name], sources[name] = value, snapshot.karpenter_settings_set_by.get(name, "set")
    constraints: tuple = ()
    version = karpenter_version(snapshot)
    legacy = values[LEGACY_NODE_REPAIR] == TRUE
    if legacy and version < SINCE[LEGACY_NODE_REPAIR]:
        notes.append(f"LEGACY_NODE_REPAIR ({sources[LEGACY_NODE_REPAIR]}) is read from Karpenter v1.15; "
                     f"Karpenter {version} ignores it (its node repair is the legacy controller anyway)")
        legacy = False
    if values[SCHEDULER_CONFIG]:
        if karpenter_version(snapshot) >= V1_15:
            try:
                constraints = parse_scheduler_config(values[SCHEDULER_CONFIG])
            except ValueError as exc:  # only a Deployment's value gets here: flags are checked first
                notes.append(f"{sources[SCHEDULER_CONFIG]}: {exc}; no default constraints")
        else:
            notes.append(f"SCHEDULER_CONFIG ({sources[SCHEDULER_CONFIG]}) is read from Karpenter v1.15; "
                         f"Karpenter {karpenter_version(snapshot)} ignores it")
    return KarpenterSettings(values[PREFERENCE_POLICY], values[MIN_VALUES_POLICY], values[SCHEDULER_CONFIG],
                             constraints, legacy, tuple(sorted(sources.items())), tuple(notes),
                             values[AWS_FEATURE_GATES])


# strconv.ParseBool, which Go's flag package and Karpenter's environment reading use
_GO_BOOLS = {v: True for v in ("1", "t", "T", "TRUE", "true", "True")} | {
    v: False for v in ("0", "f", "F", "FALSE", "false", "False")}

