"""A discount on the catalog's prices (Savings Plans, an EDP, a reseller's rate), per instance family
or overall, from a small file (docs/catalog-files.md, "Discounts").

```yaml
discounts:
  overall: 0.10        # 10% off every instance type not named below
  families:
    m5: 0.28           # m5.* : 28% off (instead of the overall 10%)
    c6i: "20%"
```

The discount changes what karptui *shows* a cluster to cost, never what the simulated Karpenter
chooses: Karpenter ranks instance types and consolidation moves by the list and spot prices its
cloud provider gives, which no Savings Plan changes. So the catalog carries the discount beside
its prices (``Catalog.discounts``) and only the cost model (karptui.views.cost) applies it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from ..config import config_dir
from ..errors import InputError
from ..sources.decode import read_text

DISCOUNTS_FILE = "discounts.yaml"
_FAMILY = re.compile(r"[a-z0-9][a-z0-9-]{0,62}")  # an EC2 family: the type's name before the dot
_PERCENT = re.compile(r"\s*(\d+(?:\.\d+)?)\s*%\s*")


@dataclass(frozen=True, slots=True)
class Discounts:
    """Fractions off the price (0.28 is 28% off): ``families`` by instance family (the type name
    before the first dot), ``overall`` for every other type. ``source``: the file they came from."""

    overall: float = 0.0
    families: Mapping[str, float] = field(default_factory=dict)
    source: str = ""

    def rate(self, instance_type: str | None) -> float:
        family = (instance_type or "").split(".", 1)[0]
        return self.families.get(family, self.overall)

    def apply(self, price: float, instance_type: str | None) -> float:
        return price * (1.0 - self.rate(instance_type))

    def describe(self) -> str:
        """``10% overall, m5 28%, c6i 20%`` — what a marked figure is after."""
        parts = [f"{_percent(self.overall)} overall"] if self.overall else []
        parts += [f"{family} {_percent(rate)}" for family, rate in sorted(self.families.items())]
        return ", ".join(parts) or "none"

    def to_dict(self) -> dict:
        return {"file": self.source, "overall": self.overall, "families": dict(sorted(self.families.items()))}


def _percent(rate: float) -> str:
    return f"{rate * 100:g}%"


def default_discounts_path() -> Path:
    """``discounts.yaml`` in karptui's config dir (``$XDG_CONFIG_HOME/karptui``, ``~/.config/karptui``)."""
    return config_dir() / DISCOUNTS_FILE


def find_discounts(path: str | Path | None) -> Discounts | None:
    """``--discounts FILE`` when given (it must exist), else the default file when there is one."""
    if path is not None:
        return load_discounts(path)
    default = default_discounts_path()
    return load_discounts(default) if default.is_file() else None


def load_discounts(path: str | Path) -> Discounts:
    """The discounts in a YAML (or JSON) file; one :class:`InputError` line naming the file and the field."""
    from ..sources.yaml_load import load  # the YAML parser only when there is a file to read

    document = load(read_text(path, small=True), str(path))
    return parse_discounts(document, str(path))


def parse_discounts(document: object, source: str = "") -> Discounts:
    if not isinstance(document, Mapping) or not isinstance(document.get("discounts"), Mapping):
        raise InputError(source or None, "expected a map with a discounts map (overall, families)")
    body = document["discounts"]
    unknown = sorted(set(map(str, body)) - {"overall", "families"})
    if unknown:
        raise InputError(source or None, f"discounts: unknown field {unknown[0]!r} (known: overall, families)")
    overall = _rate(body.get("overall", 0), "discounts.overall", source)
    families = body.get("families") or {}
    if not isinstance(families, Mapping):
        raise InputError(source or None, "discounts.families: expected a map of instance family to discount")
    rates = {}
    for family, value in families.items():
        if not isinstance(family, str) or not _FAMILY.fullmatch(family):
            raise InputError(source or None, f"discounts.families: {family!r} is not an instance family "
                                             "(lowercase letters, digits and '-', like m5, c6i or u-6tb1)")
        rates[family] = _rate(value, f"discounts.families.{family}", source)
    return Discounts(overall, rates, source)


def _rate(value: object, where: str, source: str) -> float:
    """A fraction in [0, 1): ``0.28`` or ``"28%"``."""
    rate: float | None = None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        rate = float(value)
    elif isinstance(value, str) and (match := _PERCENT.fullmatch(value)):
        rate = float(match.group(1)) / 100
    if rate is None or not 0 <= rate < 1:
        raise InputError(source or None, f"{where}: {value!r} is not a discount (a fraction from 0 up to 1, "
                                         "like 0.28, or a percentage like \"28%\")")
    return rate
