"""The stdio wire of ``karptui mcp``, bounded: every request line is read to at most
:data:`karptui.limits.MAX_MCP_REQUEST_BYTES`, and a line the server cannot take is answered.

The SDK's stdio transport reads each line whole, however long (a client, or anything writing to
the server's stdin, could send gigabytes before the first newline), and a line it cannot parse
(not JSON, nested deeper than its JSON parser goes, not a JSON-RPC message) is dropped without
a reply: the client then waits for its answer forever. Here a line is read in chunks and only
its first and last :data:`KEEP` bytes are kept once it passes the cap; a line refused, for its
size or its shape, is answered at once with one line naming what is wrong -- for ``tools/call``
as the tool's error result (as every other bad input is), for another request as a JSON-RPC
error -- and the next line is read as usual.

The request's ``id`` (and, for a tool call, the tool's name) is found without parsing the line:
:func:`envelope` walks the top-level object member by member, skipping each value by counting
brackets outside strings, never recursing, so a megabyte of nesting costs one linear pass.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from .. import limits
from ..sources.decode import size_text

#: Bytes of a refused line kept at each end, where a JSON-RPC request's id and method are.
KEEP = 64 << 10
#: Bytes read from stdin at a time.
CHUNK = 1 << 20
#: JSON-RPC 2.0's error codes for a line that is not JSON, and for JSON that is not a request.
PARSE_ERROR, INVALID_REQUEST = -32700, -32600
#: An id longer than this is not echoed back (JSON-RPC ids are numbers or short strings).
MAX_ID = 256

_SCALAR = re.compile(r'-?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?|true|false|null')
_STRUCTURE = re.compile(r'["{}\[\]]')
_STRING_END = re.compile(r'["\\]')
_SPACE = re.compile(r'\s*')
_TAIL_ID = re.compile(r'"id"\s*:\s*(-?\d+|"(?:[^"\\]|\\.){0,256}")\s*\}\s*$')


@dataclass(frozen=True)
class Refused:
    """A line the server does not read: what is wrong, in one line, and whom to tell."""

    why: str
    id: int | str | None
    method: str | None
    tool: str | None
    code: int

    def reply(self) -> dict | None:
        """The JSON-RPC message answering the line (``None``: a notification, answered by no one)."""
        if self.id is None and self.method is not None:
            return None
        if self.method == "tools/call" and self.id is not None:
            text = f"Error executing tool {self.tool}: {self.why}" if self.tool else self.why
            return {"jsonrpc": "2.0", "id": self.id,
                    "result": {"content": [{"type": "text", "text": text}], "isError": True}}
        return {"jsonrpc": "2.0", "id": self.id, "error": {"code": self.code, "message": self.why}}


def refuse(head: str, tail: str, why: str, code: int) -> Refused:
    """``why``, addressed to the request ``head`` (the line's start) and ``tail`` (its end) carry."""
    found = envelope(head)
    ident = found.get("id")
    if ident is None and tail:
        match = _TAIL_ID.search(tail)
        if match:
            ident = _small(match.group(1))
    method = found.get("method")
    return Refused(why, ident if isinstance(ident, (int, str)) and not isinstance(ident, bool) else None,
                   method if isinstance(method, str) else None,
                   found.get("name") if isinstance(found.get("name"), str) else None, code)


def envelope(text: str) -> dict:
    """The ``id``, ``method`` and ``params.name`` of the JSON-RPC object ``text`` starts with, as
    far as ``text`` holds them whole: a member whose value runs past its end is not there."""
    found: dict = {}
    for key, start, end in _members(text, 0):
        if key in ("id", "method") and end is not None:
            found[key] = _small(text[start:end])
        elif key == "params" and text[start:start + 1] == "{":
            for inner, s, e in _members(text, start):
                if inner == "name" and e is not None:
                    found["name"] = _small(text[s:e])
    return found


def _members(text: str, pos: int):
    """``(key, value start, value end)`` of each member of the object at ``pos``; the end is None
    for a value the text cuts. Stops at the object's end, the text's end, or anything not JSON."""
    pos = _SPACE.match(text, pos).end()
    if text[pos:pos + 1] != "{":
        return
    pos += 1
    while True:
        pos = _SPACE.match(text, pos).end()
        if text[pos:pos + 1] != '"':
            return
        key_end = _string_end(text, pos)
        if key_end is None:
            return
        key = _small(text[pos:key_end])
        pos = _SPACE.match(text, key_end).end()
        if text[pos:pos + 1] != ":":
            return
        start = _SPACE.match(text, pos + 1).end()
        end = _value_end(text, start)
        yield key, start, end
        if end is None:
            return
        pos = _SPACE.match(text, end).end()
        if text[pos:pos + 1] != ",":
            return
        pos += 1


def _string_end(text: str, pos: int) -> int | None:
    """The index after the string starting at ``pos`` (a quote), or None when the text cuts it."""
    pos += 1
    while True:
        match = _STRING_END.search(text, pos)
        if match is None:
            return None
        if match.group() == '"':
            return match.end()
        pos = match.end() + 1  # a backslash and the character it escapes


def _value_end(text: str, pos: int) -> int | None:
    """The index after the JSON value at ``pos``: strings and scalars read, objects and arrays
    skipped by counting their brackets outside strings (no recursion, however deep)."""
    first = text[pos:pos + 1]
    if first == '"':
        return _string_end(text, pos)
    if first not in ("{", "["):
        match = _SCALAR.match(text, pos)
        return match.end() if match and match.end() < len(text) else None
    depth = 0
    while True:
        match = _STRUCTURE.search(text, pos)
        if match is None:
            return None
        char = match.group()
        if char == '"':
            end = _string_end(text, match.start())
            if end is None:
                return None
            pos = end
            continue
        depth += 1 if char in "{[" else -1
        pos = match.end()
        if depth == 0:
            return pos


def _small(raw: str):
    """A short JSON value decoded; None for a long one or one that does not decode."""
    if len(raw) > MAX_ID + 2:
        return None
    try:
        return json.loads(raw)
    except ValueError:
        return None


async def bounded_lines(read: Callable[[int], Awaitable[bytes]], refused: Callable[[Refused], Awaitable[None]],
                        most: int = limits.MAX_MCP_REQUEST_BYTES) -> AsyncIterator[str]:
    """The lines ``read`` (up to n bytes a call; ``b""`` at the end) brings, each one whole when at
    most ``most`` bytes; a longer one is passed to ``refused`` and not yielded. Each byte is looked
    at once (a line's chunks are joined when it ends), so a long line costs its length, not more."""
    parts: list[bytes] = []   # the line so far, newline not yet seen
    size = 0
    head = tail = b""         # its ends, once it is too long to keep
    while True:
        chunk = await read(CHUNK)
        if not chunk:
            if size > most:
                await refused(_too_long(head, tail, size, most))
            elif b"".join(parts).strip():
                yield b"".join(parts).decode("utf-8", "replace")
            return
        start = 0
        while True:
            cut = chunk.find(b"\n", start)
            piece = chunk[start:] if cut < 0 else chunk[start:cut]
            if size + len(piece) > most and size <= most:   # the line passes the cap: from now, its ends only
                whole = b"".join(parts) + piece
                head, tail, parts = whole[:KEEP], whole[-KEEP:], []
            elif size > most:
                tail = (tail + piece)[-KEEP:]
            else:
                parts.append(piece)
            size += len(piece)
            if cut < 0:
                break
            if size > most:
                await refused(_too_long(head, tail, size, most))
            else:
                line = b"".join(parts)
                if line.strip():
                    yield line.decode("utf-8", "replace")
            parts, size, head, tail = [], 0, b"", b""
            start = cut + 1


def _too_long(head: bytes, tail: bytes, size: int, most: int) -> Refused:
    return refuse(head.decode("utf-8", "replace"), tail.decode("utf-8", "replace"), too_long(size, most),
                  INVALID_REQUEST)


def too_long(size: int, most: int) -> str:
    return (f"request: {size:,} bytes, more than the {size_text(most)} karptui reads of one request "
            "(the cap on a what-if file)")


def not_a_request(error: Exception) -> tuple[str, int]:
    """Why the SDK's parser (a pydantic ValidationError) refused a line, in one line, and the
    JSON-RPC code for it."""
    errors = error.errors() if hasattr(error, "errors") else []
    syntax = next((e["msg"] for e in errors if e.get("type") == "json_invalid"), None)
    if syntax and "recursion limit exceeded" in syntax:
        return (f"request: nested deeper than the {JSON_DEPTH} levels the JSON-RPC parser reads (a what-if "
                "given as an object nests less, the request's own levels counted)"), PARSE_ERROR
    if syntax or not errors:
        said = (syntax or str(error) or type(error).__name__).removeprefix("Invalid JSON: ")
        return f"request: not JSON ({said[:200]})", PARSE_ERROR
    return "request: not a JSON-RPC 2.0 message (jsonrpc, id, method, params)", INVALID_REQUEST


def _json_depth() -> int:
    """How deep pydantic-core's JSON parser (the SDK's) nests before it gives up: found, not assumed."""
    import pydantic_core

    low, high = 1, 4096
    while low < high:
        mid = (low + high + 1) // 2
        try:
            pydantic_core.from_json("[" * mid + "0" + "]" * mid)
            low = mid
        except ValueError:
            high = mid - 1
    return low


#: Levels of nesting the SDK's JSON-RPC parser reads (200 with pydantic-core 2).
JSON_DEPTH = _json_depth()


def stdin_private() -> int:
    """A private copy of fd 0 to read requests from, fd 0 itself pointed at the null device, as
    the SDK's own transport does: a child process (a kubeconfig's credential plugin) reads EOF
    rather than a request."""
    private = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    try:
        os.dup2(null, 0)
    finally:
        os.close(null)
    return private
