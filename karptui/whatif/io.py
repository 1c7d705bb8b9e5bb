"""What-if files: YAML (or JSON) in, YAML out, every mistake one line naming the edit.

Edits are numbered from 1 in messages, as an operator counts them:
``drop-spread.yaml: edit 2: scale must be a whole number >= 0, got -1``.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import yaml

from .. import limits
from ..errors import InputError
from ..sources.atomic import atomic_write
from ..sources.decode import read_text, size_text
from ..sources.yaml_load import load_all
from .edits import (
    API_VERSION,
    KIND,
    AddNodes,
    Cordon,
    Create,
    Edit,
    Patch,
    Remove,
    RemoveNode,
    Scale,
    SetFeatureGates,
    SetKarpenterVersion,
    Target,
    WhatIf,
    edits_over_cap,
)
from .patch import STRATEGIC

TOP_KEYS = ("apiVersion", "kind", "name", "description", "edits")
OPERATIONS = ("patch", "scale", "cordon", "remove", "addNodes", "featureGates", "karpenterVersion", "create")
EDIT_KEYS = ("target", "patchType", *OPERATIONS)
ADD_NODES_KEYS = {
    "instanceType": "instance_type", "zone": "zone", "count": "count", "capacityType": "capacity_type",
    "nodepool": "nodepool", "namePrefix": "name_prefix", "region": "region", "labels": "labels",
    "taints": "taints", "names": "names",
}

try:
    _Dumper = yaml.CSafeDumper
except AttributeError:  # pragma: no cover
    _Dumper = yaml.SafeDumper  # type: ignore[misc]


def load_whatif(path: str | Path) -> WhatIf:
    """The what-if in a file; :class:`InputError` naming the file and the edit otherwise."""
    return whatif_from_text(read_text(path, small=True), str(path), default_name=Path(path).name.split(".")[0])


def whatif_from_text(text: str, source: str, default_name: str = "") -> WhatIf:
    """The what-if in a YAML or JSON text (a file's, or a tool's input); the same one-line errors,
    naming ``source``. Bounded as a what-if file is: MAX_SMALL_FILE_BYTES, then the YAML caps."""
    if len(text.encode("utf-8", "surrogatepass")) > limits.MAX_SMALL_FILE_BYTES:
        raise InputError(source, f"more than the {size_text(limits.MAX_SMALL_FILE_BYTES)} karptui reads of "
                                 "a what-if, catalog or theme file")
    docs = [d for d in load_all(text, source) if d is not None]
    if len(docs) != 1:
        raise InputError(source, f"expected one {KIND} document, found {len(docs)}")
    return parse_whatif(docs[0], source=source, default_name=default_name or source)


def save_whatif(path: str | Path, whatif: WhatIf) -> None:
    """Write ``whatif`` as YAML with karptui's one writer (atomic, through links, umask honoured)."""
    atomic_write(path, dump_whatif(whatif).encode("utf-8"))


def dump_whatif(whatif: WhatIf) -> str:
    """The YAML text :func:`save_whatif` writes."""
    return yaml.dump(whatif.to_dict(), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     default_flow_style=False)


def parse_whatif(data: object, source: str = "", default_name: str = "") -> WhatIf:
    """A :class:`WhatIf` from the decoded document (a mapping)."""
    if not isinstance(data, Mapping):
        raise InputError(source, f"expected a mapping with apiVersion: {API_VERSION}, kind: {KIND} and edits")
    unknown = [k for k in data if k not in TOP_KEYS]
    if unknown:
        raise InputError(source, f"unknown key {unknown[0]!r} (known: {', '.join(TOP_KEYS)})")
    if data.get("apiVersion", API_VERSION) != API_VERSION:
        raise InputError(source, f"apiVersion must be {API_VERSION}, got {data.get('apiVersion')!r}")
    if data.get("kind", KIND) != KIND:
        raise InputError(source, f"kind must be {KIND}, got {data.get('kind')!r}")
    name = data.get("name", default_name)
    if not isinstance(name, str) or not name:
        raise InputError(source, f"name must be a non-empty string, got {name!r}")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise InputError(source, "description must be a string")
    raw_edits = data.get("edits")
    if raw_edits is None:
        raise InputError(source, "edits missing (a list of edits)")
    if not isinstance(raw_edits, list):
        raise InputError(source, "edits must be a list")
    too_many = edits_over_cap(len(raw_edits))
    if too_many:
        raise InputError(source, too_many)
    edits = []
    for number, item in enumerate(raw_edits, 1):
        try:
            edits.append(parse_edit(item))
        except ValueError as exc:
            raise InputError(source, f"edit {number}: {exc}") from None
    return WhatIf(name=name, edits=tuple(edits), description=description, source=source)


def parse_edit(item: object) -> Edit:
    """One edit from its mapping; ``ValueError`` with a one-line reason otherwise."""
    if not isinstance(item, Mapping):
        raise ValueError("expected a mapping (target plus patch, scale, cordon or remove; or addNodes)")
    unknown = [k for k in item if k not in EDIT_KEYS]
    if unknown:
        raise ValueError(f"unknown key {unknown[0]!r} (known: {', '.join(EDIT_KEYS)})")
    ops = [k for k in OPERATIONS if k in item]
    if not ops:
        raise ValueError(f"nothing to do: give one of {', '.join(OPERATIONS)}")
    if len(ops) > 1:
        raise ValueError(f"give one operation per edit, found {' and '.join(ops)}")
    op = ops[0]
    if "patchType" in item and op != "patch":
        raise ValueError("patchType goes with patch")
    if op == "addNodes":
        if "target" in item:
            raise ValueError("addNodes takes no target")
        return _add_nodes(item["addNodes"])
    if op == "featureGates":
        if "target" in item:
            raise ValueError("featureGates takes no target")
        return SetFeatureGates(item["featureGates"])
    if op == "create":
        if "target" in item:
            raise ValueError("create takes no target (the manifest names the object)")
        return Create(item["create"])
    if op == "karpenterVersion":
        if "target" in item:
            raise ValueError("karpenterVersion takes no target")
        return SetKarpenterVersion(item["karpenterVersion"])
    if "target" not in item:
        raise ValueError(f"{op}: target missing (Kind/namespace/name, or Node/<name>)")
    target = Target.parse(item["target"])
    value = item[op]
    if op == "patch":
        patch_type = item.get("patchType", STRATEGIC)
        return Patch(target, value, patch_type)
    if op == "scale":
        return Scale(target, value)
    if op == "cordon":
        if target.kind != "Node":
            raise ValueError(f"cordon takes a Node target, not {target}")
        if not isinstance(value, bool):
            raise ValueError(f"cordon must be true or false, got {value!r}")
        return Cordon(target.name, value)
    if value is not True:
        raise ValueError(f"remove must be true, got {value!r}")
    if target.kind == "Node":
        return RemoveNode(target.name)
    return Remove(target)


def _add_nodes(spec: object) -> AddNodes:
    if not isinstance(spec, Mapping):
        raise ValueError("addNodes must be a mapping (instanceType, zone, count, capacityType, nodepool)")
    unknown = [k for k in spec if k not in ADD_NODES_KEYS]
    if unknown:
        raise ValueError(f"addNodes: unknown key {unknown[0]!r} (known: {', '.join(ADD_NODES_KEYS)})")
    fields = {"instance_type": "", "zone": ""}  # missing ones are reported by AddNodes itself
    fields.update({ADD_NODES_KEYS[k]: v for k, v in spec.items() if v is not None})
    try:
        return AddNodes(**fields)
    except ValueError as exc:
        raise ValueError(f"addNodes: {exc}") from None
