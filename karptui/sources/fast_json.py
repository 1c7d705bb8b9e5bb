"""One JSON document decoded by orjson, with the stdlib as the judge of what orjson refuses.

orjson decodes an API server's list page faster than the stdlib and builds the same dicts,
lists, strings and numbers, with two exceptions: it refuses a few documents the stdlib takes
(NaN, an overflowing float, a lone surrogate escape), and it turns an integer past 64 bits
into a float where the stdlib keeps the integer. The first are handed to the stdlib; so is
any document with a run of 19 digits (where such an integer could be; a string holding one
only costs the slower decoder). What decodes, and what it decodes to, is what ``json.loads`` says.
"""

from __future__ import annotations

import json
import re
from typing import Any

try:
    from orjson import JSONDecodeError as _FastError
    from orjson import loads as _fast_loads
except ImportError:  # pragma: no cover - a platform without an orjson wheel
    _fast_loads, _FastError = json.loads, ValueError


_LONG_NUMBER = re.compile(rb"[0-9]{19}")


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """The JSON value in ``data``; ValueError (the stdlib's) when it is not one JSON document."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    if _LONG_NUMBER.search(raw) is None:
        try:
            return _fast_loads(raw)
        except (_FastError, RecursionError):
            pass
    if isinstance(data, memoryview):
        data = bytes(data)
    return json.loads(data)
