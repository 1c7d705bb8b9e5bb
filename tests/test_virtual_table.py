"""The virtualised table: what a user sees when a table is longer or wider than the screen."""

from textual.app import App

from karptui.tui.widgets import VirtualTable, _fit


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
