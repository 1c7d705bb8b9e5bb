"""The main screen: zone balance and nodes, pending pods answered in place, Karpenter activity; k9s keys.

Thin by design: every number and sentence comes from karptui.views; this screen keeps the
operator's state (each pane's filter and sort, the folded zones, the selected workload) as
reactives and redraws the pane they belong to.
"""

from __future__ import annotations

import gc
from collections import Counter

from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.message import Message
from textual.reactive import reactive
from textual.screen import Screen
from textual.suggester import SuggestFromList
from textual.containers import Vertical
from textual.widget import Widget
from textual.widgets import Input, Static
from textual.worker import get_current_worker

from ...model.quantity import human_bytes
from ...text import visible, visible_rows
from ...views.activity import activity_detail, activity_rows
from ...views.buffers import buffer_detail, buffer_groups
from ...views.details import DISRUPTION_SECTION
from ...views.filtering import Filter
from ...views.format import age, cpu
from ...views.history import (
    HISTORY_SORTS,
    NO_LOG,
    READING_LOG,
    hour_detail,
    life_detail,
)
from ...views.nodes import NODE_SORTS, usage_level, zone_cells
from ...views.pending import PENDING_SORTS, pending_detail, simulated_cell, sort_pending
from ...views.zones import launch_key, launchable_zones, workload_spread
from ..disruption import DisruptionPane
from ..history import HistoryPane
from ..keybar import Crumb, KeyBar
from ..panebar import PaneBar
from ..plain import notify_plain, plain, plain_lines
from ..widgets import VirtualTable, measure
from .detail import DetailScreen

PANES = ("nodes", "pending", "activity", "disruption", "history")
PANE_TITLES = (("nodes", "Nodes"), ("pending", "Pending"), ("activity", "Activity"), ("disruption", "Disruption"),
               ("history", "History"))
REASON_WIDTH = 60
KARPENTER_WIDTH = 48
SIMULATED_WIDTH = 40
NODE_COLUMNS = ("node", "type", "capacity", "nodepool", "cpu", "memory", "pods", "age", "$/h",
                "consolidation")
PENDING_COLUMNS = ("pod (≠ simulator disagrees)", "cpu", "memory", "age", "simulated", "kube-scheduler reason",
                   "Karpenter (logs)")
ACTIVITY_COLUMNS = ("line", "time", "level", "event", "details")
ACTIVITY_SORTS = ("line", "time", "level", "event", "details")  # line order is the log's
# Columns cut to fit the width, in order, each down to the cells it keeps (a usage cell keeps its bar and %).
# First the long words (the consolidation verdict keeps "#1 delete, saves $0.154/h"; a zone's capacity
# split keeps "3 on-demand"), and only then names: at 160 columns a NodePool's name stays whole.
NODE_SHRINK = ({9: 30, 2: 11, 0: 26}, {9: 24, 2: 9, 0: 20}, {9: 16, 0: 16, 3: 8, 1: 8, 4: 12, 5: 12},
               {0: 16, 2: 8, 4: 11, 5: 11})
# Then, on a terminal too narrow even so, columns hidden in this order (named in the crumb below the table).
NODE_DROP = (7, 3, 9)
PENDING_SHRINK = ({5: 16, 6: 16}, {5: 12, 6: 12, 0: 16, 4: 10})
ACTIVITY_SHRINK = ({4: 20}, {1: 12})
ACTIVITY_ROWS = 5000  # the newest events shown on (re)fill; a tailed log appends beyond it
MIN_SIZE = (60, 12)  # below this the tables cannot show a node name and its numbers
FOLD_AT = 200        # a cluster with more nodes starts with its zones folded: the zone balance fits one screen

# k9s' resource aliases -> (the pane that shows them, or None; a note when the answer is elsewhere).
ALIASES = {
    "no": ("nodes", ""),
    "po": ("pending", "the Pending pane lists pending pods; a node's drill-in (enter) lists its pods"),
    "ev": ("activity", ""),
    "np": ("nodes", "NodePools are the nodepool column and the zones they may launch into"),
    "nc": ("history", "the History pane (5) has every NodeClaim the log names, its life and why it went; the "
                      "NodeClaims Karpenter would launch are in Pending's simulated column"),
    "ctx": (None, "the context is chosen on the command line: karptui --context NAME"),
    "dis": ("disruption", ""),
    "history": ("history", ""),
}
LONG_NAMES = {"node": "no", "nodes": "no", "pod": "po", "pods": "po", "pending": "po", "event": "ev", "events": "ev",
              "activity": "ev", "nodepool": "np", "nodepools": "np", "nodeclaim": "nc", "nodeclaims": "nc",
              "context": "ctx", "contexts": "ctx", "disruption": "dis", "consolidation": "dis", "hist": "history"}
# the History pane's views by name (`:chains`, `:hours`); `:history` shows its NodeClaims
HISTORY_COMMANDS = {"nodeclaims": "nodeclaims", "lives": "nodeclaims", "chains": "chains", "chain": "chains",
                    "hours": "hours", "churn": "hours", "cost": "hours"}
PANE_SORTS = {"nodes": list(NODE_SORTS), "pending": list(PENDING_SORTS), "activity": list(ACTIVITY_SORTS),
              "history": list(HISTORY_SORTS)}
# shift+letter sorts the pane shown by one column, as k9s does (again: the other way); S and G are taken
SORT_KEYS = {
    "nodes": {"N": "name", "T": "type", "Y": "capacity", "O": "nodepool", "C": "cpu%", "M": "memory%", "P": "pods",
              "A": "age", "R": "price", "D": "consolidation"},
    "pending": {"N": "pod", "C": "cpu", "M": "memory", "A": "age", "I": "simulated", "R": "reason", "K": "karpenter"},
    "activity": {"L": "line", "T": "time", "V": "level", "E": "event", "D": "details"},
    "history": {"N": "nodeclaim", "O": "nodepool", "T": "type", "Z": "zone", "Y": "capacity", "R": "price",
                "C": "created", "L": "launch→ready", "E": "end", "D": "at", "X": "disrupt→gone", "I": "lived",
                "B": "replaced by"},
}
SORT_LETTERS = {letter: "Sort by " + ", ".join(f"{keys[letter]} ({pane})" for pane, keys in SORT_KEYS.items()
                                                if letter in keys)
                for letter in sorted({letter for keys in SORT_KEYS.values() for letter in keys})}
COMMANDS = sorted({*ALIASES, *LONG_NAMES, *HISTORY_COMMANDS, "budgets", "whatif", "help", "quit"})


def _node_style(column: int, cell: str) -> str | None:
    if column in (4, 5):
        return usage_level(cell)
    if column == 2:
        return {"spot": "spot", "on-demand": "on-demand", "Fargate": "fargate"}.get(cell)
    return None


def _pending_style(column: int, cell: str) -> str | None:
    return "flag" if column == 0 and cell.startswith("≠") else None


def _activity_style(column: int, cell: str) -> str | None:
    if column == 2:
        return {"error": "bad", "ERROR": "bad", "warn": "warn", "WARN": "warn", "warning": "warn"}.get(cell)
    return None


class MainScreen(Screen):
    BINDINGS = [
        Binding("enter", "drill", "Drill in / fold"),
        # priority: run as the key arrives, so the keys typed after it ("/web" at once) land in the box
        Binding("slash", "filter", "Filter", priority=True),
        Binding("colon", "command", "Command", priority=True),
        Binding("s", "sort", "Sort"),
        Binding("S", "reverse", "Reverse sort", show=False),
        *(Binding(letter, f"sort_by('{letter}')", said, show=False) for letter, said in SORT_LETTERS.items()),
        Binding("y", "yaml", "YAML"),
        Binding("escape", "clear", "Back / clear", show=False),
        Binding("1", "pane('nodes')", "Nodes", show=False),
        Binding("2", "pane('pending')", "Pending", show=False),
        Binding("3", "pane('activity')", "Activity", show=False),
        Binding("4", "pane('disruption')", "Disruption", show=False),
        Binding("5", "pane('history')", "History", show=False),
    ]

    # Each pane's own state: a change redraws that pane only.
    filters: reactive[dict] = reactive(lambda: {pane: "" for pane in PANES}, init=False)
    sorts: reactive[dict] = reactive(lambda: {"nodes": ("name", False), "pending": ("pod", False),
                                              "activity": ("line", False), "history": ("created", False)},
                                   init=False)
    workload: reactive[str] = reactive("", init=False)  # the pending pod whose workload the zone balance shows

    def __init__(self) -> None:
        super().__init__()
        self.folded: set[str] = set()
        self._panes: dict[str, Widget] = {}  # pane -> its widget, displayed while it is shown
        self._activity: dict[str, object] = {}   # Activity row key -> its ActivityRow (enter, y)
        self._buffers: dict[str, object] = {}    # CapacityBuffer key -> its BufferGroup, as Pending shows it
        self._spreads: dict[str, list[str]] = {}  # workload -> the zone balance lines (one scan of the pods each)
        self._strips: dict[str | None, tuple] = {}  # strip id -> what it shows
        self._launchable: tuple | None = None  # (launch_key, zone -> NodePools that may launch there)
        self._searching: tuple | None = None   # the launch_key a worker is finding the zones for
        # The Nodes pane's rows per zone group, kept for one (overview, consolidation marks): see _node_block
        self._header: str | None = None        # the header's line on screen
        self._blocks_for: tuple | None = None
        self._blocks: dict[int, tuple] = {}   # id(a zone's nodes in an order) -> (them, rows, keys, widths)
        # each zone's node rows as the table shows them, by node name, and their widths: see _zone_rows
        self._zone_rows: dict[str, tuple[dict[str, tuple[str, ...]], list[int]]] = {}

    @property
    def sort(self) -> str:
        """The nodes pane's sort (kept for the command palette and scripts)."""
        return self.sorts["nodes"][0]

    def _pane(self, pane: str, widget: Widget) -> Widget:
        """``widget`` is ``pane``; only the Nodes pane is displayed at first."""
        widget.display = pane == "nodes"
        widget.add_class("pane")
        self._panes[pane] = widget
        return widget

    def _show_pane(self, pane: str) -> None:
        """Display ``pane`` and no other (none on a terminal too small to show a table)."""
        small = self.has_class("too-small")
        for name, widget in self._panes.items():
            widget.display = name == pane and not small

    def compose(self) -> ComposeResult:
        yield Static(id="source")
        yield Static(id="too-small")
        yield PaneBar(PANE_TITLES, "nodes", id="panes")
        # The panes sit on the screen itself, the one shown displayed and the others not (see _show_pane):
        # no container around them all, whose every line Textual would draw again on each switch. A pane
        # with a strip under its table is one container: the strip takes at most 40% of the pane.
        yield self._pane("nodes", Vertical(
            VirtualTable(NODE_COLUMNS, shrink=NODE_SHRINK, drop=NODE_DROP, cut_start=frozenset({0}),
                         styler=_node_style, id="nodes-table"),
            Static(id="zone-balance", classes="strip"), id="nodes"))
        # The reasons are long: capped so every column stays on screen (the strip below has them all).
        yield self._pane("pending", Vertical(
            VirtualTable(PENDING_COLUMNS, max_widths={4: SIMULATED_WIDTH, 5: REASON_WIDTH, 6: KARPENTER_WIDTH},
                         shrink=PENDING_SHRINK, cut_middle=frozenset({0}), styler=_pending_style, id="pending-table"),
            Static(id="pending-detail", classes="strip"), id="pending"))
        yield self._pane("activity", VirtualTable(ACTIVITY_COLUMNS, shrink=ACTIVITY_SHRINK, styler=_activity_style,
                                                  id="activity-table"))
        yield self._pane("disruption", DisruptionPane(id="disruption-pane"))
        yield self._pane("history", HistoryPane(id="history-pane"))
        yield Crumb(id="crumb")
        yield Input(placeholder="filter: regex, !inverse, label key=value (live; enter keeps it, escape clears)",
                    id="filter")
        yield Input(placeholder=":no :po :ev :np :nc :ctx :disruption :history :chains :hours :whatif :help :quit "
                                "(→ completes)",
                    suggester=SuggestFromList(COMMANDS, case_sensitive=False), id="command")
        yield KeyBar()

    def on_mount(self) -> None:
        if len(self.app.overview.node_rows) > FOLD_AT:
            self.folded = {row.zone for row in self.app.overview.node_rows}
        self.refresh_all()
        self.query_one("#nodes-table", VirtualTable).focus()

    class Open(Message):
        """Asks the app for another screen: ``node`` or ``pod`` (a drill-in on ``name``), ``whatif``, ``help``."""

        def __init__(self, what: str, name: str = "") -> None:
            super().__init__()
            self.what, self.name = what, name

    class ZonesFound(Message):
        """The zones the NodePools may launch into, worked out off the event loop."""

        def __init__(self, key: tuple, zones: dict[str, tuple[str, ...]]) -> None:
            super().__init__()
            self.key, self.zones = key, zones

    class NodeRowsReady(Message):
        """Every zone's node rows made ready for the table, off the event loop (see prepare_node_rows)."""

        def __init__(self, key: tuple, zones: dict[str, tuple[dict[str, tuple[str, ...]], list[int]]],
                     blocks: dict[int, tuple]) -> None:
            super().__init__()
            self.key, self.zones, self.blocks = key, zones, blocks

    @work(thread=True, exclusive=True, group="node-rows", exit_on_error=False, description="the nodes' rows")
    def prepare_node_rows(self, key: tuple, sort: tuple[str, bool]) -> None:
        """What a key would otherwise build on its first use, built once the screen is up (and again for
        a new snapshot or new consolidation marks). Each zone's node rows formatted, made visible and
        measured, and its nodes in the pane's sort: the first unfold of a 7,000-node zone then finds its
        rows ready, where it sorted, formatted and measured them on the key (118 ms on 20,000 nodes). And
        the rows' filter texts (the first filter key made them, 118 ms)."""
        worker = get_current_worker()
        overview, marks = key
        zones = {}
        for zone, rows in overview.node_index.by_zone.items():
            if worker.is_cancelled:
                return
            zones[zone] = _zone_rows(overview, marks, rows)
        orders = overview.node_index.prepare(*sort)
        blocks = {id(nodes): (nodes, *_block(nodes, zones[zone])) for zone, nodes in orders.items()}
        self.post_message(self.NodeRowsReady(key, zones, blocks))
        overview.node_index.filter_texts()
        # What was made here lives as long as the snapshot: it leaves the young generations now, while the
        # screen is idle, not in the collections that the first keys' own allocations set off.
        gc.collect(1)

    def on_main_screen_node_rows_ready(self, message: NodeRowsReady) -> None:
        if message.key == self._blocks_for:   # not a snapshot or marks gone since
            self._zone_rows = {**message.zones, **self._zone_rows}
            self._blocks = {**message.blocks, **self._blocks}

    # A description of our own: Textual's default is the arguments' repr, a walk of the whole snapshot.
    @work(thread=True, exclusive=True, group="launchable-zones", exit_on_error=False,
          description="zones the NodePools may launch into")
    def find_launchable_zones(self, key: tuple, snapshot, catalog) -> None:
        """Merging every NodePool with every catalog type takes a few hundred ms on a big catalog:
        the first paint does not wait for it, the zone rows appear when it is done."""
        self.post_message(self.ZonesFound(key, launchable_zones(snapshot, catalog)))

    def on_main_screen_zones_found(self, message: ZonesFound) -> None:
        if message.key != self._searching:
            return  # a live update changed the NodePools; their own search is under way
        self._launchable, self._spreads = (message.key, message.zones), {}
        if len(self.app.overview.node_rows) > FOLD_AT:
            self.folded |= set(message.zones)
        self.fill_nodes()

    def on_screen_resume(self) -> None:
        """Back from a drill-in or the what-if panel: the header may have news (edits made), and the
        Disruption pane says whether it answers for the captured cluster while a what-if is held."""
        self.refresh_header()
        self.query_one(DisruptionPane).whatif_changed()

    def refresh_header(self) -> None:
        # snapshot name, context, what-if name and the API server's errors: all data
        line = self.app.source_line()
        if line != self._header:  # a Static's update lays out the whole screen: only when the words change
            self._header = line
            self.query_one("#source", Static).update(plain(line))

    def on_resize(self, event) -> None:
        width, height = event.size
        small = width < MIN_SIZE[0] or height < MIN_SIZE[1]
        if small != self.has_class("too-small"):
            self.set_class(small, "too-small")
            self._show_pane(self.pane)
        if small:
            self.query_one("#too-small", Static).update(
                f"karptui needs a terminal of at least {MIN_SIZE[0]}×{MIN_SIZE[1]} (this one is {width}×{height})")

    # ---- filling -------------------------------------------------------------------------
    def launchable(self) -> dict[str, tuple[str, ...]]:
        """Zone -> NodePools that may launch there ({} until a worker has found them for these NodePools)."""
        key = launch_key(self.app.snapshot, self.app.catalog)
        found = self._launchable
        if found is not None and found[0] == key:
            return found[1]
        if self._searching != key:
            self._searching = key
            self.call_after_refresh(self.find_launchable_zones, key, self.app.snapshot, self.app.catalog)
        return found[1] if found is not None else {}  # the last answer until the new one comes

    def refresh_all(self) -> None:
        self._spreads = {}
        self.refresh_header()
        self.fill_nodes()
        self.fill_pending()
        self.fill_activity()
        self.fill_disruption()
        self.fill_history()
        self.refresh_crumb()

    def fill_nodes(self) -> None:
        overview = self.app.overview
        name, reverse = self.sorts["nodes"]
        match = Filter(self.filters["nodes"])
        keep = match if match else None
        marks = self.query_one(DisruptionPane).marks
        if self._blocks_for != (overview, marks):  # another snapshot, or the Disruption pane's new answer
            self._blocks_for, self._blocks, self._zone_rows = (overview, marks), {}, {}
            self.call_after_refresh(self.prepare_node_rows, self._blocks_for, self.sorts["nodes"])
        rows, keys = [], []
        widths = [0] * len(NODE_COLUMNS)
        groups = overview.node_index.groups(name, self.launchable(), reverse, keep, self.folded, marks)
        for group in groups:
            folded = group.zone in self.folded
            block = [zone_cells(group, folded)], [f"zone:{group.zone}"]
            if not folded:
                block = self._node_block(group, block, keep is None)
            else:
                block = (list(visible_rows(block[0])), block[1], measure(block[0], len(NODE_COLUMNS)))
            rows += block[0]
            keys += block[1]
            widths = [max(a, b) for a, b in zip(widths, block[2])]
        if not groups:
            rows.append((f"(no nodes match{': ' + match.problem if match.problem else ''})" if match else
                         f"({self.app.missing('Node') or 'the snapshot has no nodes'})",))
            keys.append("empty")
            rows = list(visible_rows(rows))
            widths = measure(rows, len(NODE_COLUMNS))
        table = self.query_one("#nodes-table", VirtualTable)
        table.set_rows(rows, keys, widths)
        table.show_sort(NODE_SORTS.index(name), reverse)
        self.refresh_zone_balance()

    def _node_block(self, group, head: tuple[list, list], keep: bool) -> tuple[list, list, list[int]]:
        """An unfolded zone's rows (its own, then its nodes'), made visible and measured: once per order
        of the zone's nodes the snapshot's node index hands out (``keep``: the same tuple again for the
        same sort; a worker made the pane's sort's ahead), so unfolding, re-sorting, folding and clearing
        a filter on 20,000 nodes format nothing. The nodes' rows come from the zone's, made ready by the
        worker (or here, once, if a key beats it): a zone's rows in another order, or some of them, are
        the same rows."""
        found = self._blocks.get(id(group.nodes)) if keep else None
        if found is not None and found[0] is group.nodes:
            _, nodes, node_keys, node_widths = found
        else:
            overview, marks = self._blocks_for
            whole = len(group.nodes) == len(overview.node_index.by_zone.get(group.zone, ()))
            ready = self._zone_rows.get(group.zone)
            if ready is None:   # a key before the worker: the zone's rows (a filter's: those it keeps) made here
                ready = _zone_rows(overview, marks, group.nodes)
                if whole:
                    self._zone_rows[group.zone] = ready
            nodes, node_keys, node_widths = _block(group.nodes, ready)
            if not whole and len(ready[0]) != len(nodes):   # some of the zone's rows (a filter): their own widths
                node_widths = measure(nodes, len(NODE_COLUMNS))
            if keep:
                self._blocks[id(group.nodes)] = (group.nodes, nodes, node_keys, node_widths)
        zone = list(visible_rows(head[0]))
        widths = [max(a, b) for a, b in zip(node_widths, measure(zone, len(NODE_COLUMNS)))]
        return zone + nodes, head[1] + node_keys, widths

    def fill_pending(self) -> None:
        attempts = self.app.attempts
        match = Filter(self.filters["pending"])
        keep = match.predicate(lambda r: (r.key, r.owner, r.reason, r.karpenter))
        name, reverse = self.sorts["pending"]
        pending = sort_pending([r for r in self.app.pending if keep(r)], name, attempts, reverse)
        counts = Counter(r.owner for r in pending)
        rows, keys = [], []
        owner = None
        for row in pending:
            if row.owner != owner:
                owner = row.owner
                rows.append((f"▼ {owner}  {counts[owner]} pending",))
                keys.append(f"owner:{owner}")
            simulated, disagrees = simulated_cell(row, attempts.get(row.key))
            rows.append((f"{'≠ ' if disagrees else '  '}{row.key}", cpu(row.cpu), human_bytes(row.memory),
                         age(row.created, self.app.now), simulated, row.reason or "-", row.karpenter_short or "-"))
            keys.append(f"pod:{row.key}")
        if not pending:
            rows.append((f"({self.app.missing('Pod') or 'no pending pods'})",))
            keys.append("empty")
        # capacity buffers' virtual pods: after the pending pods, marked as no pods of the cluster
        result = self.app.result
        self._buffers = {g.buffer: g for g in buffer_groups(result.buffers if result is not None else None)}
        keep_pod = match.predicate(lambda b: (b.key, b.buffer, "buffer pod"))
        keep_buffer = match.predicate(lambda g: (g.buffer, "CapacityBuffer buffer pod"))
        for group in self._buffers.values():
            shown = [b for b in group.rows if keep_pod(b)]
            if not shown and not keep_buffer(group):
                continue
            rows.append(group.cells())
            keys.append(f"buffer:{group.buffer}")
            for b in shown:
                rows.append(b.cells())
                keys.append(f"bufferpod:{b.key}")
        table = self.query_one("#pending-table", VirtualTable)
        table.set_rows(rows, keys)
        table.show_sort(list(PENDING_SORTS).index(name), reverse)
        self.refresh_pending_detail()

    def fill_activity(self) -> None:
        match = Filter(self.filters["activity"])
        keep = match.predicate(lambda r: (r.kind, r.summary, r.level))
        shown = [r for r in activity_rows(self.app.events, snapshot_events=self.app.overview.karpenter_events)
                 if keep(r)][-ACTIVITY_ROWS:]
        name, reverse = self.sorts["activity"]
        column = ACTIVITY_SORTS.index(name)
        rows, keys = _activity_cells(shown)
        self._activity = dict(zip(keys, shown))   # key -> its row, for enter and y
        if column or reverse:
            def key(i: int):  # a log line's number as a number; a Kubernetes event (no line) first
                cell = rows[i][column]
                return (int(cell) if cell.isdigit() else -1, i) if column == 0 else (cell, i)

            order = sorted(range(len(rows)), key=key, reverse=reverse)
            rows, keys = [rows[i] for i in order], [keys[i] for i in order]
        if not shown:
            rows, keys = [("", "", "", "", READING_LOG if self.app.logs_reading else
                           "(no Karpenter logs: open a snapshot with --logs FILE)")], ["empty"]
        table = self.query_one("#activity-table", VirtualTable)
        table.set_rows(rows, keys)
        table.show_sort(column, reverse)

    def fill_disruption(self, start: bool = False) -> None:
        """The consolidation answer for the snapshot shown: computed in the pane's worker on start
        (or when the pane is first shown, if the app does not simulate on start)."""
        pane = self.query_one(DisruptionPane)
        if start or self.app.simulate_on_start or pane.started:
            overview = self.app.overview
            pane.start(overview.scheduling_key, overview.snapshot, self.app.catalog,
                       [*overview.karpenter_events, *self.app.events])
        pane.fill(self.filters["disruption"])

    def on_disruption_pane_computed(self, message: DisruptionPane.Computed) -> None:
        self.fill_nodes()  # the consolidation column
        for screen in self.app.screen_stack:  # a node's drill-in opened while it was computing
            if isinstance(screen, DetailScreen) and screen.node:
                screen.set_section(DISRUPTION_SECTION, self.disruption_lines(screen.node))

    def disruption_lines(self, node: str) -> list[str]:
        """A node drill-in's Disruption section: each method's verdict once the pane's simulation has
        answered; asking starts it (so `1`, `enter` is enough), and the section fills in when it lands."""
        pane = self.query_one(DisruptionPane)
        if pane.view is not None:
            return pane.view.node_lines(node)
        self.fill_disruption(start=True)
        return [pane.error or "computing… (consolidation is simulated in the background; this fills in "
                "when it lands, or see the Disruption pane, 4)"]

    def fill_history(self, start: bool = False) -> None:
        """The History pane: built from the session's log events and the snapshot's events the first time
        it is shown, and again (in the background) whenever more lines have arrived since."""
        pane = self.query_one(HistoryPane)
        if start or pane.started:
            app = self.app
            snapshot = app.snapshot
            key = (len(app.events), len(snapshot.events), snapshot.meta.source)
            pane.start(key, app.events, snapshot, app.catalog.discounts, app.clock_of(snapshot).now,
                       "(no line of Karpenter's log read from the leader yet)" if app.live is not None else
                       READING_LOG if app.logs_reading else NO_LOG)
        pane.fill(self.filters["history"], self.sorts["history"])

    def on_history_pane_view_changed(self, message: HistoryPane.ViewChanged) -> None:
        self.refresh_crumb()

    def append_activity(self, events: list[dict]) -> None:
        """New lines of a tailed log: appended, and followed if the cursor sat on the last row."""
        table = self.query_one("#activity-table", VirtualTable)
        keep = Filter(self.filters["activity"]).predicate(lambda r: (r.kind, r.summary, r.level))
        shown = [r for r in activity_rows(events) if keep(r)]
        if not shown:
            return
        table.remove_key("empty")
        following = table.row_count == 0 or table.cursor_row >= table.row_count - 1
        rows, keys = _activity_cells(shown)
        self._activity.update(zip(keys, shown))
        table.append_rows(rows, keys)
        if following:
            table.move_cursor(table.row_count - 1)

    # ---- the strips under the tables ------------------------------------------------------
    def _pending_pod(self, key: str) -> str:
        """The pod a Pending row stands for: its own, or a workload row's first pod (the one the strip
        describes, and enter opens)."""
        kind, _, name = key.partition(":")
        if kind == "owner":
            first = next((r for r in self.app.pending if r.owner == name), None)
            return first.key if first else ""
        return name if kind == "pod" else ""

    def refresh_pending_detail(self) -> None:
        """The selected pending pod's three voices in full, and what disagrees."""
        strip = self.query_one("#pending-detail", Static)
        cursor = self.query_one("#pending-table", VirtualTable).cursor_key or ""
        kind, _, which = cursor.partition(":")
        if kind in ("buffer", "bufferpod"):   # a capacity buffer, or one of its virtual pods
            lines = buffer_detail(self._buffers, kind, which)
            if lines:
                strip.set_class(False, "disagrees")
                self._show(strip, lines)
                return
        name = self._pending_pod(cursor)
        row = next((r for r in self.app.pending if r.key == name), None) if name else None
        if row is None:
            self._show(strip, ["select a pending pod to see kube-scheduler's, the simulator's and Karpenter's "
                               "answers in full"])
            return
        result = self.app.result
        detail = pending_detail(row, self.app.attempts.get(row.key), self.app.snapshot,
                                result.nodeclaims if result is not None else (), self.app.catalog)
        strip.set_class(bool(detail.disagreement), "disagrees")
        # the ≠ line first, in bold: what the operator should check
        self._show(strip, detail.lines(), bold_first=bool(detail.disagreement))
        if self.workload != row.key:
            self.workload = row.key

    def _show(self, strip: Static, lines: list[str], bold_first: bool = False) -> None:
        """Update a strip only when its text changes: an update asks for a new layout of the screen."""
        if self._strips.get(strip.id) == (lines, bold_first):
            return
        self._strips[strip.id] = (lines, bold_first)
        content = plain_lines(lines)
        if bold_first:
            content = content.stylize("bold", 0, len(visible(lines[0])))
        strip.update(content)

    def watch_workload(self) -> None:
        """Weighed when the Nodes pane shows it: moving through Pending costs no scan of the pods."""
        if self.pane == "nodes":
            self.refresh_zone_balance()

    def refresh_zone_balance(self) -> None:
        """The zone balance of the workload selected in Pending: its pods per zone and each spread
        constraint's skew (computed once per workload: it scans the bound pods)."""
        strip = self.query_one("#zone-balance", Static)
        pod = self.app.pod_by_key.get(self.workload) if self.workload else None
        if pod is None and self.app.pending:
            pod = self.app.pod_by_key.get(self.app.pending[0].key)
        if pod is None:
            self._show(strip, ["zone balance: no pending pod, so no workload to weigh (enter folds a zone)"])
            return
        owner = next((r.owner for r in self.app.pending if r.key == pod.key and r.owner != "-"), pod.key)
        lines = self._spreads.get(owner)
        if lines is None:
            zones = [z for z in self.launchable()]
            spread = workload_spread(self.app.snapshot, pod, owner, zones)
            lines = [f"{owner} (selected in Pending): pods per zone {spread.zones_line() or '-'}"]
            lines += [f"  {check.describe()}" for check in spread.checks] or ["  no topologySpreadConstraints"]
            self._spreads[owner] = lines
        self._show(strip, lines)

    def refresh_crumb(self) -> None:
        """The state in force on the pane shown: ``nodes /web · sort cpu% ▲``."""
        pane = self.pane
        if pane not in PANE_SORTS:
            self.query_one("#crumb", Crumb).show(pane)
            return
        name, reverse = self.sorts[pane]
        shown = Filter(self.filters[pane])
        crumb = shown.crumb() + (f" ({shown.problem})" if shown.problem else "")
        hidden = self.table().hidden_columns
        sort = f"  · sort {name} {'▼' if reverse else '▲'}"
        if pane == "history":   # one pane, three views: the sort is the NodeClaims'
            view = self.query_one(HistoryPane).view
            pane = f"history: {view}"
            sort = sort if view == "nodeclaims" else ""
        self.query_one("#crumb", Crumb).show(
            visible(f"{pane}{'  ' + crumb if crumb else ''}{sort}"
                    + (f"  · too narrow for {', '.join(hidden)}" if hidden else "")))

    def on_virtual_table_columns_hidden(self, event: VirtualTable.ColumnsHidden) -> None:
        self.refresh_crumb()

    # ---- reactive state -------------------------------------------------------------------
    def watch_filters(self, old: dict, new: dict) -> None:
        for pane in PANES:
            if old.get(pane) != new.get(pane):
                self.fill(pane)
        self.refresh_crumb()

    def watch_sorts(self, old: dict, new: dict) -> None:
        for pane in PANES:
            if old.get(pane) != new.get(pane):
                self.fill(pane)
        self.refresh_crumb()

    def fill(self, pane: str) -> None:
        {"nodes": self.fill_nodes, "pending": self.fill_pending, "activity": self.fill_activity,
         "disruption": self.fill_disruption, "history": self.fill_history}[pane]()

    # ---- actions ---------------------------------------------------------------------------
    @property
    def pane(self) -> str:
        """The pane shown (its name is lit above the tables)."""
        return self.query_one(PaneBar).shown

    def table(self) -> VirtualTable:
        if self.pane == "history":
            return self.query_one(HistoryPane).table   # the view shown
        return self.query_one(f"#{self.pane}-table", VirtualTable)

    def action_pane(self, pane: str) -> None:
        """Show ``pane``: every pane stays mounted and filled, so a switch displays one and hides another
        (one layout, one frame); only the Disruption and History panes may have news to fill in."""
        if pane != self.pane:
            self.query_one(PaneBar).shown = pane
            self._show_pane(pane)
            if pane == "disruption":
                self.fill_disruption(start=True)
            elif pane == "history":
                self.fill_history(start=True)
            self.refresh_crumb()
            if pane == "nodes":
                self.refresh_zone_balance()
        self.table().focus()

    def on_pane_bar_chosen(self, message: PaneBar.Chosen) -> None:
        self.action_pane(message.pane)

    def action_sort(self) -> None:
        """The next column of the pane shown (its header shows the arrow)."""
        pane = self.pane
        if pane not in PANE_SORTS:
            return  # a pane of its own making (a later tab) sorts itself
        names = PANE_SORTS[pane]
        name, _ = self.sorts[pane]
        self.sorts = {**self.sorts, pane: (names[(names.index(name) + 1) % len(names)], False)}

    def action_sort_by(self, letter: str) -> None:
        """shift+letter: the pane shown sorted by that letter's column (SORT_KEYS); pressed again,
        the other way."""
        name = SORT_KEYS.get(self.pane, {}).get(letter)
        if name is None:
            return
        current, reverse = self.sorts[self.pane]
        self.sorts = {**self.sorts, self.pane: (name, not reverse if name == current else False)}

    def action_reverse(self) -> None:
        pane = self.pane
        if pane in PANE_SORTS:
            name, reverse = self.sorts[pane]
            self.sorts = {**self.sorts, pane: (name, not reverse)}

    def _typed_into_a_box(self, character: str) -> bool:
        """A priority key pressed while a box has focus is a character of what is typed there."""
        if isinstance(self.focused, Input):
            self.focused.insert_text_at_cursor(character)
            return True
        return False

    def action_filter(self) -> None:
        if self._typed_into_a_box("/") or self.pane not in PANES:
            return
        box = self.query_one("#filter", Input)
        box.value = self.filters[self.pane]
        box.add_class("visible")
        self.set_focus(box)  # now: box.focus() waits its turn, after the keys typed with "/"

    def action_command(self) -> None:
        if self._typed_into_a_box(":"):
            return
        box = self.query_one("#command", Input)
        box.value = ""
        box.add_class("visible")
        self.set_focus(box)

    def action_clear(self) -> None:
        for box in self.query(Input):
            box.remove_class("visible")
        if self.filters.get(self.pane):
            self.filters = {**self.filters, self.pane: ""}
        self.table().focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        """The ``/`` filter is live: every key narrows the pane shown."""
        if event.input.id == "filter" and event.input.has_class("visible"):
            if event.value.strip() != self.filters[self.pane]:
                self.filters = {**self.filters, self.pane: event.value.strip()}

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.input.remove_class("visible")
        if event.input.id == "filter":
            self.filters = {**self.filters, self.pane: event.value.strip()}
            self.table().focus()
            return
        word = event.value.strip().lstrip(":").lower()
        alias = LONG_NAMES.get(word, word)
        if alias in ALIASES:
            pane, note = ALIASES[alias]
            if pane is not None:
                self.action_pane(pane)
            if note:
                notify_plain(self, f":{word}: {note}", timeout=6)
            self.table().focus()
        elif word in HISTORY_COMMANDS:  # a view of the History pane (5 then v)
            self.action_pane("history")
            self.query_one(HistoryPane).show_view(HISTORY_COMMANDS[word])
        elif word in ("budgets", "budget"):  # the Disruption pane's budgets view (4 then b)
            self.action_pane("disruption")
            self.query_one(DisruptionPane).show_budgets(True)
        elif word in ("whatif", "what-if", "w"):
            self.post_message(self.Open("whatif"))
        elif word in ("help", "?"):
            self.post_message(self.Open("help"))
        elif word in ("q", "quit"):
            self.app.exit()
        else:
            notify_plain(self, f"unknown command :{word} (no, po, ev, np, nc, ctx, disruption, history, chains, "
                               "hours, whatif, help, quit)",
                         severity="warning")
            self.table().focus()

    def action_drill(self) -> None:
        self._open(self.table().cursor_key or "")

    def on_virtual_table_row_selected(self, event: VirtualTable.RowSelected) -> None:
        """enter or space on a row (the table's own binding): fold a zone, or drill into a node or pod."""
        self._open(event.key)

    def on_virtual_table_highlighted(self, event: VirtualTable.Highlighted) -> None:
        if event.table.id == "pending-table":
            self.refresh_pending_detail()

    def _open(self, key: str) -> None:
        kind, _, name = key.partition(":")
        if kind == "zone":
            self.folded ^= {name}
            self.fill_nodes()
        elif kind in ("node", "pod"):
            self.post_message(self.Open(kind, name))
        elif kind == "owner" and self._pending_pod(key):
            self.post_message(self.Open("pod", self._pending_pod(key)))
        elif kind in ("line", "event") and key in self._activity:
            self._show_activity(self._activity[key])
        elif kind in ("life", "chain", "link", "hour", "pool"):
            self._open_history(kind, name)

    def _open_history(self, kind: str, name: str) -> None:
        """A NodeClaim's drill-in (its "why did it go" first; from a chain, its first NodeClaim; from a link,
        the one replaced), or an hour's."""
        timeline = self.query_one(HistoryPane).timeline
        if timeline is None:
            return
        if kind in ("hour", "pool"):
            hour = name if kind == "hour" else name.rsplit(":", 1)[0]   # pool:HOUR:NODEPOOL
            self.app.push_screen(DetailScreen(f"hour {hour} (UTC)", hour_detail(timeline, hour)))
            return
        claim = name.partition(":")[2] if kind == "link" else name
        life = timeline.life(claim)
        if life is not None:
            self.app.push_screen(DetailScreen(f"NodeClaim {life.nodeclaim}", life_detail(timeline, life),
                                              ref=("nodeclaim", life.nodeclaim)))

    def _show_activity(self, row) -> None:
        """An Activity row in full: the line as written and what karptui read from it."""
        raw = self.app.log_line(row.line) if row.line else None
        title = f"Karpenter log line {row.line}" if row.line else f"Kubernetes event {row.time}"
        self.app.push_screen(DetailScreen(title, activity_detail(row, raw)))

    def action_yaml(self) -> None:
        """``y``: the selected node's or pod's manifest as the snapshot holds it (on an Activity
        row: the line in full, as enter shows it)."""
        key = self.table().cursor_key or ""
        kind, _, name = key.partition(":")
        if kind in ("line", "event") and key in self._activity:
            self._show_activity(self._activity[key])
            return
        if kind in ("life", "chain", "link"):   # a NodeClaim of the History pane: the lines it came from
            name = name.partition(":")[2] if kind == "link" else name
            kind = "nodeclaim"
        if not self.app.show_yaml(kind, name):
            notify_plain(self, "y shows a node's or a pod's YAML, or a NodeClaim's lines: select one first",
                         severity="warning")


def _zone_rows(overview, marks, rows) -> tuple[dict[str, tuple[str, ...]], list[int]]:
    """Node rows as the Nodes table shows them (the overview's cells and the consolidation mark, made
    visible), by node name, and their widest cells."""
    cells = list(visible_rows([overview.cells(row) + (marks.get(row.name, ""),) for row in rows]))
    return dict(zip([row.name for row in rows], cells)), measure(cells, len(NODE_COLUMNS))


def _block(nodes, ready: tuple[dict[str, tuple[str, ...]], list[int]]) -> tuple[list, list[str], list[int]]:
    """Nodes' table rows and keys in their order, from their zone's rows (:func:`_zone_rows`), and the
    zone's widths."""
    by_name, widths = ready
    names = [row.name for row in nodes]
    return [by_name[name] for name in names], [f"node:{name}" for name in names], widths


def _activity_cells(rows) -> tuple[list[tuple[str, ...]], list[str]]:
    """A Kubernetes event has no log line: its line column says "event" and its key is its place."""
    return ([(str(r.line) if r.line else "event", r.time, r.level, r.kind, r.summary) for r in rows],
            [f"line:{r.line}" if r.line else f"event:{i}:{r.time}" for i, r in enumerate(rows)])
