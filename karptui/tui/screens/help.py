"""``?``: the keys that work on the screen underneath, read from its live bindings (never stale).

Keys are shown as they are typed (``?``, ``/``, ``ctrl+c``), not as Textual names them
(``question_mark``); on the main screen the what-if panel's keys follow, since ``w`` is
one key away.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen, Screen
from textual.widgets import DataTable, Static

from ...text import visible

NAMES = {"escape": "escape", "enter": "enter", "space": "space", "tab": "tab", "shift+tab": "shift+tab",
         "up": "↑", "down": "↓", "pageup": "page up", "pagedown": "page down", "home": "home", "end": "end"}


def human_key(app: App, key: str) -> str:
    """``?`` for question_mark, ``ctrl+c`` for ctrl+c: what the operator presses."""
    key = key.strip()
    if key in NAMES:
        return NAMES[key]
    if "+" in key:
        return key
    return app.get_key_display(Binding(key, ""))


def help_rows(app: App, screen: Screen, extra: tuple[tuple[str, list], ...] = ()) -> list[tuple[str, str, str]]:
    """(key, what it does, where) for every binding active on ``screen``, focused widget first,
    then ``extra`` (title, bindings) sections; one row per key of a multi-key binding."""
    rows: list[tuple[str, str, str]] = []
    seen: set[tuple[str, str]] = set()

    def add(key: str, binding: Binding, where: str) -> None:
        description = binding.description or binding.tooltip
        if not description or binding.action in ("app.command_palette", "command_palette"):
            return
        shown = human_key(app, key)
        if (shown, where) not in seen:
            seen.add((shown, where))
            rows.append((shown, description, where))

    here = screen.__class__.__name__.replace("Screen", "").lower() + " screen"
    for bucket in ("table", here, "everywhere"):
        for key, active in screen.active_bindings.items():
            node = active.node
            where = "everywhere" if node is app else here if node is screen else "table"
            if where == bucket:
                add(key, active.binding, where)
    rows.append(("ctrl+p", "command palette: every action", "everywhere"))
    for title, bindings in extra:
        for binding in bindings:
            for key in binding.key.split(","):
                add(key, binding, title)
    return rows


class HelpScreen(ModalScreen):
    BINDINGS = [
        Binding("escape,q,question_mark", "app.pop_screen", "Close"),
        Binding("g,home", "row(0)", "First key", show=False, priority=True),   # the table scrolls, not its cursor
        Binding("G,end", "row(-1)", "Last key", show=False, priority=True),
        Binding("j", "step(1)", "Down", show=False),
        Binding("k", "step(-1)", "Up", show=False),
    ]

    def __init__(self, bindings: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.bindings_list = bindings

    def compose(self) -> ComposeResult:
        yield Static("karptui keys — escape closes; ctrl+p opens the command palette", id="source")
        yield DataTable(cursor_type="row", zebra_stripes=True)

    def action_row(self, row: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=row if row >= 0 else table.row_count - 1)

    def action_step(self, step: int) -> None:
        table = self.query_one(DataTable)
        table.move_cursor(row=max(0, min(table.row_count - 1, table.cursor_row + step)))

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "where")
        for key, description, where in self.bindings_list:
            # rich Text: measured for the column widths and never read as markup
            table.add_row(Text(visible(key)), Text(visible(description)), Text(visible(where)))
