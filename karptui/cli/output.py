"""Every command prints the same way: indented JSON, or a rich rendering of the same document."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable

from rich.console import Console


def emit(doc: dict, output: str, table: Callable[[dict, Console], None]) -> int:
    if output == "json":
        json.dump(doc, sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        table(doc, Console())
    return 0
