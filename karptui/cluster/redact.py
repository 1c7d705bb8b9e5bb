"""What ``karptui snapshot save`` keeps out of the file: the one redaction policy.

A snapshot is meant to be shared (attached to a ticket, sent to a colleague), so
whatever in the objects karptui reads commonly carries a secret is taken out
before anything is written. karptui never reads Secrets or ConfigMaps at all;
of the objects it does read:

* **Dropped** (the value is a whole copy of the object, secrets and all, and
  nothing karptui shows needs it): ``metadata.managedFields`` and the annotations
  in :data:`SPEC_COPIES` -- kubectl's last-applied-configuration, kapp's
  original, Rancher's applied object set -- on every object and on the pod
  template of every workload (Deployment, ReplicaSet, StatefulSet, DaemonSet,
  Job) and NodePool.
* **Redacted** (the field stays, so an operator can see it was there, but its
  value becomes :data:`REDACTED`): in every container, init container and
  ephemeral container of pods and pod templates, each literal ``env`` value,
  the whole ``command`` and ``args`` (one marker for the list: flags and their
  values cannot be told apart, and the count says nothing useful), the
  ``exec.command`` and HTTP header values of probes and lifecycle hooks; and the
  ``userData`` of EC2NodeClasses and AWSNodeTemplates (a boot script that often
  holds join tokens and passwords). The simulator reads none of these.

Everything else is kept as the API server returned it, other annotations and
labels included: the panes and the simulator need labels, taints, resources,
affinities, volumes and status, and annotations such as Karpenter's own.
``valueFrom``/``envFrom`` references are kept: they name a Secret, they do not
hold it. So are the values of the environment variables in :data:`KEPT_ENV`:
Karpenter's controller settings that change where pods go, which the simulator
reads from the controller's Deployment (they hold no secret; flags given to the
controller in ``args`` are redacted with the rest and read as unknown).
"""

from __future__ import annotations

REDACTED = "<redacted by karptui>"
#: Karpenter's scheduling settings (karptui.sim.karpenter.settings.SETTINGS): kept, not redacted.
KEPT_ENV = ("PREFERENCE_POLICY", "MIN_VALUES_POLICY", "SCHEDULER_CONFIG", "AWS_FEATURE_GATES")

#: Annotations that hold a full copy of the object as some tool last applied it.
SPEC_COPIES = (
    "kubectl.kubernetes.io/last-applied-configuration",  # kubectl apply (and Argo CD, Pulumi, ...)
    "kapp.k14s.io/original",                             # Carvel kapp
    "objectset.rio.cattle.io/applied",                   # Rancher / k3s / Fleet (gzipped, base64)
)
NODE_CLASS_KINDS = ("EC2NodeClass", "AWSNodeTemplate")
CONTAINER_LISTS = ("containers", "initContainers", "ephemeralContainers")
HANDLERS = ("livenessProbe", "readinessProbe", "startupProbe")
HOOKS = ("postStart", "preStop")


def redact(obj: dict) -> dict:
    """``obj`` with the policy above applied (changed in place, and returned)."""
    _redact_meta(obj.get("metadata"))
    spec = obj.get("spec")
    if not isinstance(spec, dict):
        return obj
    _redact_pod_spec(spec)
    template = spec.get("template")
    if isinstance(template, dict):
        _redact_meta(template.get("metadata"))
        if isinstance(template.get("spec"), dict):
            _redact_pod_spec(template["spec"])
    if obj.get("kind") in NODE_CLASS_KINDS and spec.get("userData") is not None:
        spec["userData"] = REDACTED
    return obj


def _redact_meta(meta: object) -> None:
    if not isinstance(meta, dict):
        return
    meta.pop("managedFields", None)
    annotations = meta.get("annotations")
    if isinstance(annotations, dict):
        for key in SPEC_COPIES:
            annotations.pop(key, None)


def _redact_pod_spec(spec: dict) -> None:
    for field in CONTAINER_LISTS:
        for container in _dicts(spec.get(field)):
            for env in _dicts(container.get("env")):
                if "value" in env and env.get("name") not in KEPT_ENV:
                    env["value"] = REDACTED
            _redact_command(container, "command")
            _redact_command(container, "args")
            for name in HANDLERS:
                _redact_handler(container.get(name))
            lifecycle = container.get("lifecycle")
            if isinstance(lifecycle, dict):
                for name in HOOKS:
                    _redact_handler(lifecycle.get(name))


def _redact_handler(handler: object) -> None:
    """A probe or lifecycle hook: the command it runs and the headers it sends."""
    if not isinstance(handler, dict):
        return
    if isinstance(handler.get("exec"), dict):
        _redact_command(handler["exec"], "command")
    if isinstance(handler.get("httpGet"), dict):
        for header in _dicts(handler["httpGet"].get("httpHeaders")):
            if "value" in header:
                header["value"] = REDACTED


def _redact_command(holder: dict, key: str) -> None:
    if holder.get(key):
        holder[key] = [REDACTED]


def _dicts(items: object) -> list[dict]:
    return [i for i in items if isinstance(i, dict)] if isinstance(items, list) else []
