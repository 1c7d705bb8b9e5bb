"""Every command prints the same way: indented JSON, or a rich rendering of the same document."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from rich.console import Console


def table_console() -> Console:
    """A console that never reads text as markup: what it prints comes from snapshots, logs and
    clusters, where ``[ap-northeast-2a]`` is data (styles are given as Text and style= instead)."""
    return Console(markup=False, highlight=False)


def emit(doc: dict, output: str, table: Callable[[dict, Console], None]) -> int:
    if output == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        table(doc, table_console())
    return 0
