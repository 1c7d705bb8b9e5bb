"""Text from input made safe to show on a terminal: the one rule, used by the CLI and the TUI.

Names, labels, Events, log lines and API server errors come from other people. A
terminal acts on some characters instead of drawing them: ESC starts sequences that
set the window title, write the clipboard (OSC 52), draw links (OSC 8) or move the
cursor; C1 codes (0x80-0x9f, ``\\x9b`` is a CSI on its own) do the same on many
terminals; CR and backspace overwrite what was drawn; bidi overrides make a name
read in a different order than it is stored. Neither Rich nor Textual removes more
than BEL, BS, VT, FF and CR, so ESC and the rest would reach the terminal.

:func:`visible` writes each such character as its Python escape (``\\x1b``,
``\\x9b``, ``\\u202e``) instead of dropping it: the operator sees that the input
holds one, and which, in the notation ``kubectl -o json`` and Python show; it works
in every font, and C1 and bidi characters have no pictures in Unicode's Control
Pictures block. Tab is kept (it is harmless and common in log lines); newline is
escaped, so one value stays one line of a table. Lone surrogates (JSON allows
``"\\ud800"``) are escaped too: UTF-8 output cannot encode them and would fail.

Markup is the other half and is not handled here: Rich and Textual read ``[b]`` and
``[@click=...]`` only when asked to, and karptui never asks for text from input
(the CLI console has ``markup=False``; the TUI hands widgets ``Content``, see
:mod:`karptui.tui.plain`).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

#: What a terminal may act on: C0 but tab, DEL and C1, the bidi embeddings, overrides,
#: isolates and marks, the Unicode line and paragraph separators, and lone surrogates.
UNSAFE = re.compile("[\x00-\x08\x0a-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029"
                    "\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def _escape(match: re.Match[str]) -> str:
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def visible(text: Any) -> str:
    """``text`` (or ``str(text)``) with every character in :data:`UNSAFE` written as its escape."""
    if not isinstance(text, str):
        text = str(text)
    if UNSAFE.search(text) is None:  # the common case: one scan, no copy
        return text
    return UNSAFE.sub(_escape, text)


def visible_lines(lines: Iterable[Any]) -> str:
    """Lines of input joined by newlines: each made visible, so only our newlines break lines."""
    return "\n".join(visible(line) for line in lines)


def visible_rows(rows: Sequence[tuple[str, ...]]) -> Sequence[tuple[str, ...]]:
    """Table rows with every cell made visible; the same list when no cell needs it (one scan).

    A tab becomes a space here: these cells are drawn as they are, one terminal cell per
    character, and a tab would move the cursor past the cells after it.
    """
    joined = "".join(map("".join, rows))
    if UNSAFE.search(joined) is None and "\t" not in joined:
        return rows
    return [tuple(visible(cell).replace("\t", " ") for cell in row) for row in rows]


def visible_doc(doc: Any) -> Any:
    """A JSON-like document (dicts, lists, strings) with every string, keys too, made visible.

    The CLI's table printers read such documents; JSON output needs none of this
    (``json`` escapes control characters itself).
    """
    if isinstance(doc, str):
        return visible(doc)
    if isinstance(doc, dict):
        return {visible(k) if isinstance(k, str) else k: visible_doc(v) for k, v in doc.items()}
    if isinstance(doc, list):
        return [visible_doc(v) for v in doc]
    if isinstance(doc, tuple):
        return tuple(visible_doc(v) for v in doc)
    return doc
