"""The what-if panel (DESIGN §1, journey 3): edit the cluster, rerun the simulator, read the diff.

Keyboard-first: pick a target (``j``/``k``, ``enter``), change its form, press
``enter`` in any field (or the Apply button) to turn what changed into edits.
``ctrl+r`` (or ``r`` when no text field has the focus) runs the what-if -- with any
change not applied yet, which the panel names while it is pending -- in a thread
worker that answers with a :class:`WhatIfScreen.Finished` message; ``escape``
cancels it and the run really stops (the session checks the flag as it goes).
One key acts on the selected workload: ``+``/``-`` replicas, ``x`` drops a spread
constraint, ``s`` relaxes one to ScheduleAnyway. Every edit and every number comes
from :mod:`karptui.views.whatif_form` and the headless
:class:`karptui.whatif.session.WhatIfSession` (which ``simulate --whatif`` uses too);
this screen only shows them and hands back what the operator typed.
"""

from __future__ import annotations

import copy
import os
import time
import weakref
from dataclasses import dataclass
from typing import Any, Callable

from textual import on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Button, DataTable, Input, Label, ListItem, ListView, OptionList, Select, Static, Switch
from textual.worker import Worker, get_current_worker

from ...errors import InputError
from ...model import Snapshot
from ...text import visible
from ...views import whatif_form as wf
from ...views.nodes import short_names_in
from ...whatif import WhatIf, dump_whatif, load_whatif, save_whatif
from ...whatif.session import WhatIfSession
from ..keybar import KeyBar
from ..plain import notify_plain, plain, plain_lines, plain_text
from .confirm import ConfirmScreen

SPREAD_FIELDS = ("maxSkew", "topologyKey", "whenUnsatisfiable", "minDomains", "nodeAffinityPolicy",
                 "nodeTaintsPolicy", "matchLabelKeys")
CHOICES = {"whenUnsatisfiable": wf.WHEN_UNSATISFIABLE, "nodeAffinityPolicy": wf.POLICIES,
           "nodeTaintsPolicy": wf.POLICIES}
# Flat form keys shown as fields, in form order: label, placeholder.
FIELDS = {
    "replicas": ("replicas", ""), "node_selector": ("nodeSelector", "key=value, ..."),
    "tolerations": ("tolerations", "key=value:Effect, key:Effect, *"),
    "node_affinity": ("node affinity", "key In a,b; key Exists | other term"),
    "node_affinity_preferred": ("  preferred", "50: key In a,b | 10: ..."),
    "pod_affinity": ("pod affinity", "app=web @ topology.kubernetes.io/zone | ..."),
    "pod_affinity_preferred": ("  preferred", "50: app=web @ topology.kubernetes.io/zone | ..."),
    "pod_anti_affinity": ("pod anti-affinity", "app=web @ kubernetes.io/hostname | ..."),
    "pod_anti_affinity_preferred": ("  preferred", "50: app=web @ kubernetes.io/hostname | ..."),
    "requirements": ("requirements", "key In a,b; key Exists"), "taints": ("taints", "key=value:Effect, ..."),
    "cpu": ("limit cpu", "no limit"), "memory": ("limit memory", "no limit"), "weight": ("weight", "0-100"),
    "cordoned": ("cordoned", ""), "removed": ("removed", ""),
    "instance_type": ("instance type", "e.g. m5.xlarge"), "zone": ("zone", ""), "count": ("count", ""),
    "capacity_type": ("capacity type", ""), "nodepool": ("nodepool", ""),
}
ADD_NODES = wf.TargetRow("add-nodes", "add", "+ add nodes…")
FORMS = {"workload": (wf.workload_form, wf.workload_edits), "nodepool": (wf.nodepool_form, wf.nodepool_edits),
         "node": (wf.node_form, wf.node_edits), "add": (wf.add_nodes_form, wf.add_nodes_edits)}
WIDE = 130  # columns from which the panes sit side by side; below, they stack
FIELD_WIDGETS = "Input, Select, Switch, Button"


def _slots(draft: dict):
    """(widget id, the dict holding the value, its key) for every field the form shows of a
    draft, in one place for reading the form and for showing values in it."""
    for key, value in draft.items():
        if key in FIELDS and isinstance(value, (str, bool)):
            yield key, draft, key
    for i, c in enumerate(draft.get("constraints", [])):
        for f in SPREAD_FIELDS:
            yield f"c{i}-{f}", c, f
    for j, c in enumerate(draft.get("containers", [])):
        for what in ("cpu", "memory"):
            yield f"{what}-{j}", c, what


@dataclass(frozen=True)
class _Slot:
    """One place in the form: what widget it is (``key``: kind and id), how to make it, and how to
    show this form's values in one already on screen."""

    key: str
    make: Callable[[], Widget]
    show: Callable[[Widget], None] = lambda widget: None


def _static_slot(text: str) -> _Slot:
    return _Slot(f"section {text}", lambda: Static(text, classes="section"))


def _button_slot(widget_id: str, label: str) -> _Slot:
    return _Slot(f"button {widget_id}", lambda: Button(label, id=widget_id, compact=True))


def _field(label: str, widget: Widget) -> Horizontal:
    return Horizontal(Label(plain(label), classes="field-label"), widget, classes="field")  # a container's name


def _typed(shown: Any, original: Any) -> Any:
    """What a field holds: the original value while the operator left its shown form alone.

    Fields show values made visible (karptui.text); reading that back unchanged must not
    turn into an edit of a value holding control characters.
    """
    return original if isinstance(original, str) and shown == visible(original) else shown


class WhatIfScreen(Screen):
    """Edits to a copy of the snapshot, and the simulation compared with the baseline."""

    class Finished(Message):
        """A run's summary (:func:`karptui.views.whatif_summary.summary`), posted by the worker."""

        def __init__(self, summary: dict) -> None:
            super().__init__()
            self.summary = summary

    class Progress(Message):
        """How far a run has got (``what-if, kube-scheduler``, done, total), from the worker.

        A newer one supersedes one still queued: the status line shows only the latest."""

        def __init__(self, phase: str, done: int, total: int) -> None:
            super().__init__()
            self.phase, self.done, self.total = phase, done, total

        def can_replace(self, message: Message) -> bool:
            return isinstance(message, WhatIfScreen.Progress)

    PROGRESS_INTERVAL = 0.25  # seconds between progress messages: a status line, not a flood
    HORIZONTAL_BREAKPOINTS = [(0, "-narrow"), (WIDE, "-wide")]

    DEFAULT_CSS = """
    WhatIfScreen #panes { layout: horizontal; }
    WhatIfScreen #side { width: 34; }
    WhatIfScreen #middle { width: 54; padding: 0 1; }
    WhatIfScreen #results { width: 1fr; padding: 0 1; }
    WhatIfScreen #targets-box { height: 2fr; }
    WhatIfScreen #edits-box { height: 1fr; }
    WhatIfScreen #targets, WhatIfScreen #edits { height: 1fr; }
    WhatIfScreen.-narrow #panes { layout: vertical; }
    WhatIfScreen.-narrow #side { width: 1fr; height: 6; layout: horizontal; }
    WhatIfScreen.-narrow #targets-box { width: 3fr; height: 1fr; }
    WhatIfScreen.-narrow #edits-box { width: 2fr; height: 1fr; padding-left: 1; }
    WhatIfScreen.-narrow #middle { width: 1fr; height: 1fr; padding: 0; }
    WhatIfScreen.-narrow #results { width: 1fr; height: 1fr; padding: 0; }
    WhatIfScreen.-narrow.ran #middle { height: 2fr; }
    WhatIfScreen.-narrow.ran #results { height: 3fr; }
    WhatIfScreen .pane-title { color: $accent; text-style: bold; }
    WhatIfScreen .section { color: $text-primary; text-style: bold; margin-top: 1; }
    WhatIfScreen .field { height: auto; }
    WhatIfScreen .field-label { width: 20; }
    WhatIfScreen .field Input, WhatIfScreen .field Select { width: 1fr; }
    WhatIfScreen .field:focus-within .field-label { color: $accent; text-style: bold; }
    WhatIfScreen .field Input:focus { background: $accent 25%; }
    WhatIfScreen Button:focus, WhatIfScreen Switch:focus { text-style: bold reverse; }
    WhatIfScreen ListView:focus, WhatIfScreen OptionList:focus { background-tint: $accent 10%; }
    WhatIfScreen #targets { border: none; padding: 0; background: transparent; text-wrap: nowrap;
                            text-overflow: ellipsis; }
    WhatIfScreen #targets:focus { border: none; }
    WhatIfScreen #targets > .option-list--option { padding: 0; }
    WhatIfScreen .error { color: $error; text-style: bold; }
    WhatIfScreen #pending { color: $warning; text-style: bold; }
    WhatIfScreen #summary { height: auto; }
    WhatIfScreen #results DataTable { height: auto; max-height: 14; }
    WhatIfScreen #path { dock: bottom; display: none; }
    """
    BINDINGS = [
        Binding("escape", "back", "Back / cancel run"),
        Binding("ctrl+r", "run", "Run what-if"),
        Binding("r", "run", "Run", show=False),
        Binding("u", "undo", "Undo edit"),
        Binding("ctrl+y", "redo", "Redo edit"),
        Binding("ctrl+s", "save", "Save what-if"),
        Binding("ctrl+o", "load", "Load what-if"),
        Binding("a", "add_nodes", "Add nodes"),
        Binding("plus,equals_sign", "replicas(1)", "+1 replica"),
        Binding("minus", "replicas(-1)", "-1 replica"),
        Binding("x", "drop_constraint", "Drop spread constraint"),
        Binding("s", "relax_constraint", "Spread: ScheduleAnyway"),
        Binding("c", "consolidation", "Consolidation on/off"),
        Binding("g", "list_end(0)", "Top of the list", show=False),
        Binding("G", "list_end(1)", "Bottom of the list", show=False),
        Binding("j", "cursor(1)", "Down / next field", show=False),
        Binding("k", "cursor(-1)", "Up / previous field", show=False),
        Binding("down", "field(1)", "Next field", show=False),      # lists keep their own up and down
        Binding("up", "field(-1)", "Previous field", show=False),
    ]

    def __init__(self, snapshot: Snapshot, catalog: Any = None, whatif_name: str = wf.DEFAULT_NAME) -> None:
        super().__init__()
        self.snapshot, self.catalog = snapshot, catalog
        self.session = WhatIfSession(snapshot, catalog, name=whatif_name)
        self.rows = [*wf.target_rows(snapshot), ADD_NODES]
        self.choices = {**CHOICES, **wf.add_nodes_choices(snapshot)}
        self.selected: wf.TargetRow | None = None
        self.before: dict = {}   # the form as the edit stack leaves the target
        self.draft: dict = {}    # the form as shown (add/remove constraint change it before Apply)
        self.path_mode = ""
        self.worker: Worker | None = None
        self.consolidate = False  # Karpenter's consolidation in runs: minutes on big clusters, so asked for
        self.rendering = False    # the form's widgets are being replaced: they hold nothing typed yet
        self._pending_queued = False  # a look at what is typed but not applied is due after this refresh
        self._slot_keys: weakref.WeakKeyDictionary[Widget, str] = weakref.WeakKeyDictionary()  # form widget: its slot

    @property
    def stack(self) -> wf.EditStack:
        return self.session.stack

    @property
    def whatif_name(self) -> str:
        return self.session.name

    @whatif_name.setter
    def whatif_name(self, name: str) -> None:
        self.session.name = name

    def compose(self) -> ComposeResult:
        with Horizontal(id="panes"):
            with Vertical(id="side"):
                with Vertical(id="targets-box"):
                    yield Static("Targets (enter selects)", classes="pane-title")
                    # an OptionList draws only the lines on screen: a ListView of 5,000 nodes' rows
                    # took 20 s to open and slowed every later redraw of the panel
                    yield OptionList(*(plain(r.label) for r in self.rows), id="targets")
                with Vertical(id="edits-box"):
                    yield Static("Edits (u undo · ctrl+y redo)", classes="pane-title")
                    yield ListView(id="edits")
            with Vertical(id="middle"):
                yield Static("Select a target", id="form-title", classes="pane-title")
                yield Static("", id="error", classes="error")
                yield Static("", id="pending")
                yield VerticalScroll(id="form", can_focus=False)  # tab goes straight to its first field
            with VerticalScroll(id="results"):
                yield Static(self._idle_title(), id="results-title", classes="pane-title")
                yield Static("", id="summary")
                yield DataTable(id="zones", cursor_type="row", zebra_stripes=True)
                yield DataTable(id="claims", cursor_type="row")
                yield DataTable(id="actions", cursor_type="row")
        yield Input(id="path")
        yield KeyBar()

    def on_mount(self) -> None:
        self.query_one("#zones", DataTable).add_columns("workload / zone", "before", "after")
        self.query_one("#claims", DataTable).add_columns("launches in", "type", "zone", "capacity", "$/h", "pods")
        self.query_one("#actions", DataTable).add_columns("consolidation", "nodes", "replacement", "saves $/h")
        self.query_one("#error").display = False
        self.query_one("#pending").display = False
        targets = self.query_one("#targets", OptionList)
        targets.highlighted = 0
        targets.focus()
        self.query_one("#form").visible = False   # until a target is selected (laid out, not drawn)
        # tab goes from the targets to the form, then the results: the edits list only shows what
        # u and ctrl+y act on, and tab stopping there first sent the operator away from the form
        self.query_one("#edits", ListView).can_focus = False
        self.call_after_refresh(self._prebuild_form)

    def _idle_title(self, head: str = "Results") -> str:
        consolidation = "on" if self.consolidate else "off"
        return f"{head} — ctrl+r runs · consolidation {consolidation} (c)"

    # ------------------------------------------------------------- the form

    def _error(self, message: str) -> None:
        error = self.query_one("#error", Static)
        error.update(plain(message))  # may quote a value or a what-if file
        error.display = bool(message)

    @on(OptionList.OptionSelected, "#targets")
    async def _target_selected(self, event: OptionList.OptionSelected) -> None:
        self.selected = self.rows[event.option_index]
        await self._load_form()

    async def _load_form(self) -> None:
        """The selected target's values with the edit stack applied, rendered afresh."""
        row = self.selected
        if row is None:
            return
        self._error("")
        try:
            self.before = FORMS[row.group][0](self.snapshot, self.stack.edits, row.ref)
        except ValueError as exc:
            self._error(str(exc))
            return
        self.draft = copy.deepcopy(self.before)
        await self._render_form()

    async def _render_form(self) -> None:
        """The draft as the form, the target's name above it; focus stays on the field it was on."""
        row = self.selected
        focused = self.focused.id if self.focused is not None and self._in_form(self.focused) else None
        self.query_one("#form-title", Static).update(plain(row.label if row is ADD_NODES else short_names_in(row.ref)))
        form = self.query_one("#form", VerticalScroll)
        await self._show_form(self.draft)
        form.visible = True
        if focused and form.query(f"#{focused}"):
            form.query_one(f"#{focused}").focus()
        self._show_pending()

    def _slots_of(self, d: dict) -> list[_Slot]:
        """The form of a draft, in a fixed order: replicas first (the field most often changed),
        then each spread constraint, then the pod template."""
        slots: list[_Slot] = []
        if "replicas" in d:
            slots.append(self._field_slot("replicas", FIELDS["replicas"][0], d["replicas"]))
        for i, c in enumerate(d.get("constraints", [])):
            slots.append(_static_slot(f"topologySpreadConstraint {i + 1} (x drops · s relaxes)"))
            slots += [self._field_slot(f"c{i}-{f}", f, c[f], f) for f in SPREAD_FIELDS]
            slots.append(_button_slot(f"c{i}-remove", "Remove constraint"))
        if "constraints" in d:
            slots += [_button_slot("add-constraint", "Add constraint"), _static_slot("pod template")]
        slots += [self._field_slot(key, label, d[key]) for key, (label, _) in FIELDS.items()
                  if key in d and key != "replicas"]
        for j, c in enumerate(d.get("containers", [])):
            slots += [self._field_slot(f"{what}-{j}", f"{c['name']} {what}", c[what], placeholder=hint)
                      for what, hint in (("cpu", "e.g. 500m"), ("memory", "e.g. 256Mi"))]
        # not the "primary" variant: its colour is the focused row's, and it looked focused always
        slots.append(_button_slot("apply", "Apply (enter)"))
        return slots

    def _field_slot(self, widget_id: str, label: str, value: str | bool, key: str = "",
                    placeholder: str | None = None) -> _Slot:
        key = key or widget_id
        if placeholder is None:
            placeholder = FIELDS.get(key, ("", ""))[1]
        kind = "switch" if isinstance(value, bool) else f"select {key}" if key in self.choices else "input"

        def make() -> Widget:
            if kind == "switch":
                control: Widget = Switch(bool(value), id=widget_id, animate=False)
            elif kind == "input":
                control = Input(visible(value), placeholder=placeholder, id=widget_id, compact=True)
            else:
                control = Select([(plain_text(c or "(none)"), c) for c in self.choices[key]], value=value,
                                 allow_blank=False, id=widget_id, compact=True)
            return _field(label, control)

        def show(holder: Widget) -> None:
            name, control = holder.children
            if str(name.render()) != label:   # container names differ, one field id to another
                name.update(plain(label))
            shown = visible(value) if isinstance(control, Input) else value
            if control.value != shown:
                control.value = shown
            if isinstance(control, Input):
                control.placeholder = placeholder

        return _Slot(f"{kind} {widget_id}", make, show)

    async def _show_form(self, d: dict) -> None:
        """Put a draft's form on screen, keeping every widget the form on screen already has.

        Mounting a field costs Textual a few ms (its styles are worked out afresh, and a Button or
        a Select restyles itself once mounted): a workload's twenty fields were a third of a
        second, whatever the cluster's size. Most forms share most of their fields (the pod
        template's, replicas, the first container's requests), so those are reused with the new
        values and only the rest is mounted or removed."""
        form = self.query_one("#form", VerticalScroll)
        slots = self._slots_of(d)
        self.rendering = True
        try:
            on_screen = {self._slot_keys.get(w): w for w in form.children}
            wanted = {slot.key for slot in slots}
            stale = [w for key, w in on_screen.items() if key not in wanted]
            if stale:
                await form.remove_children(stale)
            new: list[Widget] = []
            for at, slot in enumerate(slots):
                widget = on_screen.get(slot.key)
                if widget is None:
                    widget = slot.make()
                    self._slot_keys[widget] = slot.key
                    new.append(widget)
                    continue
                if new:   # the fields before this one that the form had not
                    await form.mount_all(new, before=widget)
                    new = []
                slot.show(widget)
                if form.children[at] is not widget:
                    form.move_child(widget, before=at)
            if new:
                await form.mount_all(new)
        finally:
            self.rendering = False

    async def _prebuild_form(self) -> None:
        """Build the first workload's form out of sight once the panel is on screen, so the form
        the operator opens next reuses its fields instead of waiting for them (see _show_form)."""
        row = next((r for r in self.rows if r.group == "workload"), None)
        if row is None or self.selected is not None or not self.is_mounted:
            return
        try:
            draft = FORMS[row.group][0](self.snapshot, self.stack.edits, row.ref)
        except ValueError:
            return
        if self.selected is None:
            await self._show_form(draft)

    def _in_form(self, widget: Widget) -> bool:
        return self.query_one("#form") in widget.ancestors

    def _read(self) -> dict:
        """The draft with what the widgets hold now (a key pressed while the form is being
        rendered afresh -- enter on a target, then ctrl+r at once -- reads the draft as it is).

        The form's fields are found in one walk of the form alone: a query per field over the
        whole screen was 0.8 s of opening a form on 5,000 nodes (it runs on every keystroke)."""
        d = copy.deepcopy(self.draft)
        if self.rendering:
            return d
        fields = {w.id: w for w in self.query_one("#form").query(FIELD_WIDGETS) if w.id}
        for widget_id, holder, key in _slots(d):
            found = fields.get(widget_id)   # not mounted yet: the draft's value stands
            if found is not None and hasattr(found, "value"):
                holder[key] = _typed(found.value, holder[key])
        return d

    def _unapplied(self) -> tuple[int, str]:
        """Edits the form as shown holds that the stack does not (and why they are invalid, if so)."""
        row = self.selected
        if row is None or not self.before:
            return 0, ""
        return wf.unapplied(row.group, row.ref, self.before, self._read())

    def _show_pending(self) -> None:
        """Say what is typed but not applied, so no change is silently left out of a run."""
        count, problem = self._unapplied()
        pending = self.query_one("#pending", Static)
        if count:
            what = f"{count} unapplied change{'s' if count != 1 else ''}"
            pending.update(plain(f"{what} (not valid yet: {problem})" if problem
                                 else f"{what} — enter applies, ctrl+r runs with it"))
        pending.display = bool(count)

    @on(Input.Changed)
    @on(Select.Changed)
    @on(Switch.Changed)
    def _form_changed(self, event: Input.Changed | Select.Changed | Switch.Changed) -> None:
        if self.selected is not None and event.control.id != "path" and self._in_form(event.control):
            # one look after the burst: a form being mounted sends a Changed per field, and each
            # look reads every field
            if not self._pending_queued:
                self._pending_queued = True
                self.call_after_refresh(self._pending_look)

    def _pending_look(self) -> None:
        self._pending_queued = False
        if self.is_mounted:
            self._show_pending()

    async def _apply(self, quiet: bool = False) -> bool:
        """Turn what changed in the form into edits; False (and the reason shown) when it cannot."""
        row = self.selected
        if row is None:
            return True
        self.draft = self._read()
        try:
            edits = FORMS[row.group][1](row.ref, self.before, self.draft)
        except ValueError as exc:
            self._error(str(exc))
            return False
        if not edits:
            if not quiet:
                self._error("nothing changed")
            return True
        self.stack.push(*edits)
        self._error("")
        self.before = FORMS[row.group][0](self.snapshot, self.stack.edits, row.ref)
        await self._edits_changed()
        self._show_pending()
        return True

    @on(Button.Pressed)
    async def _button(self, event: Button.Pressed) -> None:
        button = event.button.id or ""
        if button == "apply":
            await self._apply()
            return
        self.draft = self._read()
        if button == "add-constraint":
            self.draft["constraints"].append(wf.new_constraint(self.draft["selector"]))
        elif button.endswith("-remove"):
            del self.draft["constraints"][int(button[1:].split("-")[0])]
        await self._render_form()

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if event.input.id == "path":
            await self._path_given(event.value.strip())
        else:
            await self._apply()

    # ------------------------------------------------------------- one key on the selected workload

    async def _workload(self) -> bool:
        """Select the workload the target list's cursor is on, when the list has the focus."""
        targets = self.query_one("#targets", OptionList)
        at = targets.highlighted
        if targets.has_focus and at is not None and self.rows[at] is not self.selected:
            self.selected = self.rows[at]
            await self._load_form()
        if self.selected is None or self.selected.group != "workload":
            self.notify("select a workload first (enter on one in Targets)")
            return False
        return True

    def _focused_constraint(self) -> int | None:
        """The spread constraint whose field has the focus (ids ``c<i>-<field>``)."""
        name = self.focused.id if self.focused is not None else ""
        head = (name or "").split("-")[0]
        return int(head[1:]) if head[:1] == "c" and head[1:].isdigit() else None

    async def _quick(self, change: Any) -> None:
        """Change the shown form by ``change`` and apply it (with anything else not applied yet)."""
        if not await self._workload():
            return
        try:
            self.draft = change(self._read())
        except ValueError as exc:
            self.notify(str(exc))
            return
        await self._render_form()
        await self._apply()

    async def action_replicas(self, step: int) -> None:
        await self._quick(lambda form: wf.step_replicas(form, step))

    async def action_drop_constraint(self) -> None:
        index = self._focused_constraint()
        await self._quick(lambda form: wf.drop_constraint(form, index))

    async def action_relax_constraint(self) -> None:
        index = self._focused_constraint()
        await self._quick(lambda form: wf.relax_constraint(form, index))

    def action_consolidation(self) -> None:
        self.consolidate = not self.consolidate
        if self.consolidate and not self.session.can_consolidate:
            self.notify("consolidation needs NodePools and an instance catalog: runs schedule only")
        self.query_one("#results-title", Static).update(self._idle_title())

    # ------------------------------------------------------------- the edit stack

    async def _edits_changed(self) -> None:
        edits = self.query_one("#edits", ListView)
        await edits.clear()
        await edits.extend(ListItem(Label(plain(f"{i}. {wf.describe_edit(e)}")))
                           for i, e in enumerate(self.stack.edits, 1))
        self.query_one("#results-title", Static).update(self._idle_title("Results — edits changed"))

    async def action_undo(self) -> None:
        await self._step(self.stack.undo(), "nothing to undo")

    async def action_redo(self) -> None:
        await self._step(self.stack.redo(), "nothing to redo")

    async def _step(self, edit: Any, nothing: str) -> None:
        if edit is None:
            self.notify(nothing)
            return
        await self._edits_changed()
        await self._load_form()

    async def action_add_nodes(self) -> None:
        self.selected = ADD_NODES
        await self._load_form()

    def action_cursor(self, step: int) -> None:
        """j/k: the list's cursor in a list, the next or previous field in the form (a text
        field takes j and k as letters: up and down move from there)."""
        focused = self.focused
        if isinstance(focused, (ListView, DataTable, OptionList)):
            (focused.action_cursor_down if step > 0 else focused.action_cursor_up)()
        else:
            self.action_field(step)

    def action_list_end(self, bottom: int) -> None:
        """g / G: the first or last row of the list or table that has the focus (a text field
        takes them as letters)."""
        focused = self.focused
        if isinstance(focused, OptionList):
            (focused.action_last if bottom else focused.action_first)()
        elif isinstance(focused, ListView) and len(focused):
            focused.index = len(focused) - 1 if bottom else 0
        elif isinstance(focused, DataTable) and focused.row_count:
            focused.move_cursor(row=focused.row_count - 1 if bottom else 0)

    def action_field(self, step: int) -> None:
        """The next or previous field of the form, in the order it shows them."""
        focused = self.focused
        if focused is not None and self._in_form(focused):
            fields = [w for w in self.query_one("#form").query(FIELD_WIDGETS) if w.focusable]
            if focused in fields:
                fields[max(0, min(len(fields) - 1, fields.index(focused) + step))].focus()

    # ------------------------------------------------------------- save and load

    def _prompt(self, mode: str, value: str, placeholder: str) -> None:
        self.path_mode = mode
        path = self.query_one("#path", Input)
        path.value, path.placeholder, path.display = value, placeholder, True
        path.focus()

    def action_save(self) -> None:
        if self.app.is_web:  # karptui serve: the viewer gets the file, the server's disk is not theirs
            self._send_to_browser()
            return
        self._prompt("save", f"{self.whatif_name}.yaml", "save the what-if to (YAML path; escape cancels)")

    def action_load(self) -> None:
        if self.app.is_web:
            self._error("in a browser (karptui serve) a what-if is not loaded from the server's disk: "
                        "run karptui simulate --whatif FILE, or make the edits here")
            return
        self._prompt("load", "", "load a what-if from (YAML path; escape cancels)")

    def _send_to_browser(self) -> None:
        """The what-if as the YAML file ``save`` writes, downloaded by the browser (docs/serve.md)."""
        import io
        from pathlib import PurePath

        name = f"{PurePath(self.whatif_name).name or wf.DEFAULT_NAME}.yaml"
        self.app.deliver_text(io.StringIO(dump_whatif(self.stack.as_whatif(self.whatif_name))),
                              save_filename=name, mime_type="application/yaml", name="whatif")
        self._error("")
        notify_plain(self, f"sent {len(self.stack)} edit(s) to the browser as {name}")

    async def _path_given(self, path: str) -> None:
        self.query_one("#path").display = False
        self.query_one("#targets").focus()
        if not path:
            return
        if self.path_mode == "save":
            self._save(path)
            return
        try:
            whatif = load_whatif(path)
        except (InputError, OSError) as exc:
            self._error(str(exc))
            return
        self.stack.replace(whatif.edits)
        self.whatif_name = whatif.name
        await self._step(whatif, "")

    def _save(self, path: str) -> None:
        """Save to ``path``; never over a file this session has open, over another only after a yes."""
        open_as = self._opened_as(path)
        if open_as:
            self._error(f"{path}: is the {open_as} open in this session; not overwritten")
        elif os.path.exists(path):
            def answered(yes: bool | None) -> None:
                if yes:
                    self._write(path)
                else:
                    self._error(f"{path}: exists; not saved")

            self.app.push_screen(ConfirmScreen(f"{path} exists. Overwrite it with this what-if?", "Yes, overwrite"),
                                 answered)
        else:
            self._write(path)

    def _write(self, path: str) -> None:
        try:
            save_whatif(path, self.stack.as_whatif(self.whatif_name))
        except (InputError, OSError) as exc:
            self._error(str(exc))
            return
        self._error("")
        notify_plain(self, f"saved {len(self.stack)} edit(s) to {path}")

    def _opened_as(self, path: str) -> str:
        """"snapshot" or "log file" when ``path`` is (part of) one this session read, else ""."""
        meta = self.snapshot.meta
        for what, source in (("snapshot", meta.source), ("log file", meta.logs_source)):
            if not source or not os.path.exists(source):
                continue
            if os.path.isdir(source):  # a directory of files: replacing one of them changes the snapshot
                inside = os.path.realpath(path).startswith(os.path.join(os.path.realpath(source), ""))
                if inside and os.path.exists(path):
                    return what
            elif os.path.exists(path) and os.path.samefile(path, source):
                return what
        return ""

    # ------------------------------------------------------------- running

    async def action_run(self) -> None:
        """Run the edits -- with what the form holds but was not applied yet: a run never leaves a change out."""
        if not await self._apply(quiet=True):
            self.query_one("#results-title", Static).update("Results — not run: fix the form first")
            return
        self.add_class("ran")
        self.query_one("#results-title", Static).update("Results — running… (escape cancels)")
        self.worker = self._run(self.session.whatif(), self.consolidate)

    @work(thread=True, exclusive=True, group="whatif", exit_on_error=False, description="what-if run")
    def _run(self, whatif: WhatIf, consolidate: bool) -> None:
        """The session's run, off the UI thread; a newer run or escape cancels it, and it stops."""
        worker = get_current_worker()
        last = [0.0]

        def progress(phase: str, done: int, total: int) -> None:
            now = time.monotonic()
            if now - last[0] >= self.PROGRESS_INTERVAL:
                last[0] = now
                self.post_message(self.Progress(phase, done, total))

        try:
            run = self.session.run(whatif, consolidate=consolidate, cancelled=lambda: worker.is_cancelled,
                                   progress=progress)
            summary = wf.summary(run, self.catalog)
        except Exception as exc:  # noqa: BLE001 -- a simulator bug must not take the UI down
            summary = {"name": whatif.name, "error": f"internal error: {type(exc).__name__}: {exc}"}
        if not worker.is_cancelled and not summary.get("cancelled"):
            self.post_message(self.Finished(summary))

    def action_back(self) -> None:
        """Close the path prompt, else cancel a run, else leave the form, else leave the screen."""
        in_form = self.focused is not None and self._in_form(self.focused)
        if self.query_one("#path").display:
            self.query_one("#path").display = False
            self.query_one("#targets").focus()
        elif self.worker is not None and self.worker.is_running:
            self.worker.cancel()
            self.query_one("#results-title", Static).update(self._idle_title("Results — run cancelled"))
        elif in_form:
            self.query_one("#targets").focus()
        else:
            self.app.pop_screen()

    @on(Progress)
    def _progress(self, message: Progress) -> None:
        if self.worker is None or not self.worker.is_running or self.worker.is_cancelled:
            return  # a late word from a run that was cancelled
        if message.phase.endswith(("consolidation", "drift")):  # the disruption controller counts commands
            done = f": {message.done:,} command(s) so far, {message.total:,} nodes"
        elif message.total:
            done = f": {message.done:,}/{message.total:,} pods"
        else:
            done = ""   # a phase with nothing to count yet
        self.query_one("#results-title", Static).update(plain(
            f"Results — running… {message.phase}{done} (escape cancels)"))

    @on(Finished)
    def _finished(self, message: Finished) -> None:
        s, title = message.summary, self.query_one("#results-title", Static)
        self._error(s.get("error") or "")
        with_consolidation = " (with consolidation)" if s.get("consolidated") else ""
        title.update(plain(f"Results — {s['name']} not run: fix the edits" if s.get("error")
                           else f"Results — what-if {s['name']}{with_consolidation}"))  # a loaded file names it
        self.query_one("#summary", Static).update(plain_lines(wf.summary_lines(s)))
        for table_id, rows in wf.result_rows(s).items():
            table = self.query_one(f"#{table_id}", DataTable)
            table.clear()
            table.add_rows([tuple(map(plain_text, row)) for row in rows])  # Text: str cells are read as markup, and
            # a DataTable sizes its columns to Text, not to Content
