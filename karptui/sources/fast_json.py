"""One JSON document decoded by orjson, with the stdlib as the judge of what orjson refuses.

orjson decodes an API server's list page faster than the stdlib and builds the same dicts,
lists, strings and numbers, with two exceptions: it refuses a few documents the stdlib takes
(NaN, an overflowing float, a lone surrogate escape), and it turns an integer past 64 bits
into a float where the stdlib keeps the integer. The first are handed to the stdlib; so is
any document with a run of 19 digits that may belong to a number (:func:`long_number_runs`;
a string holding one, as Karpenter's hash annotations do, is left to orjson). What decodes,
and what it decodes to, is what ``json.loads`` says.
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
# Digits masked to "0", so a run of 19 digits is a run of 19 zeros, found by str.find / bytes.find
# (ten times faster than the regular expression above over a large list).
_ZEROS_TEXT = str.maketrans("123456789", "0" * 9)
_ZEROS_BYTES = bytes.maketrans(b"123456789", b"0" * 9)
_RUN = 19
_CHUNK = 8 << 20
# The characters a digit run of a JSON number may follow: what precedes a value (":", "[", ",",
# whitespace), a sign, the fraction's point, the exponent's letter. A run after anything else
# (a quote, a letter, a slash) is inside a string.
_NUMBER_CONTEXT = frozenset(':[, \t\n\r-+.eE')
_NUMBER_CONTEXT_BYTES = frozenset(b':[, \t\n\r-+.eE')

# What :func:`fast_loads` returns when orjson is not the judge of ``data`` (the stdlib is).
NOT_FAST = object()


def long_number_runs(data: bytes | bytearray | memoryview | str, first: bool = False) -> list[int]:
    """Where ``data`` has a run of 19 digits that may be (part of) a number, in order: where orjson
    could round an integer past 64 bits (2**63 has 19 digits). A run inside a string (a quote or a
    letter before it) cannot be a number; a run preceded by a digit is the tail of one already
    found. ``first``: stop at the first. Masked a few MB at a time, so a whole file's text is
    never copied at once."""
    if isinstance(data, memoryview):
        found = _LONG_NUMBER.search(data)
        return [found.start()] if found else []
    if isinstance(data, str):
        zeros, context, run = _ZEROS_TEXT, _NUMBER_CONTEXT, "0" * _RUN
    else:
        zeros, context, run = _ZEROS_BYTES, _NUMBER_CONTEXT_BYTES, b"0" * _RUN
    starts: list[int] = []
    for chunk in range(0, len(data), _CHUNK):
        # a run starting in this chunk has its first 19 digits within it and the next 18 characters
        masked = data[chunk:chunk + _CHUNK + _RUN - 1].translate(zeros)
        at = masked.find(run)
        while at >= 0 and at < _CHUNK:
            where = chunk + at
            if where == 0 or data[where - 1] in context:
                starts.append(where)
                if first:
                    return starts
            at = masked.find(run, at + _RUN)
    return starts


def fast_loads(data: bytes | bytearray | memoryview | str) -> Any:
    """orjson's value for ``data`` where it is certainly the stdlib's, else :data:`NOT_FAST` (orjson
    refused it, or it may hold an integer orjson would round): the caller then asks the stdlib,
    which decides, and refuses what is not JSON."""
    if long_number_runs(data, first=True):
        return NOT_FAST
    return orjson_or_not(data)


def orjson_or_not(data: bytes | bytearray | memoryview | str) -> Any:
    """:func:`fast_loads` for ``data`` its caller knows to hold no :func:`long_number_runs` (a piece of
    a text searched whole). Text is handed to orjson as it is (it reads an ASCII str's UTF-8 without
    a copy); one that cannot be UTF-8 (a lone surrogate) is refused, and so goes to the stdlib."""
    try:
        return _fast_loads(data)
    except (_FastError, RecursionError):
        return NOT_FAST


def loads(data: bytes | bytearray | memoryview | str) -> Any:
    """The JSON value in ``data``; ValueError (the stdlib's) when it is not one JSON document."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    value = fast_loads(raw)
    if value is not NOT_FAST:
        return value
    if isinstance(data, memoryview):
        data = bytes(data)
    return json.loads(data)
