"""``--preference-policy``, ``--min-values-policy``, ``--scheduler-config``, ``--legacy-node-repair``:
Karpenter's controller settings the simulation follows, whatever the controller's Deployment in the
snapshot says.

The flags are Karpenter's own (``pkg/operator/options/options.go``), with its values; what each
changes is in :mod:`karptui.sim.karpenter.settings` and docs/cli.md.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError
# the names alone: the parser offers the flags without loading what they change (karptui --version)
from ..sim.karpenter.setting_names import (AWS_FEATURE_GATES, BOOLEAN, LEGACY_NODE_REPAIR, MIN_VALUES_POLICY,
                                           PREFERENCE_POLICY, SCHEDULER_CONFIG, SETTINGS, TRUE)

HELP = {
    PREFERENCE_POLICY: "Karpenter's PREFERENCE_POLICY: Respect (default) or Ignore (provision as if pods had no "
                       "preferred affinities and no ScheduleAnyway spread constraints)",
    MIN_VALUES_POLICY: "Karpenter's MIN_VALUES_POLICY: Strict (default) or BestEffort (lower a NodePool's "
                       "minValues to what the instance types left allow, instead of refusing the pod)",
    SCHEDULER_CONFIG: "Karpenter's SCHEDULER_CONFIG (v1.15 on): a YAML/JSON document, e.g. "
                      "'{podTopologySpread: {defaultConstraints: [...]}}'; '' for none",
    LEGACY_NODE_REPAIR: "Karpenter's LEGACY_NODE_REPAIR (v1.15 on): with the NodeRepair gate, repair unhealthy "
                        "nodes as v1.14 did (forceful deletion outside budgets) instead of as a voluntary "
                        "disruption method; the flag alone means true",
    AWS_FEATURE_GATES: "the AWS provider's AWS_FEATURE_GATES (v1.15 on), e.g. NodeClassCEL=true: EC2NodeClass "
                       "kubelet maxPods/kubeReserved/systemReserved CEL expressions are evaluated per instance type",
}
if TYPE_CHECKING:
    from ..model import Snapshot

_DEST = {name: flag.lstrip("-").replace("-", "_") for name, (flag, _) in SETTINGS.items()}


def add_flags(command: argparse.ArgumentParser, suppress: bool = False) -> None:
    """The options on ``command``; ``suppress`` on a subcommand, so ones given before it are kept."""
    kwargs = {"default": argparse.SUPPRESS} if suppress else {}
    for name, (flag, allowed) in SETTINGS.items():
        metavar = "|".join(allowed) if allowed else ("GATES" if name == AWS_FEATURE_GATES else "DOC")
        if name in BOOLEAN:  # a Go bool flag: alone it is true, or --flag=true|false
            command.add_argument(flag, metavar=metavar, help=HELP[name], dest=_DEST[name], nargs="?", const=TRUE,
                                 **kwargs)
            continue
        command.add_argument(flag, metavar=metavar, help=HELP[name], dest=_DEST[name], **kwargs)


def flags_given(args: argparse.Namespace) -> dict[str, str]:
    """Setting -> value for each flag given, checked now (a bad one is an InputError before
    anything is loaded)."""
    from ..sim.karpenter.settings import check_value

    given = {}
    for name, (flag, _) in SETTINGS.items():
        value = getattr(args, _DEST[name], None)
        if value is None:
            continue
        try:
            given[name] = check_value(name, value)
        except ValueError as exc:
            raise InputError(flag, str(exc)) from None
    return given


def as_argv(args: argparse.Namespace) -> list[str]:
    """The flags given, as a command line would repeat them (``karptui serve`` passes them on to
    each browser session's TUI)."""
    argv: list[str] = []
    for name, (flag, _) in SETTINGS.items():
        value = getattr(args, _DEST[name], None)
        if value is not None:
            argv += [flag, value]
    return argv


def set_by(given: dict[str, str]) -> dict[str, str]:
    """Setting -> the words saying which flag set it (``set by --preference-policy``)."""
    return {name: f"set by {SETTINGS[name][0]}" for name in given}


def with_flags(snapshot: Snapshot, given: dict[str, str]) -> Snapshot:
    """``snapshot`` simulated with these settings (from :func:`flags_given`); unchanged for none."""
    if not given:
        return snapshot
    from dataclasses import replace  # here: the parser imports this module, and --version needs no dataclasses

    return replace(snapshot, karpenter_settings={**snapshot.karpenter_settings, **given},
                   karpenter_settings_set_by={**snapshot.karpenter_settings_set_by, **set_by(given)})
