#!/usr/bin/env python3
"""Write karptui's bundled instance-type catalog from shared/data/ec2-instance-types.json.

    python tools/gen_catalog.py [SOURCE] [--out karptui/catalog/data/ec2-instance-types.json.gz]

The output is committed, so an installed karptui never needs the shared data
directory. It keeps, per type, only what the simulator and the node builder use:
the well-known labels, the raw size (``capacity``: vCPUs and MiB), Karpenter's
allocatable estimate (``resources``) and the non-null on-demand prices.

Deterministic: types sorted by name, keys sorted, compact separators and a gzip
header with mtime 0 and no file name, so a rerun writes the same bytes.
"""

from __future__ import annotations

import argparse
import gzip
import io
import json
import re
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SOURCE = REPO.parent / "shared" / "data" / "ec2-instance-types.json"
DEFAULT_OUT = REPO / "karptui" / "catalog" / "data" / "ec2-instance-types.json.gz"
FORMAT = 1

# The labels Karpenter itself puts on a node for its instance type.
LABEL_PREFIXES = ("karpenter.k8s.aws/instance-",)
LABEL_KEYS = frozenset({"kubernetes.io/arch", "kubernetes.io/os", "node.kubernetes.io/instance-type"})


def _wanted(key: str) -> bool:
    return key in LABEL_KEYS or key.startswith(LABEL_PREFIXES)


def convert(source: dict) -> dict:
    """The bundled document for one parsed source document."""
    types = []
    for raw in source["instanceTypes"]:
        name = raw["name"]
        capacity = raw["capacity"]
        if not isinstance(capacity.get("cpu"), int) or not isinstance(capacity.get("memoryMiB"), int):
            raise ValueError(f"{name}: capacity needs integer cpu and memoryMiB")
        types.append({
            "name": name,
            "labels": {k: str(v) for k, v in raw["labels"].items() if _wanted(k)},
            "capacity": {"cpu": capacity["cpu"], "memoryMiB": capacity["memoryMiB"]},
            "resources": {k: str(v) for k, v in raw["resources"].items()},
            "onDemandPrice": {r: p for r, p in raw.get("onDemandPrice", {}).items() if p is not None},
        })
    types.sort(key=lambda t: t["name"])
    names = [t["name"] for t in types]
    if len(set(names)) != len(names):
        raise ValueError("duplicate instance type names in the source")
    return {"format": FORMAT, "source": _provenance(source.get("source", "")),
            "generated": source.get("generated", ""), "types": types}


def _provenance(text: str) -> str:
    """The source note without its leading host name (the bundled data names no hosts)."""
    return re.sub(r"^[a-z0-9.-]+\.[a-z]+/", "", text.strip())


def encode(document: dict) -> bytes:
    """Compact, sorted JSON in a gzip stream with a fixed header."""
    text = json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True)
    buffer = io.BytesIO()
    with gzip.GzipFile(filename="", mode="wb", fileobj=buffer, mtime=0, compresslevel=9) as out:
        out.write(text.encode("ascii"))
    return buffer.getvalue()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("source", nargs="?", type=Path, default=DEFAULT_SOURCE)
    parser.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = parser.parse_args(argv)
    try:
        document = convert(json.loads(args.source.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        print(f"{args.source}: {exc}", file=sys.stderr)
        return 2
    data = encode(document)
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_bytes(data)
    print(f"{args.out}: {len(document['types'])} instance types, {len(data)} bytes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
