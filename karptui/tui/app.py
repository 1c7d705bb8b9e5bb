"""The karptui app: nodes by zone and pending pods of one snapshot."""

from __future__ import annotations

from datetime import datetime, timezone

from textual.app import App, ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import DataTable, Footer, Static

from ..model import Snapshot
from ..model.quantity import human_bytes
from ..views.format import age, cpu, percent
from ..views.info import snapshot_info
from ..views.nodes import zone_groups
from ..views.pending import pending_rows


class KarptuiApp(App):
    """Read-only explorer of one Snapshot."""

    TITLE = "karptui"
    CSS = """
    #source { height: auto; padding: 0 1; background: $boost; }
    #nodes { height: 2fr; }
    #pending { height: 1fr; }
    .pane-title { padding: 0 1; color: $accent; text-style: bold; }
    """
    BINDINGS = [
        Binding("q", "quit", "Quit"),
        Binding("tab", "focus_next", "Next pane", show=True),
        Binding("j", "cursor_down", "Down", show=False),
        Binding("k", "cursor_up", "Up", show=False),
    ]

    def __init__(self, snapshot: Snapshot, now: datetime | None = None) -> None:
        super().__init__()
        self.snapshot = snapshot
        self.now = now or snapshot.meta.captured_at or datetime.now(timezone.utc)

    def compose(self) -> ComposeResult:
        yield Static(self._source_line(), id="source")
        with Vertical():
            yield Static("Nodes by zone", classes="pane-title")
            yield DataTable(id="nodes", cursor_type="row", zebra_stripes=True)
            yield Static(f"Pending pods ({len(self.snapshot.pending_pods)})", classes="pane-title")
            yield DataTable(id="pending", cursor_type="row")
        yield Footer()

    def on_mount(self) -> None:
        self._fill_nodes(self.query_one("#nodes", DataTable))
        self._fill_pending(self.query_one("#pending", DataTable))

    def _source_line(self) -> str:
        info = snapshot_info(self.snapshot)
        where = info["name"] or info["source"]
        when = f" captured {info['captured_at']}" if info["captured_at"] else ""
        logs = f" · {info['karpenter_logs']} Karpenter log lines" if info["karpenter_logs"] else ""
        return (
            f"snapshot {where}{when} · {info['nodes']} nodes · {info['pods']} pods · "
            f"{info['pending']} pending · {info['nodepools']} nodepools{logs}"
        )

    def _fill_nodes(self, table: DataTable) -> None:
        table.add_columns("node", "type", "capacity", "nodepool/group", "cpu", "memory", "pods", "age")
        for group in zone_groups(self.snapshot):
            split = ", ".join(f"{n} {k}" for k, n in group.capacity_types.items())
            table.add_row(
                f"▼ {group.zone}  ({len(group.nodes)} nodes: {split})", "", "", "",
                _usage(group.cpu_requested, group.cpu_allocatable, cpu),
                _usage(group.memory_requested, group.memory_allocatable, human_bytes), "", "",
                key=f"zone:{group.zone}",
            )
            for row in group.nodes:
                flags = "" if row.ready else " NotReady"
                flags += " Cordoned" if row.unschedulable else ""
                table.add_row(
                    f"  {row.name}{flags}", row.instance_type, row.capacity_type, row.group,
                    _usage(row.cpu_requested, row.cpu_allocatable, cpu),
                    _usage(row.memory_requested, row.memory_allocatable, human_bytes),
                    f"{row.pods}/{row.max_pods}", age(row.created, self.now),
                    key=f"node:{row.name}",
                )

    def _fill_pending(self, table: DataTable) -> None:
        table.add_columns("pod", "owner", "cpu", "memory", "age", "Karpenter (logs)", "kube-scheduler reason")
        for row in pending_rows(self.snapshot):
            table.add_row(
                row.key, row.owner, cpu(row.cpu), human_bytes(row.memory),
                age(row.created, self.now), row.karpenter_short or "-", row.reason or "-", key=row.key,
            )

    def action_cursor_down(self) -> None:
        if isinstance(self.focused, DataTable):
            self.focused.action_cursor_down()

    def action_cursor_up(self) -> None:
        if isinstance(self.focused, DataTable):
            self.focused.action_cursor_up()


def _usage(requested: int, allocatable: int, fmt) -> str:
    return f"{fmt(requested)}/{fmt(allocatable)} {percent(requested, allocatable):>3}%"
