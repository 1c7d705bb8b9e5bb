"""Text from input as Textual ``Content``: never read as markup, controls made visible.

A string handed to a Static, Label, DataTable cell or notification is read as
Textual markup: ``[@click=app.quit]prod[/]`` in a snapshot's name would draw "prod"
and quit on a click (``app.screenshot`` would write files), and ``[/x]`` would
raise MarkupError. ``Content(text)`` is never parsed, so every widget that shows
names, labels, messages or errors from a snapshot, a log or the cluster is given
one of these; :func:`karptui.text.visible` has already written terminal controls
as escapes.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.content import Content

from ..text import visible, visible_lines

if TYPE_CHECKING:
    from textual.app import App
    from textual.widget import Widget


def plain(text: Any) -> Content:
    """One value (a name, a header line, an error) to show as it is."""
    return Content(visible(text))


def plain_lines(lines: Iterable[Any]) -> Content:
    """Lines to show as they are, one per line (a value's own newline is shown as ``\\x0a``)."""
    return Content(visible_lines(lines))


def notify_plain(node: App | Widget, message: str, **options: Any) -> None:
    """``node.notify`` for a message holding data (file and theme names, the API server's
    words, what the operator typed): never read as markup, controls made visible."""
    node.notify(visible(message), markup=False, **options)


def plain_text(text: Any) -> Text:
    """The same as a Rich ``Text``, for widgets that look into their items' text (Select's
    type-to-search reads ``Text.plain``, not Content)."""
    return Text(visible(text))
