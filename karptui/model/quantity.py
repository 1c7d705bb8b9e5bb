"""Kubernetes resource quantities, parsed once into integers.

CPU becomes millicores and everything else (bytes, pods, GPUs) whole units,
both rounded up exactly as Kubernetes' ``MilliValue()`` / ``Value()`` do, so
later arithmetic is plain integer maths. Parsing is memoised: a cluster repeats
the same few hundred strings ("100m", "256Mi") across tens of thousands of pods.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from functools import lru_cache

from .errors import ModelError

_BINARY = {"Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_DECIMAL = {
    "n": Fraction(1, 10**9), "u": Fraction(1, 10**6), "m": Fraction(1, 1000), "": Fraction(1),
    "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
}
# Kubernetes' grammar: signed number, then a binary-SI, decimal-SI or e<exp> suffix.
_QUANTITY = re.compile(
    r"^([+-]?)(\d+\.?\d*|\.\d+)(?:(Ki|Mi|Gi|Ti|Pi|Ei|[numkMGTPE])|[eE]([+-]?\d+))?$"
)


def parse_quantity(value: str | int | float) -> Fraction:
    """The exact value of a quantity such as ``"1.5Gi"``, ``"100m"`` or ``"2e3"``."""
    if isinstance(value, bool):
        raise ModelError(f"{value!r} is not a quantity")
    if isinstance(value, int):
        return Fraction(value)
    if isinstance(value, float):
        if not math.isfinite(value):
            raise ModelError(f"{value!r} is not a quantity")
        return Fraction(str(value))
    if not isinstance(value, str):
        raise ModelError(f"{value!r} is not a quantity")
    return _parse_text(value)


@lru_cache(maxsize=8192)
def _parse_text(text: str) -> Fraction:
    match = _QUANTITY.match(text.strip())
    if match is None:
        raise ModelError(f"{text!r} is not a quantity")
    sign, number, suffix, exponent = match.groups()
    magnitude = Fraction(number)
    if exponent is not None:
        if abs(int(exponent)) > 60:
            raise ModelError(f"{text!r} is out of range")
        magnitude *= Fraction(10) ** int(exponent)
    elif suffix:
        magnitude *= _BINARY.get(suffix) or _DECIMAL[suffix]
    return -magnitude if sign == "-" else magnitude


#: The API caps every quantity at int64 ("numbers larger ... will be capped"); karptui's
#: integers (millicores for CPU, units for the rest) are capped the same way, so the
#: simulator's int64 arrays always hold them.
MAX_AMOUNT = 2**63 - 1


def capped(amount: int) -> int:
    """``amount`` held within the int64 bound quantities are capped at."""
    return max(-MAX_AMOUNT, min(MAX_AMOUNT, amount))


@lru_cache(maxsize=8192)
def _millis_cached(value: str | int | float) -> int:
    return capped(math.ceil(parse_quantity(value) * 1000))


@lru_cache(maxsize=8192)
def _units_cached(value: str | int | float) -> int:
    return capped(math.ceil(parse_quantity(value)))


def to_millis(value: str | int | float) -> int:
    """Millicores (or milli-units), rounded up: ``"1.5"`` -> 1500, ``"100m"`` -> 100."""
    if isinstance(value, bool):  # True == 1 would otherwise hit the cache
        raise ModelError(f"{value!r} is not a quantity")
    try:
        return _millis_cached(value)
    except TypeError:  # unhashable input such as a list
        raise ModelError(f"{value!r} is not a quantity") from None


def to_units(value: str | int | float) -> int:
    """Whole units (bytes, pods, devices), rounded up: ``"1Ki"`` -> 1024."""
    if isinstance(value, bool):
        raise ModelError(f"{value!r} is not a quantity")
    try:
        return _units_cached(value)
    except TypeError:
        raise ModelError(f"{value!r} is not a quantity") from None


def format_millis(millis: int) -> str:
    """Canonical CPU text: whole cores as ``"2"``, the rest as ``"1500m"``."""
    return str(millis // 1000) if millis % 1000 == 0 else f"{millis}m"


def format_bytes(count: int) -> str:
    """Canonical byte text: the shortest exact form, binary suffixes winning ties.

    ``268435456`` -> ``"256Mi"``, ``256000000`` -> ``"256M"``, ``1000`` -> ``"1k"``.
    """
    if count == 0:
        return "0"
    forms = [str(count)]
    for suffix, size in list(_BINARY.items()) + [(s, v) for s, v in _DECIMAL.items() if v > 1]:
        if count % size == 0:
            forms.append(f"{count // size}{suffix}")
    return min(forms, key=lambda text: (len(text), not text.endswith("i")))


def human_bytes(count: int) -> str:
    """Short, rounded byte text for tables: ``"1.5Gi"``, ``"512Mi"``."""
    for suffix, size in reversed(_BINARY.items()):
        if abs(count) >= size:
            scaled = count / size
            return f"{scaled:.1f}{suffix}".replace(".0" + suffix, suffix)
    return str(count)
