"""``?``: every key that works, from the bindings themselves (so the list never goes stale)."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import ModalScreen
from textual.widgets import DataTable, Static


class HelpScreen(ModalScreen):
    BINDINGS = [Binding("escape,q,question_mark", "app.pop_screen", "Close")]

    def __init__(self, bindings: list[tuple[str, str, str]]) -> None:
        super().__init__()
        self.bindings_list = bindings

    def compose(self) -> ComposeResult:
        yield Static("karptui keys — escape closes; ctrl+p opens the command palette", id="source")
        yield DataTable(cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        table = self.query_one(DataTable)
        table.add_columns("key", "action", "where")
        for key, description, where in self.bindings_list:
            table.add_row(key, description, where)
