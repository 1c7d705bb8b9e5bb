"""``y``: an object's manifest as the snapshot holds it, as YAML lines (kubectl get -o yaml's order)."""

from __future__ import annotations

import yaml

from ..model.meta import KubeObject


def manifest_lines(obj: KubeObject) -> list[str]:
    """The object's raw manifest as YAML lines; a note when the snapshot kept none."""
    if obj.raw is None:
        return [f"(the snapshot kept no manifest for {obj.KIND} {obj.name})"]
    text = yaml.safe_dump(_plain(obj.raw), sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)
    return text.rstrip("\n").split("\n")


def _plain(value):
    """Mappings and sequences as dicts and lists (the model may hold read-only views of them)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
