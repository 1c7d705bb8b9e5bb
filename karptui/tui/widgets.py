"""A virtualised table: only the rows on screen are ever rendered.

Textual's DataTable measures every cell it is given, so refilling 5,000 node rows on
a sort or a filter costs about a second. Our rows are plain text, so column widths are
string lengths and each redraw renders one screenful: sorting, filtering and switching
panes stay interactive however big the cluster.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from rich.cells import cell_len
from rich.segment import Segment
from textual.binding import Binding
from textual.geometry import Region, Size
from textual.message import Message
from textual.reactive import reactive
from textual.scroll_view import ScrollView
from textual.strip import Strip

from ..text import visible_rows

GAP = 2  # blank cells between columns


# Anything but ASCII and the one-cell characters our views draw (gauges, group and
# disagreement marks) may be wide: only then is a cell count worth rich's per-character walk.
_MAYBE_WIDE = re.compile("[^\x00-\x7f█▌░▼▶▲≠…·→←✗]")


def _width(text: str) -> int:
    if text.isascii() or _MAYBE_WIDE.search(text) is None:
        return len(text)
    return cell_len(text)


def _widest(cells: list[str]) -> int:
    """The widest cell; one pass over the column when every character is one cell wide."""
    joined = "".join(cells)
    if joined.isascii() or _MAYBE_WIDE.search(joined) is None:
        return max(map(len, cells))
    return max(map(_width, cells))


def measure(rows: list[tuple[str, ...]], columns: int) -> list[int]:
    """Each column's widest cell over ``rows`` (0 where no row has that column): what
    :meth:`VirtualTable.set_rows` is given by a caller that keeps blocks of rows measured."""
    widths = []
    for column in range(columns):
        cells = [r[column] for r in rows if column < len(r)]
        widths.append(_widest(cells) if cells else 0)
    return widths


def _head(text: str, room: int) -> str:
    """The longest start of ``text`` that fits ``room`` cells."""
    cut = text[:max(0, room)]
    while _width(cut) > room:
        cut = cut[:-1]
    return cut


def _tail(text: str, room: int) -> str:
    """The longest end of ``text`` that fits ``room`` cells."""
    cut = text[len(text) - room:] if room > 0 else ""
    while _width(cut) > room:
        cut = cut[1:]
    return cut


def _fitting(text: str, width: int) -> int | None:
    """``text``'s width in cells when it fits ``width``, else None. A text whose first ``width + 1``
    characters are already wider is not measured further: an event's details (thousands of characters,
    some not ASCII) were measured whole, cell by cell, for a 40-cell column, which took the Activity
    pane's first showing on 20,000 nodes past 50 ms. (Only zero-width characters let a longer text fit.)"""
    if len(text) > width and _width(text[:width + 1]) > width:
        return None
    size = _width(text)
    return size if size <= width else None


def _fit(text: str, width: int) -> str:
    """Pad or cut ``text`` to exactly ``width`` cells (an ellipsis marks a cut)."""
    size = _fitting(text, width)
    if size is not None:
        return text + " " * (width - size)
    cut = _head(text, width - 1)
    return cut + "…" + " " * (width - 1 - _width(cut))


def _row_mark(text: str, width: int) -> str:
    """A two-cell row mark (``▼ ``, ``≠ ``) a cut keeps."""
    return text[:2] if len(text) > 2 and text[1] == " " and width > 4 else ""


def _fit_start(text: str, width: int) -> str:
    """Like :func:`_fit`, but a cut takes the start of the name and keeps its end, where names that
    share a prefix differ (``…168-11-21``, ``▼ …northeast-2a``); a two-cell row mark (``▼ ``) stays."""
    size = _fitting(text, width)
    if size is not None:
        return text + " " * (width - size)
    mark = _row_mark(text, width)
    room = width - _width(mark) - 1
    tail = _tail(text, room)
    return mark + "…" + tail + " " * (room - _width(tail))


def _fit_middle(text: str, width: int) -> str:
    """Like :func:`_fit`, but a cut takes the middle and keeps both ends: a pod's namespace and the
    end of its name, where replicas differ (``default/h…-2tn8f``; every pending pod read
    ``default/host-sp…`` at 80 columns)."""
    if width < 8 or _fitting(text, width) is not None:
        return _fit_start(text, width)
    mark = _row_mark(text, width)
    room = width - _width(mark) - 1
    head = _head(text[len(mark):], room // 3)
    tail = _tail(text, room - _width(head))
    return mark + head + "…" + tail + " " * (room - _width(head) - _width(tail))


class VirtualTable(ScrollView, can_focus=True):
    """Rows of text cells with a header line and a row cursor; ``enter`` posts RowSelected.

    Cells become Segments unparsed, so no markup is read, and nothing strips what a
    terminal acts on: rows are made visible (karptui.text) when they are set.
    """

    COMPONENT_CLASSES = {"virtual-table--header", "virtual-table--cursor", "virtual-table--even-row",
                         "virtual-table--group", "virtual-table--good", "virtual-table--warn", "virtual-table--bad",
                         "virtual-table--spot", "virtual-table--on-demand", "virtual-table--fargate",
                         "virtual-table--flag"}
    DEFAULT_CSS = """
    VirtualTable { background: $surface; }
    VirtualTable > .virtual-table--header { text-style: bold; background: $panel; }
    VirtualTable > .virtual-table--cursor { background: $block-cursor-blurred-background; }
    VirtualTable:focus > .virtual-table--cursor { background: $block-cursor-background;
                                                   color: $block-cursor-foreground; text-style: bold; }
    VirtualTable > .virtual-table--even-row { background: $surface-lighten-1 20%; }
    VirtualTable > .virtual-table--group { text-style: bold; }
    VirtualTable > .virtual-table--good { color: $success; }
    VirtualTable > .virtual-table--warn { color: $warning; }
    VirtualTable > .virtual-table--bad { color: $error; text-style: bold; }
    VirtualTable > .virtual-table--spot { color: $accent; }
    VirtualTable > .virtual-table--on-demand { color: $primary; }
    VirtualTable > .virtual-table--fargate { color: $secondary; }
    VirtualTable > .virtual-table--flag { color: $error; text-style: bold; }
    """
    BINDINGS = [
        Binding("up", "cursor(-1)", "Up", show=False),
        Binding("down", "cursor(1)", "Down", show=False),
        Binding("pageup", "page(-1)", "Page up", show=False),
        Binding("pagedown", "page(1)", "Page down", show=False),
        Binding("home", "cursor_to(0)", "Top", show=False),
        Binding("end", "cursor_to(-1)", "Bottom", show=False),
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("g", "cursor_to(0)", "Top", show=False),
        Binding("G", "cursor_to(-1)", "Bottom", show=False),
        Binding("enter", "select", "Select", show=False),
        Binding("space", "select", "Fold / unfold", show=False),
    ]

    cursor_row: reactive[int] = reactive(0, always_update=True)

    class _RowMessage(Message):
        """A row of this table, by key (its handlers see the table as ``control``).

        The table is its sender. Textual takes as a message's sender whichever widget's handler is
        running when the message is made, and stops a bubbling message once it reaches its sender:
        rows set from a container's handler (the History pane filling in when its worker answers)
        made the container the sender, so ColumnsHidden and Highlighted stopped there and the screen
        above never heard of them (the crumb went on naming the columns hidden before the rows came)."""

        def __init__(self, table: VirtualTable, key: str | None) -> None:
            super().__init__()
            self.set_sender(table)
            self.table = table
            self.key = key

        @property
        def control(self) -> VirtualTable:
            return self.table

    class RowSelected(_RowMessage):
        """enter (or space) on a row."""

    class Highlighted(_RowMessage):
        """The cursor moved to another row; a newer one supersedes it (held j, a burst of keys)."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, VirtualTable.Highlighted) and message.table is self.table

    class ColumnsHidden(_RowMessage):
        """The width changed which columns are hidden (``hidden_columns``); a newer one supersedes it."""

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, VirtualTable.ColumnsHidden) and message.table is self.table

    def __init__(self, columns: tuple[str, ...] = (), *, max_widths: dict[int, int] | None = None,
                 shrink: tuple[dict[int, int], ...] = (), drop: tuple[int, ...] = (),
                 cut_start: frozenset = frozenset(), cut_middle: frozenset = frozenset(),
                 styler: Callable[[int, str], str | None] | None = None, id: str | None = None) -> None:
        """``shrink``: tiers of {column: the fewest cells it keeps}; when the row is wider than the
        table these columns are cut (with an ellipsis), a tier at a time, so every column stays on
        screen. ``drop``: columns hidden, in this order, when every tier is spent and the row is still
        wider (a narrow terminal: the table never scrolls sideways). ``cut_start``: columns whose cut
        keeps the end of the text (node names share their start); ``cut_middle``: columns whose cut
        keeps both ends (``namespace/name``: replicas differ at the end). ``styler`` (column, cell) -> a
        component class suffix (``good``, ``warn``, ``bad``, ``spot``, ...) colours a cell by what it means."""
        super().__init__(id=id)
        self.columns = tuple(columns)
        self.max_widths = max_widths or {}
        self.shrink = shrink
        self.drop = drop
        self.cut_start = cut_start
        self.cut_middle = cut_middle
        self.styler = styler
        self.rows: list[tuple[str, ...]] = []
        self.keys: list[str] = []
        self._index: dict[str, int] = {}
        self.natural = [_width(c) for c in self.columns]
        self._measured = [0] * len(self.columns)  # each column's widest cell over the rows
        self._base_style = None  # the widget's style, while render_lines draws (see render_lines)
        self.widths = list(self.natural)
        self._fitted_room: int | None = None  # the cells the columns were last fitted to (_room)
        self.group_prefix = ("▼", "▶")
        self.sort_column: int | None = None
        self.sort_reverse = False
        # row (-1: header) -> its text, one cell per char?, and each styled cell's (start, end, class)
        self._lines: dict[int, tuple[str, bool, tuple]] = {}

    # ---- data --------------------------------------------------------------------------
    @property
    def row_count(self) -> int:
        return len(self.rows)

    def set_rows(self, rows: list[tuple[str, ...]], keys: list[str], widths: list[int] | None = None) -> None:
        """Replace every row (a refill is one assignment, not thousands of widget updates).

        The cursor stays on its row's key when the new rows still have it (a re-sort,
        a live update), else keeps its position. ``widths``: each column's widest cell, from a
        caller that keeps its rows made visible (:func:`karptui.text.visible_rows`) and measured
        (:func:`measure`) block by block, so a refill of 20,000 rows reads none of their cells.
        """
        was = self.cursor_key
        if widths is None:
            rows = list(visible_rows(rows))  # cells are written to the terminal as they are: see render_line
        self.rows, self.keys = rows, keys
        self._index = {key: i for i, key in enumerate(keys)}
        self._measure(rows, reset=True, widths=widths)
        if was is not None and was in self._index:
            self.cursor_row = self._index[was]
        else:
            self.cursor_row = min(self.cursor_row, max(0, len(rows) - 1))

    def append_rows(self, rows: list[tuple[str, ...]], keys: list[str]) -> None:
        start = len(self.rows)
        rows = list(visible_rows(rows))
        self.rows = self.rows + rows
        self.keys = self.keys + keys
        self._index.update((key, start + i) for i, key in enumerate(keys))
        self._measure(rows, reset=False)

    def remove_key(self, key: str) -> None:
        if key in self._index:
            index = self._index[key]
            self.set_rows(self.rows[:index] + self.rows[index + 1:], self.keys[:index] + self.keys[index + 1:])

    def row(self, key: str) -> tuple[str, ...]:
        return self.rows[self._index[key]]

    @property
    def cursor_key(self) -> str | None:
        return self.keys[self.cursor_row] if self.rows else None

    def _measure(self, rows: list[tuple[str, ...]], reset: bool, widths: list[int] | None = None) -> None:
        found = widths if widths is not None else measure(rows, len(self.columns))
        self._measured = found if reset else [max(a, b) for a, b in zip(self._measured, found)]
        self._natural()

    def _natural(self) -> None:
        """The columns' widths: the widest cell or the title (with its sort arrow), capped."""
        widths = [max(_width(title), cell) for title, cell in zip(self._titles(), self._measured)]
        for column in range(len(self.columns)):
            if column in self.max_widths:
                widths[column] = min(widths[column], self.max_widths[column])
        self.natural = widths
        self._fit()

    def _room(self) -> int:
        """The cells the columns may take: the table's width, less the vertical scrollbar's when the rows
        overflow it. A table not laid out yet (a pane not shown so far) counts on its terminal's size:
        the panes' tables take its whole width. Fitted to nothing, such a table's first showing laid it
        out with every column at its widest (an event's details: thousands of cells, and a horizontal
        scrollbar), drew that, and was only then told its size, laid out and drawn again (the Activity
        pane's first showing on 20,000 nodes, 88 ms). A table given another size is fitted again."""
        if not self.is_mounted:
            return 0
        width, height = self.size if self.size.width else self.app.size
        if len(self.rows) + 1 > height:  # the vertical scrollbar will take its cells
            width -= self.styles.scrollbar_size_vertical
        return width

    def _fit(self) -> None:
        """Cut the ``shrink`` columns until the row fits the table's width (all columns on screen)."""
        widths = list(self.natural)
        available = self._fitted_room = self._room()
        excess = sum(widths) + GAP * max(0, len(widths) - 1) - available
        for tier in self.shrink:
            if available <= 0 or excess <= 0:
                break
            # each column of a tier gives in proportion to what it can spare; the next tier only if needed
            spare = {c: max(0, widths[c] - least) for c, least in tier.items()}
            total = sum(spare.values())
            for column, room in spare.items():
                give = min(room, excess * room // total) if total else 0
                widths[column] -= give
                spare[column] -= give
            rest = sum(widths) + GAP * max(0, len(widths) - 1) - available
            for column, room in spare.items():
                give = min(room, max(0, rest))
                widths[column] -= give
                rest -= give
            excess = rest
        for column in self.drop:
            if available <= 0 or excess <= 0:
                break
            excess -= widths[column] + GAP
            widths[column] = 0
        hidden_before = self.hidden_columns
        self.widths = widths
        self._lines = {}
        shown = [w for w in widths if w]
        self.virtual_size = Size(sum(shown) + GAP * max(0, len(shown) - 1), len(self.rows) + 1)
        self.refresh()
        if self.hidden_columns != hidden_before:
            self.post_message(self.ColumnsHidden(self, None))

    @property
    def hidden_columns(self) -> tuple[str, ...]:
        """The columns a narrow terminal hides (``drop``), to name them under the table."""
        return tuple(self.columns[i] for i, w in enumerate(self.widths) if not w and i in self.drop)

    def on_resize(self, event) -> None:
        """A new size lays the columns out again; a pane shown again is told its size too (Textual sends
        a shown widget a Resize), and at the size it was laid out for, its lines drawn stay good."""
        if self._room() != self._fitted_room:
            self._fit()

    def show_sort(self, column: int | None, reverse: bool = False) -> None:
        """Mark the sorted column in the header: ``▲`` in the pane's usual order, ``▼`` reversed."""
        if (column, reverse) != (self.sort_column, self.sort_reverse):
            self.sort_column, self.sort_reverse = column, reverse
            self._natural()  # the titles changed, not the cells: they were measured with the rows

    def _titles(self) -> tuple[str, ...]:
        if self.sort_column is None:
            return self.columns
        mark = " ▼" if self.sort_reverse else " ▲"
        return tuple(c + mark if i == self.sort_column else c for i, c in enumerate(self.columns))

    # ---- cursor --------------------------------------------------------------------------
    def move_cursor(self, row: int) -> None:
        self.cursor_row = max(0, min(row, len(self.rows) - 1))

    def watch_cursor_row(self, old: int, row: int) -> None:
        # The header is line 0 of the virtual space; keep the cursor's line below it in view.
        scrolled = self.scroll_offset
        self.scroll_to_region(Region(0, row + 1, 1, 1), spacing=(1, 0, 0, 0), animate=False, force=True)
        if self.scroll_offset == scrolled and old < len(self.rows):
            # Only the two rows whose look changed are drawn again (row r is line r + 1), not the screenful.
            self.refresh_line(old + 1)
            self.refresh_line(row + 1)
        else:
            self.refresh()
        self.post_message(self.Highlighted(self, self.cursor_key))

    def action_cursor(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step)

    def action_page(self, step: int) -> None:
        self.move_cursor(self.cursor_row + step * max(1, self.scrollable_content_region.height - 1))

    def action_cursor_to(self, row: int) -> None:
        self.move_cursor(len(self.rows) - 1 if row < 0 else 0)

    def action_select(self) -> None:
        if self.rows:
            self.post_message(self.RowSelected(self, self.keys[self.cursor_row]))

    def on_click(self, event) -> None:
        row = event.y + self.scroll_offset.y - 1
        if 0 <= row < len(self.rows):
            self.move_cursor(row)

    # ---- rendering -----------------------------------------------------------------------
    def _line(self, index: int) -> tuple[str, bool, tuple]:
        """A row's (or, for -1, the header's) text laid out in the columns, kept until rows change."""
        found = self._lines.get(index)
        if found is None:
            cells = self._titles() if index < 0 else self.rows[index]
            gap = " " * GAP
            parts = [(i, (_fit_start if i in self.cut_start else _fit_middle if i in self.cut_middle else _fit)(
                cells[i] if i < len(cells) else "", w))
                     for i, w in enumerate(self.widths) if w]
            text = gap.join(part for _, part in parts)
            single = _width(text) == len(text)
            spans = []
            if self.styler is not None and index >= 0 and single:
                start = 0
                for i, part in parts:
                    name = self.styler(i, cells[i]) if i < len(cells) and cells[i] else None
                    if name:
                        spans.append((start, start + len(part.rstrip()), name))
                    start += len(part) + GAP
            found = self._lines[index] = (text, single, tuple(spans))
        return found

    def render_lines(self, crop: Region) -> list[Strip]:
        """The widget's style is worked out once for the lines drawn: Textual walks every ancestor
        to find it, and asking for it line by line was a fifth of a cursor key's time."""
        self._base_style = self.rich_style
        try:
            return super().render_lines(crop)
        finally:
            self._base_style = None

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.size.width
        base = self._base_style or self.rich_style
        spans: tuple = ()
        if y == 0:
            (text, single, _), style = self._line(-1), self.get_component_rich_style("virtual-table--header")
        else:
            index = scroll_y + y - 1
            if index >= len(self.rows):
                return Strip.blank(width, base)
            text, single, spans = self._line(index)
            if index == self.cursor_row:
                style = self.get_component_rich_style("virtual-table--cursor")
            elif text.startswith(self.group_prefix):
                style = self.get_component_rich_style("virtual-table--group")
            elif index % 2:
                style = self.get_component_rich_style("virtual-table--even-row")
            else:
                style = None
        line_style = base + style if style else base
        if spans and index != self.cursor_row:
            return self._styled(text, spans, line_style, scroll_x, width)
        if single:  # one cell per character (our bars and marks too): cut by index
            visible = text[scroll_x:scroll_x + width]
            return Strip([Segment(visible + " " * (width - len(visible)), line_style)], width)
        strip = Strip([Segment(text, line_style)], _width(text))
        return strip.crop_extend(scroll_x, scroll_x + width, line_style)

    def _styled(self, text: str, spans: tuple, line_style, scroll_x: int, width: int) -> Strip:
        """A row whose cells carry meaning in colour (load, capacity type, disagreement)."""
        segments, at = [], 0
        for start, end, name in spans:
            if start > at:
                segments.append(Segment(text[at:start], line_style))
            segments.append(Segment(text[start:end], line_style + self.get_component_rich_style(
                f"virtual-table--{name}")))
            at = end
        segments.append(Segment(text[at:], line_style))
        return Strip(segments, len(text)).crop_extend(scroll_x, scroll_x + width, line_style)


class ReadOnlyTable(VirtualTable, can_focus=False):
    """A VirtualTable that only shows (an overview beside a focused table)."""
