"""The size cap on a tool's answer: an MCP client hands the whole answer to a model, whose context
is bounded, so a 5,000-node cluster's ``simulate --explain`` document (tens of MB) must be cut, and
say it was cut, rather than arrive whole or not at all.

The document is cut where it is long: the biggest list (or map keyed by data, such as a pod's
``filters`` over every node) loses its second half, again and again until the JSON fits. Lists of
two or more items go first, so a cut keeps whole records (a pod's entry, a node's verdicts) as long
as it can; only a tight cap cuts into the one record left. What was cut is said in ``truncated:
true`` and ``left_out``: each cut list's place in the document as a JSON Pointer (RFC 6901, e.g.
``/nodes`` or ``/pods/0/filters``), how many items it kept and how many it had.
"""

from __future__ import annotations

import json

#: Bytes of one tool answer, unless ``karptui mcp --max-output`` says otherwise.
DEFAULT_MAX_OUTPUT = 256 << 10
#: The smallest cap accepted: room for a cut answer's ``left_out`` list.
MIN_MAX_OUTPUT = 4 << 10
#: A map with this many keys or more is data (node -> reasons), not a record, and may be cut.
MAP_KEYS = 32


def capped(doc: dict, limit: int) -> str:
    """``doc`` as the command line prints it (:func:`json_text`), cut to ``limit`` bytes if longer."""
    from ..cli.output import json_text  # here: the command line's parser reads this module's default

    text = json_text(doc)
    if len(text.encode("utf-8")) <= limit:
        return text
    cut = json.loads(text)   # a copy to cut; the caller's document (maybe cached) is left whole
    left_out: dict[str, dict] = {}
    while True:
        cut["truncated"] = True
        cut["left_out"] = list(left_out.values())
        text = json_text(cut)
        if len(text.encode("utf-8")) <= limit:
            return text
        place = _biggest(cut)
        if place is None:   # nothing left to cut but the record itself: say so and nothing else
            return json_text({"truncated": True, "left_out": [{"path": "", "kept": 0, "of": 1}],
                              "error": f"the answer does not fit in {limit:,} bytes even with every list cut"})
        path, container = place
        total = left_out.get(path, {}).get("of", len(container))
        keep = len(container) // 2
        if isinstance(container, list):
            gone = [f"{path}/{i}" for i in range(keep, len(container))]
            del container[keep:]
        else:
            gone = [f"{path}/{_token(key)}" for key in list(container)[keep:]]
            for key in list(container)[keep:]:
                del container[key]
        for inner in [p for p in left_out if any(p == g or p.startswith(g + "/") for g in gone)]:
            del left_out[inner]   # a cut inside an item now gone: the outer cut says it
        left_out[path] = {"path": path, "kept": keep, "of": total}


def _biggest(doc: dict) -> tuple[str, list | dict] | None:
    """The cuttable container with the most bytes: lists of two or more items first, then lists of
    one (cutting those drops a whole record), never the document's own keys."""
    best: tuple[int, int, str, list | dict] | None = None

    def size(value: object, path: str, top: bool = False) -> int:
        nonlocal best
        if isinstance(value, dict):
            total = 2 + sum(len(str(k)) + 4 + size(v, f"{path}/{_token(k)}") for k, v in value.items())
            cuttable = not top and len(value) >= MAP_KEYS
        elif isinstance(value, list):
            total = 2 + sum(size(v, f"{path}/{i}") + 2 for i, v in enumerate(value))
            cuttable = bool(value) and path != "/left_out"
        else:
            return len(json.dumps(value))
        if cuttable:
            rank = (len(value) >= 2, total)
            if best is None or rank > best[:2]:
                best = (*rank, path, value)
        return total

    size(doc, "", top=True)
    return None if best is None else (best[2], best[3])


def _token(key: object) -> str:
    """A map key as a JSON Pointer token: ``~`` and ``/`` escaped (RFC 6901)."""
    return str(key).replace("~", "~0").replace("/", "~1")
