"""The virtualised table: what a user sees when a table is longer or wider than the screen."""

from textual.app import App
from textual.containers import Vertical
from textual.message import Message

from karptui.tui.widgets import VirtualTable, _fit, _fit_start


class One(App):
    def __init__(self, rows: int) -> None:
        super().__init__()
        self.count = rows
        self.selected: list[str] = []

    def on_virtual_table_row_selected(self, event: VirtualTable.RowSelected) -> None:
        self.selected.append(event.key)

    def compose(self):
        yield VirtualTable(("name", "zone"), max_widths={0: 12}, id="t")

    def on_mount(self) -> None:
        table = self.query_one(VirtualTable)
        table.set_rows([(f"node-{i:04d}-with-a-long-name", "us-east-1a") for i in range(self.count)],
                       [f"node:{i}" for i in range(self.count)])
        table.focus()


def test_fit_pads_and_cuts_by_cells():
    assert _fit("abc", 5) == "abc  "
    assert _fit("abcdef", 4) == "abc…"
    assert _fit("노드이름", 5) == "노드…"  # wide characters count two cells
    assert len(_fit("노드이름", 6)) == 4


def test_fit_start_keeps_the_end_and_the_row_mark():
    assert _fit_start("ip-192-168-11-21", 10) == "…168-11-21"
    assert _fit_start("▼ ap-northeast-2a", 12) == "▼ …theast-2a"
    assert _fit_start("short", 8) == "short   "
    assert _fit_start("노드이름-1", 6) == "…름-1 "  # cells, not characters


async def test_cursor_stays_visible_and_lines_are_rendered_on_demand():
    app = One(5000)
    async with app.run_test(size=(40, 10)) as pilot:
        table = app.query_one(VirtualTable)
        assert table.widths == [12, 10]
        await pilot.press("end")
        assert table.cursor_row == 4999 and table.cursor_key == "node:4999"
        visible = [str(table.render_line(y).text) for y in range(table.size.height)]
        assert visible[0].startswith("name")
        assert any(line.startswith("node-4999-w…") for line in visible)
        await pilot.press("home", "down", "pagedown")
        assert table.cursor_row > 1
        assert any(line.startswith(f"node-{table.cursor_row:04d}") for line in
                   (str(table.render_line(y).text) for y in range(table.size.height)))
        await pilot.press("enter")
        await pilot.pause()
        assert app.selected == [table.cursor_key]


class Wide(App):
    def compose(self):
        yield VirtualTable(("node", "cpu"), id="t")


async def test_refilled_rows_redraw_and_scroll_sideways_by_cells():
    """Lines are kept between redraws, so a refill must show the new rows; gauges are one cell each,
    Korean names two, and a sideways scroll cuts both at the right cell."""
    app = Wide()
    async with app.run_test(size=(12, 6)) as pilot:
        table = app.query_one(VirtualTable)
        table.set_rows([("a", "██▌░ 25%"), ("bb", "░░░░ 0%")], ["a", "b"])
        await pilot.pause()
        assert str(table.render_line(1).text) == "a     ██▌░ 2"
        table.set_rows([("노드-1", "████ 100%")], ["n"])
        await pilot.pause()
        assert table.widths == [6, 9]
        assert str(table.render_line(1).text) == "노드-1  ████"
        assert table.render_line(2).text.strip() == ""
        table.scroll_to(x=3, animate=False)
        await pilot.pause()
        assert str(table.render_line(1).text) == " -1  ████ 10"  # the cut half of 드 is blank
        assert table.render_line(1).cell_length == table.size.width


class Refill(Message):
    """Asks the container to refill its table: its handler is where the rows are set."""


class Holder(Vertical):
    """A container whose own handler sets the table's rows, as the History pane does when its worker answers."""

    def compose(self):
        yield VirtualTable(("nodeclaim", "nodepool", "zone", "capacity"), drop=(3, 2, 1), id="held")

    def on_refill(self, message: Refill) -> None:
        self.query_one(VirtualTable).set_rows([("general-q7x2k", "general", "eu-west-1a", "on-demand")] * 3,
                                              ["a", "b", "c"])


class Above(App):
    def __init__(self) -> None:
        super().__init__()
        self.heard: list[tuple[str, tuple[str, ...]]] = []

    def compose(self):
        yield Holder()

    def on_virtual_table_columns_hidden(self, event: VirtualTable.ColumnsHidden) -> None:
        self.heard.append(("hidden", event.table.hidden_columns))

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        self.heard.append(("highlighted", (event.key or "",)))


async def test_rows_set_in_a_containers_handler_are_still_heard_above_it():
    """Textual stops a bubbling message at the widget whose handler made it: the table's messages must be
    the table's, or a screen above the container never learns which columns a refill hid."""
    app = Above()
    async with app.run_test(size=(30, 8)) as pilot:
        await pilot.pause()
        app.heard.clear()
        app.query_one(Holder).post_message(Refill())
        await pilot.pause()
        hidden = app.query_one(VirtualTable).hidden_columns
        assert hidden == ("zone", "capacity")   # in column order
        assert ("hidden", hidden) in app.heard
        assert ("highlighted", ("a",)) in app.heard
