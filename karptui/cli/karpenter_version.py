"""``--karpenter-version vX.Y[.Z]``: which Karpenter the simulation follows, whatever the snapshot shows."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from ..errors import InputError

if TYPE_CHECKING:
    from ..model import Snapshot

FLAG = "--karpenter-version"
HELP = ("simulate this Karpenter release (e.g. v1.14, v1.9.2, v1.15.1) instead of the one the snapshot shows "
        "(its controller's image tag); docs/karpenter-versions.md lists what differs")


def add_flag(command: argparse.ArgumentParser, suppress: bool = False) -> None:
    """The option on ``command``; ``suppress`` on a subcommand, so one given before it is kept."""
    kwargs = {"default": argparse.SUPPRESS} if suppress else {}
    command.add_argument(FLAG, metavar="vX.Y[.Z]", help=HELP, **kwargs)


def flag_text(args: argparse.Namespace) -> str | None:
    """The flag's value, checked now (a bad one is an InputError before anything is loaded)."""
    text = getattr(args, "karpenter_version", None)
    if text is None:
        return None
    try:
        from ..sim.karpenter.versions import KarpenterVersion  # here: the parser imports this module

        return str(KarpenterVersion.parse(text))
    except ValueError as exc:
        raise InputError(FLAG, str(exc)) from None


def with_flag(snapshot: Snapshot, text: str | None) -> Snapshot:
    """``snapshot`` simulated as the release ``text`` names (from :func:`flag_text`); unchanged for None."""
    if text is None:
        return snapshot
    from dataclasses import replace

    return replace(snapshot, karpenter_version=text, karpenter_version_set_by=FLAG)
