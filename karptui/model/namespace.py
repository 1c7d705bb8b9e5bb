"""Namespaces: their labels feed pod affinity's namespaceSelector."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .meta import KubeObject, meta_fields


@dataclass(frozen=True, slots=True, kw_only=True)
class Namespace(KubeObject):
    KIND = "Namespace"


def build_namespace(obj: Mapping) -> Namespace:
    return Namespace(**meta_fields(obj))
