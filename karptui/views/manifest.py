"""``y``: an object's manifest as the snapshot holds it, as YAML lines (kubectl get -o yaml's order)."""

from __future__ import annotations

import yaml

from ..model.meta import KubeObject


def manifest_lines(obj: KubeObject) -> list[str]:
    """The object's raw manifest as YAML lines; a note when the snapshot kept none."""
    if obj.raw is None:
        return [f"(the snapshot kept no manifest for {obj.KIND} {obj.name})"]
    return yaml_lines(obj.raw)


def yaml_lines(raw) -> list[str]:
    """A manifest as YAML lines, in the order it came (kubectl get -o yaml's)."""
    text = yaml.safe_dump(_plain(raw), sort_keys=False, allow_unicode=True, default_flow_style=False, width=1000)
    return text.rstrip("\n").split("\n")


def reading_lines(obj: KubeObject, where: str) -> list[str]:
    """What ``y`` shows while it reads a manifest the model did not keep."""
    return [f"(reading {obj.KIND} {obj.key} from {where}…)"]


def not_found_lines(obj: KubeObject, where: str, why: str = "") -> list[str]:
    return [f"({obj.KIND} {obj.key} is not in {where}{': ' + why if why else ''})"]


def _plain(value):
    """Mappings and sequences as dicts and lists (the model may hold read-only views of them)."""
    if isinstance(value, dict) or hasattr(value, "items"):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    return value
