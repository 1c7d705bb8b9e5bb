"""The main screen: nodes by zone, pending pods, Karpenter activity; k9s keys."""

from __future__ import annotations

from collections import Counter

from textual.app import ComposeResult
from textual.binding import Binding
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Input, Static, TabbedContent, TabPane

from ...model.quantity import human_bytes
from ...views.activity import activity_rows
from ...views.format import age, bar, cpu, money
from ...views.nodes import SORTS, zone_groups
from ...views.pending import pending_rows, simulated_cell

PANES = ("nodes", "pending", "activity")
REASON_WIDTH = 60
ACTIVITY_ROWS = 5000  # the newest events shown on (re)fill; a tailed log appends beyond it
MIN_SIZE = (60, 12)  # below this the tables cannot show a node name and its numbers


class MainScreen(Screen):
    BINDINGS = [
        Binding("j", "cursor(1)", "Down", show=False),
        Binding("k", "cursor(-1)", "Up", show=False),
        Binding("g", "jump(0)", "Top", show=False),
        Binding("G", "jump(-1)", "Bottom", show=False),
        Binding("enter", "drill", "Drill in"),
        Binding("slash", "filter", "Filter"),
        Binding("colon", "command", "Command"),
        Binding("s", "sort", "Sort nodes"),
        Binding("escape", "clear", "Back / clear", show=False),
        Binding("1", "pane('nodes')", "Nodes", show=False),
        Binding("2", "pane('pending')", "Pending", show=False),
        Binding("3", "pane('activity')", "Activity", show=False),
    ]

    def __init__(self) -> None:
        super().__init__()
        self.sort = "name"
        self.filters = {pane: "" for pane in PANES}

    def compose(self) -> ComposeResult:
        yield Static(id="source")
        yield Static(id="too-small")
        with TabbedContent(initial="nodes"):
            with TabPane("Nodes", id="nodes"):
                yield DataTable(id="nodes-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Pending", id="pending"):
                yield DataTable(id="pending-table", cursor_type="row", zebra_stripes=True)
            with TabPane("Activity", id="activity"):
                yield DataTable(id="activity-table", cursor_type="row", zebra_stripes=True)
        yield Input(placeholder="filter: text or label key=value (enter to apply, escape to clear)", id="filter")
        yield Input(placeholder=":nodes :pending :activity :whatif :help :quit", id="command")
        yield Footer()

    def on_mount(self) -> None:
        for table, columns in (
            ("nodes-table", ("node", "type", "capacity", "nodepool/group", "cpu", "memory", "pods", "age", "$/h")),
            ("pending-table", ("pod (≠ simulator disagrees)", "cpu", "memory", "age", "simulated", "kube-scheduler reason",
                               "Karpenter (logs)")),
            ("activity-table", ("line", "time", "level", "event", "details")),
        ):
            self.query_one(f"#{table}", DataTable).add_columns(*columns)
        # The scheduler's reason is long; cap it so Karpenter's view stays on screen (drill in for all of it).
        pending = self.query_one("#pending-table", DataTable)
        reason = list(pending.columns.values())[5]
        reason.auto_width, reason.width = False, REASON_WIDTH
        self.refresh_all()
        self.query_one("#nodes-table", DataTable).focus()

    def on_screen_resume(self) -> None:
        """Back from a drill-in or the what-if panel: the header may have news (edits made)."""
        self.query_one("#source", Static).update(self.app.source_line())

    def on_resize(self, event) -> None:
        width, height = event.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        self.set_class(small, "too-small")
        if small:
            self.query_one("#too-small", Static).update(
                f"karptui needs a terminal of at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (this one is {width}×{height})")

    # ---- filling -------------------------------------------------------------------------
    def refresh_all(self) -> None:
        self.query_one("#source", Static).update(self.app.source_line())
        self.fill_nodes()
        self.fill_pending()
        self.fill_activity()

    def fill_nodes(self) -> None:
        table = self.query_one("#nodes-table", DataTable)
        table.clear()
        groups = zone_groups(self.app.snapshot, self.app.prices, self.sort, self.filters["nodes"])
        for group in groups:
            split = ", ".join(f"{n} {k}" for k, n in group.capacity_types.items())
            table.add_row(
                f"▼ {group.zone}  {len(group.nodes)} nodes ({split})", "", "", "",
                _usage(group.cpu_requested, group.cpu_allocatable, cpu),
                _usage(group.memory_requested, group.memory_allocatable, human_bytes), "", "",
                money(group.price), key=f"zone:{group.zone}",
            )
            for row in group.nodes:
                flags = ("" if row.ready else " NotReady") + (" Cordoned" if row.unschedulable else "")
                table.add_row(
                    f"  {row.name}{flags}", row.instance_type, row.capacity_type, row.group,
                    _usage(row.cpu_requested, row.cpu_allocatable, cpu),
                    _usage(row.memory_requested, row.memory_allocatable, human_bytes),
                    f"{row.pods}/{row.max_pods}", age(row.created, self.app.now), money(row.price),
                    key=f"node:{row.name}",
                )
        if not groups:
            table.add_row("(no nodes match)" if self.filters["nodes"] else "(the snapshot has no nodes)",
                          *[""] * 8, key="empty")

    def fill_pending(self) -> None:
        table = self.query_one("#pending-table", DataTable)
        table.clear()
        attempts = self.app.attempts
        rows = [r for r in pending_rows(self.app.snapshot, self.app.events)
                if _matches(self.filters["pending"], r.key, r.owner, r.reason)]
        counts = Counter(r.owner for r in rows)
        owner = None
        for row in rows:
            if row.owner != owner:
                owner = row.owner
                table.add_row(f"▼ {owner}  {counts[owner]} pending", *[""] * 6, key=f"owner:{owner}")
            simulated, disagrees = simulated_cell(row, attempts.get(row.key))
            table.add_row(
                f"{'≠ ' if disagrees else '  '}{row.key}", cpu(row.cpu), human_bytes(row.memory),
                age(row.created, self.app.now), simulated, row.reason or "-", row.karpenter_short or "-",
                key=f"pod:{row.key}",
            )
        if not rows:
            table.add_row("(no pending pods)", *[""] * 6, key="empty")

    def fill_activity(self) -> None:
        table = self.query_one("#activity-table", DataTable)
        table.clear()
        rows = [r for r in activity_rows(self.app.events) if r.matches(self.filters["activity"])]
        for row in rows[-ACTIVITY_ROWS:]:
            self._add_activity_row(table, row)
        if not rows:
            table.add_row("", "", "", "", "(no Karpenter logs: open a snapshot with --logs FILE)", key="empty")

    def append_activity(self, events: list[dict]) -> None:
        """New lines of a tailed log: appended, and followed if the cursor sat on the last row."""
        table = self.query_one("#activity-table", DataTable)
        rows = [r for r in activity_rows(events) if r.matches(self.filters["activity"])]
        if not rows:
            return
        if "empty" in table.rows:
            table.remove_row("empty")
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        for row in rows:
            self._add_activity_row(table, row)
        if following:
            table.move_cursor(row=table.row_count - 1)

    @staticmethod
    def _add_activity_row(table: DataTable, row) -> None:
        table.add_row(str(row.line), row.time, row.level, row.kind, row.summary, key=f"line:{row.line}")

    # ---- actions ---------------------------------------------------------------------------
    @property
    def pane(self) -> str:
        return self.query_one(TabbedContent).active or "nodes"

    def table(self) -> DataTable:
        return self.query_one(f"#{self.pane}-table", DataTable)

    def action_pane(self, pane: str) -> None:
        self.query_one(TabbedContent).active = pane
        self.table().focus()

    def on_tabbed_content_tab_activated(self, event: TabbedContent.TabActivated) -> None:
        self.table().focus()

    def action_cursor(self, step: int) -> None:
        self.table().move_cursor(row=self.table().cursor_row + step)

    def action_jump(self, row: int) -> None:
        table = self.table()
        table.move_cursor(row=table.row_count - 1 if row < 0 else 0)

    def action_sort(self) -> None:
        names = list(SORTS)
        self.sort = names[(names.index(self.sort) + 1) % len(names)]
        self.notify(f"nodes sorted by {self.sort}")
        self.fill_nodes()

    def action_filter(self) -> None:
        box = self.query_one("#filter", Input)
        box.value = self.filters[self.pane]
        box.add_class("visible")
        box.focus()

    def action_command(self) -> None:
        box = self.query_one("#command", Input)
        box.value = ""
        box.add_class("visible")
        box.focus()

    def action_clear(self) -> None:
        for box in self.query(Input):
            box.remove_class("visible")
        if self.filters[self.pane]:
            self.filters[self.pane] = ""
            self.refresh_pane()
        self.table().focus()

    def refresh_pane(self) -> None:
        {"nodes": self.fill_nodes, "pending": self.fill_pending, "activity": self.fill_activity}[self.pane]()

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        if event.input.id == "filter":
            self.filters[self.pane] = event.value.strip()
            self.refresh_pane()
            self.table().focus()
            return
        word = event.value.strip().lstrip(":").lower()
        if word in PANES:
            self.action_pane(word)
        elif word in ("whatif", "what-if", "w"):
            self.app.action_whatif()
        elif word in ("help", "?"):
            self.app.action_help()
        elif word in ("q", "quit"):
            self.app.exit()
        else:
            self.notify(f"unknown command :{word} (nodes, pending, activity, whatif, help, quit)", severity="warning")
            self.table().focus()

    def action_drill(self) -> None:
        table = self.table()
        if table.row_count:
            self._open(table.coordinate_to_cell_key(table.cursor_coordinate).row_key.value or "")

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        """enter on a row (the table's own binding): drill into that node or pod."""
        self._open(event.row_key.value or "")

    def _open(self, key: str) -> None:
        kind, _, name = key.partition(":")
        if kind in ("node", "pod"):
            self.app.drill(kind, name)


def _usage(requested: int, allocatable: int, fmt) -> str:
    pct = round(100 * requested / allocatable) if allocatable else 0
    return f"{bar(requested, allocatable, 8)} {pct:>3}% {fmt(requested)}/{fmt(allocatable)}"


def _matches(text: str, *fields: str) -> bool:
    lowered = text.strip().lower()
    return not lowered or any(lowered in f.lower() for f in fields)
