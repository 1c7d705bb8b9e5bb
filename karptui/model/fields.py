"""Small readers for Kubernetes JSON dicts that fail with a field path.

Every model builder reads through these so that a wrong type anywhere becomes
one :class:`ModelError` naming the field, never a bare ``TypeError``.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from datetime import datetime
from typing import TypeVar

from .errors import ModelError

_NONE: dict = {}
T = TypeVar("T")
_MEMO_LIMIT = 4096
INT32_MAX = 2**31 - 1
#: Go's time.Duration is int64 nanoseconds: about 292 years.
MAX_DURATION_SECONDS = (2**63 - 1) / 1e9
_DURATION_PART = re.compile(r"([0-9]+\.?[0-9]*|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)")
_DURATION_UNITS = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "μs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


_UNUSUAL = (KeyError, TypeError, AttributeError, ValueError, RecursionError)
#: What :meth:`Memo.find` returns when it holds nothing for the parts asked about.
MISS = object()


class Memo:
    """Answers remembered by the JSON-shaped parts they depend on, a bounded number of them.

    The key is the parts' JSON text (orjson: several times faster than ``repr``, and it tells
    1, 1.0, true and "1" apart); a hit also needs the parts to be equal, which tells apart what
    that text does not (NaN and null are both ``null``). Parts that cannot be written as JSON
    (a datetime YAML made, a 70-digit integer), or a ``parts`` function that raises, mean
    "unusual": :meth:`key` says None and the caller parses unshared, naming any bad field itself.
    The least recently used answer goes first when the memo is full.
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[bytes | str, tuple[object, object]] = {}

    @staticmethod
    def key(parts: Callable[[object], object], raw: object) -> tuple[bytes | str, object] | None:
        """``(key, parts(raw))``, or None where ``raw`` is unusual."""
        try:
            key_parts = parts(raw)
            return _json_key(key_parts), key_parts
        except _UNUSUAL:
            return None

    def find(self, key: bytes | str, key_parts: object) -> object:
        """The answer kept for these parts, or :data:`MISS`."""
        entry = self._entries.pop(key, None)  # re-inserted: least recently used goes first
        if entry is None:
            return MISS
        self._entries[key] = entry
        return entry[1] if entry[0] == key_parts else MISS

    def keep(self, key: bytes | str, key_parts: object, value: object) -> None:
        entries = self._entries
        if entries.pop(key, None) is None and len(entries) >= _MEMO_LIMIT:
            del entries[next(iter(entries))]
        entries[key] = (key_parts, value)


def shared(parse: Callable[[object], T], parts: Callable[[object], object] = lambda raw: raw) -> Callable[[object], T]:
    """Memoise a parser by the JSON-shaped ``parts(raw)`` its answer depends on (all of ``raw`` by default).

    Replicas of one workload carry identical affinity, tolerations, spread
    constraints and resource stanzas; parsing each distinct block once and
    sharing the frozen result saves time and memory on large clusters. What is
    shared and when is :class:`Memo`'s rule; an unusual ``raw`` is parsed unshared.
    """
    memo = Memo()

    def parse_shared(raw: object) -> T:
        if not raw:
            return parse(raw)
        keyed = memo.key(parts, raw)
        if keyed is None:
            return parse(raw)
        found = memo.find(*keyed)
        if found is MISS:
            found = parse(raw)
            memo.keep(*keyed, found)
        return found  # type: ignore[return-value]

    return parse_shared


def _json_key(parts: object) -> bytes | str:
    """The memo key of :func:`shared`: the JSON text of ``parts``; TypeError for what JSON cannot hold."""
    return _dumps(parts, option=_PASSTHROUGH_DATETIME)


try:
    from orjson import OPT_PASSTHROUGH_DATETIME as _PASSTHROUGH_DATETIME
    from orjson import dumps as _dumps
except ImportError:  # pragma: no cover - a platform without an orjson wheel: repr tells values apart too
    _PASSTHROUGH_DATETIME = 0

    def _dumps(parts: object, option: int = 0) -> str:
        return repr(parts)


def as_map(value: object, where: str) -> Mapping:
    """A mapping, or empty for null; anything else is an error."""
    if type(value) is dict:  # the common case, without an ABC isinstance check
        return value
    if value is None:
        return _NONE
    if not isinstance(value, Mapping):
        raise ModelError(f"{where}: expected an object, got {type(value).__name__}")
    return value


def as_list(value: object, where: str) -> list:
    """A list, or empty for null."""
    if type(value) is list:
        return value
    if value is None:
        return []
    if not isinstance(value, list):
        raise ModelError(f"{where}: expected a list, got {type(value).__name__}")
    return value


def as_str(value: object, where: str, default: str = "") -> str:
    """A string; numbers and booleans are accepted as YAML often types them."""
    if type(value) is str:
        return value
    if value is None:
        return default
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return str(value)
    raise ModelError(f"{where}: expected a string, got {type(value).__name__}")


def as_int(value: object, where: str, default: int | None = None) -> int | None:
    """An integer (JSON numbers, or digit strings as YAML sometimes quotes them)."""
    if value is None:
        return default
    if isinstance(value, bool):
        raise ModelError(f"{where}: expected an integer, got a boolean")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str) and value.strip().lstrip("+-").isdigit():
        return int(value)
    raise ModelError(f"{where}: expected an integer, got {value!r}")


def as_int32(value: object, where: str, default: int | None = None) -> int | None:
    """An integer the API stores as int32 (priority, PriorityClass value): past it, the API refuses."""
    number = as_int(value, where, default)
    if number is not None and not -INT32_MAX - 1 <= number <= INT32_MAX:
        raise ModelError(f"{where}: {value!r} is out of range (a 32-bit integer; the API refuses it)")
    return number


def as_str_map(value: object, where: str) -> dict[str, str]:
    """Labels, annotations, nodeSelector: string -> string.

    Already-clean JSON maps are returned as they are (the loader never mutates
    them), which saves a copy per object on 50,000-pod clusters.
    """
    raw = as_map(value, where)
    for v in raw.values():  # a loop, not all(generator): asked of every object's labels and annotations
        if type(v) is not str:
            break
    else:
        return raw  # type: ignore[return-value]  (keys: JSON's are strings; a YAML oddity never matches)
    return {str(k): as_str(v, f"{where}.{k}") for k, v in raw.items()}


def as_str_list(value: object, where: str) -> tuple[str, ...]:
    items = as_list(value, where)
    for v in items:
        if type(v) is not str:
            break
    else:
        return tuple(items)
    return tuple(as_str(v, f"{where}[{i}]") for i, v in enumerate(items))


def parse_time(value: object, where: str) -> datetime | None:
    """RFC 3339 timestamps as the API server writes them (``...Z``)."""
    if type(value) is str and value:
        return _parse_iso(value, where)
    if value in (None, ""):
        return None
    if isinstance(value, datetime):  # PyYAML turns unquoted timestamps into datetimes
        return _aware(value, value.isoformat(), where)
    if not isinstance(value, str):
        raise ModelError(f"{where}: expected a timestamp, got {type(value).__name__}")
    return _parse_iso(value, where)


# Timestamps read before: a cluster's objects share them (pods of one rollout, a node's conditions),
# and three are read per pod. Bounded; cleared when full. Only times that parsed are kept.
_TIMES: dict[str, datetime] = {}


def _parse_iso(value: str, where: str) -> datetime:
    found = _TIMES.get(value)
    if found is not None:
        return found
    try:
        stamp = datetime.fromisoformat(value)
    except ValueError:
        raise ModelError(f"{where}: {value!r} is not an RFC 3339 time") from None
    stamp = _aware(stamp, value, where)
    if len(_TIMES) >= _MEMO_LIMIT:
        _TIMES.clear()
    _TIMES[value] = stamp
    return stamp


def _aware(stamp: datetime, text: str, where: str) -> datetime:
    """RFC 3339 times carry a zone; the API refuses one without, and karptui compares them all."""
    if stamp.tzinfo is None:
        raise ModelError(f"{where}: {text!r} has no time zone (RFC 3339 needs one, e.g. Z)")
    return stamp


def parse_duration(value: object, where: str) -> float | None:
    """A Go duration ("720h", "30s", "1h30m") in seconds; ``None`` for "Never"."""
    if value is None or value == "Never":
        return None
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        # seconds; inf, NaN and 400-digit numbers stopped the program where they were converted
        if not -MAX_DURATION_SECONDS <= value <= MAX_DURATION_SECONDS:   # False for NaN too
            shown = repr(value) if len(repr(value)) <= 24 else f"a {len(str(value))}-digit number"
            raise ModelError(f"{where}: {shown} is not a duration (a number of seconds up to Go's 292 years)")
        return float(value)
    text = as_str(value, where)
    if text == "0":
        return 0.0
    total, pos = 0.0, 0
    for part in _DURATION_PART.finditer(text):  # Go's grammar: ([0-9]*(\.[0-9]*)?unit)+
        if part.start() != pos:
            break
        total += float(part.group(1)) * _DURATION_UNITS[part.group(2)]
        pos = part.end()
    if pos != len(text) or not text:
        missing = " (missing unit)" if text and text[-1].isdigit() else ""
        raise ModelError(f"{where}: {text!r} is not a duration{missing}")
    if total > MAX_DURATION_SECONDS:  # Go's ParseDuration refuses it as an overflow
        raise ModelError(f"{where}: {text!r} is not a duration (longer than Go's 292 years)")
    return total


def as_bool_field(value: object, where: str, default: bool = False) -> bool:
    """A boolean; YAML's "true"/"false" strings are accepted."""
    if value is None:
        return default
    if isinstance(value, bool):
        return value
    if isinstance(value, str) and value.lower() in ("true", "false"):
        return value.lower() == "true"
    raise ModelError(f"{where}: expected true or false, got {value!r}")
