"""Which Karpenter the simulation models: one owner for the version and for what depends on it.

Karpenter keeps moving, and operators run more than one line of it at once: since 2026-07
Karpenter has long-term-support releases (v1.9 and v1.14), beside the newest minor (v1.15). A
rule that changed between them asks :func:`karpenter_version` for the snapshot's version and
compares it (``version >= V1_15``); nothing else decides which Karpenter a rule follows.

The version comes from, in order: the snapshot's ``karpenter_version`` (set by
``--karpenter-version`` or a what-if's ``karpenterVersion:``), what the snapshot shows of the
controller (see :func:`detected_version`), else :data:`DEFAULT`, the newest line modelled.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_TEXT = re.compile(r"^v?(\d+)\.(\d+)(?:\.(\d+))?$")


@dataclass(frozen=True, order=True, slots=True)
class KarpenterVersion:
    major: int
    minor: int
    patch: int = 0

    @classmethod
    def parse(cls, text: str) -> KarpenterVersion:
        """``v1.15.1``, ``1.14`` (patch 0); ``ValueError`` with one line otherwise."""
        match = _TEXT.match(str(text).strip())
        if match is None:
            raise ValueError(f"not a Karpenter version: {text!r} (expected e.g. v1.15.1)")
        major, minor, patch = match.groups()
        return cls(int(major), int(minor), int(patch or 0))

    @property
    def line(self) -> tuple[int, int]:
        return (self.major, self.minor)

    def __str__(self) -> str:
        return f"v{self.major}.{self.minor}.{self.patch}"


V1_9 = KarpenterVersion(1, 9)
V1_14 = KarpenterVersion(1, 14)
V1_14_1 = KarpenterVersion(1, 14, 1)
V1_15 = KarpenterVersion(1, 15)
LINES = (V1_9, V1_14, V1_15)
"""The lines modelled: v1.9 LTS, v1.14 LTS and the newest minor (docs/karpenter-versions.md)."""
DEFAULT = KarpenterVersion(1, 15, 1)


def detected_version(snapshot) -> KarpenterVersion | None:
    """What the snapshot shows of the running controller's version; None when it shows nothing."""
    return None


def karpenter_version(snapshot) -> KarpenterVersion:
    """The version the simulation of ``snapshot`` models (the module's docstring says from where)."""
    if snapshot.karpenter_version:
        return KarpenterVersion.parse(snapshot.karpenter_version)
    return detected_version(snapshot) or DEFAULT
