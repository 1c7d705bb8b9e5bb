"""Resource lists (requests, allocatable, limits) as integers.

``cpu`` is held in millicores; every other resource in whole units (bytes for
memory, ephemeral-storage and hugepages; a count for pods and extended
resources such as ``nvidia.com/gpu``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from .errors import ModelError
from .fields import shared
from .quantity import MAX_AMOUNT, capped, format_bytes, format_millis, to_millis, to_units

CPU = "cpu"
MEMORY = "memory"
PODS = "pods"
EPHEMERAL_STORAGE = "ephemeral-storage"
_BYTE_RESOURCES = (MEMORY, EPHEMERAL_STORAGE)


def _is_bytes(name: str) -> bool:
    return name in _BYTE_RESOURCES or name.startswith("hugepages-")


class Resources(Mapping[str, int]):
    """An immutable resource list: name -> integer amount.

    Absent names read as zero through :meth:`get`, which is what scheduling
    arithmetic wants ("requests no GPUs" and "requests 0 GPUs" are the same).
    """

    __slots__ = ("_amounts", "_hash")   # _hash: set when first asked (see __hash__)

    def __init__(self, amounts: Mapping[str, int] | None = None) -> None:
        self._amounts: dict[str, int] = dict(amounts) if amounts else {}

    @classmethod
    def parse(cls, raw: object, where: str = "resources") -> Resources:
        """Build from a Kubernetes ResourceList such as ``{"cpu": "500m"}``."""
        if not raw:
            return EMPTY
        if not isinstance(raw, Mapping):
            raise ModelError(f"{where}: expected a map of quantities, got {type(raw).__name__}")
        amounts = {}
        for name, value in raw.items():
            try:
                amounts[str(name)] = to_millis(value) if name == CPU else to_units(value)
            except ModelError as exc:
                raise ModelError(f"{where}.{name}: {exc}") from None
        return cls(amounts)

    def __getitem__(self, name: str) -> int:
        return self._amounts[name]

    def get(self, name: str, default=None):  # the hot path: skip Mapping's generic get
        return self._amounts.get(name, default)

    def __iter__(self) -> Iterator[str]:
        return iter(self._amounts)

    def items(self):  # the Mapping mixin's view looks every name up again; sums run per pod per NodeClaim
        return self._amounts.items()

    def values(self):
        return self._amounts.values()

    def __len__(self) -> int:
        return len(self._amounts)

    def __repr__(self) -> str:
        return f"Resources({self.to_quantities()!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, Resources) and self._amounts == other._amounts:
            return True  # the same amounts by name (the usual case: a dict lookup found its key)
        if isinstance(other, Mapping):
            names = set(self) | set(other)
            return all(self.get(n, 0) == other.get(n, 0) for n in names)
        return NotImplemented

    def __hash__(self) -> int:
        """Kept once worked out (the amounts never change): pod signatures and the scheduler's
        answers kept per pod size hash the same requests again for every pod and try."""
        try:
            return self._hash
        except AttributeError:  # not asked yet (or unpickled without it)
            found = self._hash = hash(frozenset((n, v) for n, v in self._amounts.items() if v))
            return found

    # Sums and differences saturate at the int64 bound quantities are capped at, so a
    # value near it (the API caps "100Ei" there) never overflows the simulator's arrays.
    def __add__(self, other: Mapping[str, int]) -> Resources:
        merged = dict(self._amounts)
        for name, value in other.items():
            total = merged.get(name, 0) + value
            merged[name] = total if -MAX_AMOUNT <= total <= MAX_AMOUNT else capped(total)
        return Resources(merged)

    def __sub__(self, other: Mapping[str, int]) -> Resources:
        merged = dict(self._amounts)
        for name, value in other.items():
            total = merged.get(name, 0) - value
            merged[name] = total if -MAX_AMOUNT <= total <= MAX_AMOUNT else capped(total)
        return Resources(merged)

    def max(self, other: Mapping[str, int]) -> Resources:
        """Per-resource maximum, the rule for init containers."""
        merged = dict(self._amounts)
        for name, value in other.items():
            if value > merged.get(name, 0):
                merged[name] = value
        return Resources(merged)

    def override(self, other: Mapping[str, int]) -> Resources:
        """These amounts with ``other``'s names replacing ours (pod-level resources)."""
        return Resources({**self._amounts, **other}) if other else self

    def exceeding(self, capacity: Mapping[str, int]) -> list[str]:
        """Names whose amount is above ``capacity`` (a missing name has zero)."""
        return [n for n, v in self._amounts.items() if v > 0 and v > capacity.get(n, 0)]

    def to_quantities(self) -> dict[str, str]:
        """Canonical Kubernetes quantity strings, for output and saving."""
        return {name: format_quantity(name, value) for name, value in self._amounts.items()}


def format_quantity(name: str, value: int) -> str:
    """One amount back in Kubernetes' canonical text."""
    if name == CPU:
        return format_millis(value)
    if _is_bytes(name):
        return format_bytes(value)
    return str(value)


EMPTY = Resources()


def shared_parse(where: str) -> Callable[[object], Resources]:
    """:meth:`Resources.parse` of one field, remembered by what is written (:func:`.fields.shared`):
    the nodes and NodeClaims of one instance type list the same capacity and allocatable, read once."""
    return shared(lambda raw: Resources.parse(raw, where))
