"""Every command prints the same way: indented JSON, or a rich rendering of the same document.

What it prints comes from snapshots, logs and clusters: tables get the document with
every string made visible (:func:`karptui.text.visible`) and a console that reads no
markup; lines on stderr go through :func:`say`. JSON needs neither (``json`` writes
control characters as ``\\u001b``, and non-ASCII as escapes too).
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from rich.console import Console

from ..text import visible, visible_doc


def table_console() -> Console:
    """A console that never reads text as markup: what it prints comes from snapshots, logs and
    clusters, where ``[ap-northeast-2a]`` is data (styles are given as Text and style= instead)."""
    return Console(markup=False, highlight=False)


def emit(doc: dict, output: str, table: Callable[[dict, Console], None]) -> int:
    if output == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        table(visible_doc(doc), table_console())
    return 0


def say(line: str) -> None:
    """One line on stderr (errors, warnings, progress) with what came from input made visible."""
    print(visible(line), file=sys.stderr)
