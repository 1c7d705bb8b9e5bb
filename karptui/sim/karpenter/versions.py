"""Which Karpenter the simulation models: one owner for the version and for what depends on it.

Karpenter keeps moving, and operators run more than one line of it at once: since 2026-07
Karpenter has long-term-support releases (v1.9 and v1.14), beside the newest minor (v1.15). A
rule that changed between them asks :func:`karpenter_version` for the snapshot's version and
compares it (``version >= V1_15``); nothing else decides which Karpenter a rule follows.

The version comes from, in order: the snapshot's ``karpenter_version`` (set by
``--karpenter-version`` or a what-if's ``karpenterVersion:``), what the snapshot shows of the
controller (see :func:`detected_version`), else :data:`DEFAULT`, the newest line modelled.
:func:`version_found` says the same with where it came from, for the views.
"""

from __future__ import annotations

import re
import weakref
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
V1_12 = KarpenterVersion(1, 12)   # do-not-disrupt durations (.donotdisrupt)
V1_14 = KarpenterVersion(1, 14)
V1_14_1 = KarpenterVersion(1, 14, 1)
V1_15 = KarpenterVersion(1, 15)
LINES = (V1_9, V1_14, V1_15)
"""The lines modelled: v1.9 LTS, v1.14 LTS and the newest minor (docs/karpenter-versions.md)."""
DEFAULT = KarpenterVersion(1, 15, 1)


OLDEST_MODELLED = V1_9


@dataclass(frozen=True, slots=True)
class VersionFound:
    """The version a simulation follows and where karptui found it.

    ``source`` in a few words for a header ("controller image", "set by --karpenter-version",
    "assumed: newest modelled"); ``detail`` says what was read (the image, the range an API
    version allows) and, for a version older than the lines modelled, by which rules it is simulated.
    """

    version: KarpenterVersion
    source: str
    detail: str = ""

    @property
    def older_than_modelled(self) -> bool:
        return self.version < OLDEST_MODELLED

    def to_dict(self) -> dict:
        return {"version": str(self.version), "source": self.source, "detail": self.detail,
                "older_than_modelled": self.older_than_modelled}


# The controller's image: ``public.ecr.aws/karpenter/controller:1.15.1@sha256:...``, a mirror's
# ``<registry>/karpenter/controller:v0.37.0``; the tag is Karpenter's release, with or without ``v``.
_CONTROLLER_IMAGE = re.compile(r"(?:^|/)karpenter/controller:(v?\d+\.\d+(?:\.\d+)?)(?:[-+][^@]*)?(?:@|$)")
_HELM_NAME, _HELM_VERSION = "app.kubernetes.io/name", "app.kubernetes.io/version"
_found: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


def image_version(images) -> tuple[KarpenterVersion, str] | None:
    """The release and image of the first Karpenter controller image among ``images``: the one rule
    for "this container is Karpenter's controller", which the settings (.settings) read too."""
    for image in images:
        if "karpenter" not in image:
            continue
        match = _CONTROLLER_IMAGE.search(image)
        if match is not None:
            return KarpenterVersion.parse(match.group(1)), image.partition("@")[0]  # the tag, not the digest
    return None


def _helm_version(obj) -> KarpenterVersion | None:
    """The Helm chart's ``app.kubernetes.io/version`` on an object it labels ``name=karpenter``."""
    if obj.labels.get(_HELM_NAME) != "karpenter":
        return None
    try:
        return KarpenterVersion.parse(obj.labels.get(_HELM_VERSION, ""))
    except ValueError:
        return None


def _from_controller(snapshot) -> VersionFound | None:
    """The controller's Deployment first (what it is rolling out to), else its running pods (the
    newest of them, naming the others), else the Helm chart's version label on either."""
    for workload in snapshot.workloads:
        if workload.kind == "Deployment" and workload.template is not None:
            found = image_version(workload.template.images)
            if found is not None:
                return VersionFound(found[0], "controller image",
                                    f"Deployment {workload.key} runs {found[1]}")
    running: dict[KarpenterVersion, str] = {}
    for pod in snapshot.pods:
        if pod.is_terminal:
            continue
        found = image_version(pod.images)
        if found is not None:
            running.setdefault(found[0], f"Pod {pod.key} runs {found[1]}")
    if running:
        newest = max(running)
        others = sorted(str(v) for v in running if v != newest)
        also = f"; also running: {', '.join(others)}" if others else ""
        return VersionFound(newest, "controller image", running[newest] + also)
    for obj in (*snapshot.workloads, *snapshot.pods):
        version = _helm_version(obj)
        if version is not None:
            return VersionFound(version, "Helm chart label",
                                f"{obj.ref} is labelled {_HELM_NAME}=karpenter, {_HELM_VERSION}={version}")
    return None


def _from_apis(snapshot) -> VersionFound | None:
    """Karpenter's CRDs, else the API version of its NodePools / Provisioners: a range of releases.

    karptui then models the newest release of the range it models (or v1.9's rules, for releases
    older than the lines modelled), and says the range."""
    nodepool_crd = next((c for c in snapshot.karpenter_crds if c.group == "karpenter.sh" and c.kind == "NodePool"), None)
    if nodepool_crd is not None and "v1" in nodepool_crd.served:
        where = "CRD nodepools.karpenter.sh"
        if "consolidateAfter" not in nodepool_crd.disruption_required:
            return VersionFound(DEFAULT, "CRDs", f"{where}: consolidateAfter optional, so v1.15 or newer")
        if "Balanced" in nodepool_crd.consolidation_policies:
            return VersionFound(KarpenterVersion(1, 14, 3), "CRDs",
                                f"{where}: Balanced consolidation and consolidateAfter required, so v1.14.x; "
                                "modelled as the newest v1.14 patch")
        return VersionFound(KarpenterVersion(1, 13), "CRDs",
                            f"{where}: karpenter.sh/v1 without Balanced consolidation, so v1.0 to v1.13; "
                            f"simulated by the rules of v1.9, the oldest line modelled")
    if nodepool_crd is not None and "v1beta1" in nodepool_crd.served:
        return _beta("CRD nodepools.karpenter.sh serves karpenter.sh/v1beta1 only")
    api_versions = {pool.api_version for pool in snapshot.nodepools}
    if any(v.endswith("/v1") for v in api_versions):
        return VersionFound(DEFAULT, "NodePool API version",
                            "NodePools are karpenter.sh/v1, so v1.0 or newer; assumed the newest modelled")
    if any(v.endswith("/v1beta1") for v in api_versions):
        return _beta("NodePools are karpenter.sh/v1beta1")
    if any(v.endswith("/v1alpha5") for v in api_versions):
        return VersionFound(KarpenterVersion(0, 31), "Provisioner API version",
                            "Provisioners are karpenter.sh/v1alpha5, so older than v0.32; older than the lines "
                            "karptui models: simulated by the rules of v1.9, the oldest line modelled")
    return None


def _beta(why: str) -> VersionFound:
    return VersionFound(KarpenterVersion(0, 37), "NodePool API version",
                        f"{why}, so v0.32 to v0.37; older than the lines karptui models: simulated by the rules "
                        "of v1.9, the oldest line modelled")


def _detected(snapshot) -> VersionFound | None:
    try:
        return _found[snapshot]
    except KeyError:
        pass
    found = _from_controller(snapshot)
    if found is None and snapshot.meta.karpenter_version:
        try:
            found = VersionFound(KarpenterVersion.parse(snapshot.meta.karpenter_version), "recorded in the snapshot",
                                 "the snapshot file's karpenterVersion")
        except ValueError:
            found = None
    found = found or _from_apis(snapshot)
    if found is not None and found.version < OLDEST_MODELLED and "older than" not in found.detail:
        found = VersionFound(found.version, found.source,
                             f"{found.detail}; older than the lines karptui models (v1.9, v1.14, v1.15): "
                             "simulated by the rules of v1.9, the oldest line modelled")
    _found[snapshot] = found
    return found


def detected_version(snapshot) -> KarpenterVersion | None:
    """What the snapshot shows of the running controller's version; None when it shows nothing.

    In order: the controller's image tag (its Deployment, else its pods), the Helm chart's version
    label, a version recorded in the snapshot file, else the range Karpenter's CRDs or its NodePools'
    API version allow (:func:`version_found` says which)."""
    found = _detected(snapshot)
    return found.version if found is not None else None


def version_found(snapshot) -> VersionFound:
    """:func:`karpenter_version` with where it came from, for the header, JSON and ``snapshot info``."""
    if snapshot.karpenter_version:
        version = KarpenterVersion.parse(snapshot.karpenter_version)
        by = snapshot.karpenter_version_set_by or "--karpenter-version"
        seen = _detected(snapshot)
        detail = f"the snapshot shows {seen.version} ({seen.source})" if seen is not None else ""
        if version < OLDEST_MODELLED:
            detail = "; ".join(filter(None, (detail, "older than the lines karptui models (v1.9, v1.14, v1.15): "
                                                     "simulated by the rules of v1.9, the oldest line modelled")))
        return VersionFound(version, f"set by {by}", detail)
    found = _detected(snapshot)
    if found is not None:
        return found
    return VersionFound(DEFAULT, "assumed: newest modelled",
                        "the snapshot shows no Karpenter controller image, CRD or NodePool")


def karpenter_version(snapshot) -> KarpenterVersion:
    """The version the simulation of ``snapshot`` models (the module's docstring says from where)."""
    if snapshot.karpenter_version:
        return KarpenterVersion.parse(snapshot.karpenter_version)
    return detected_version(snapshot) or DEFAULT
