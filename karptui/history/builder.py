"""From the log reader's events to NodeClaim lives, disruption commands and hourly series.

One pass, in input order, keeping per NodeClaim only its steps (not its lines' text) and per hour
only counters and pod names, so a day of a 5,000-node cluster's log fits in a few hundred MiB.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import datetime

from ..logs.classify import drain_begins, garbage_collected
from ..logs.kube_events import lifecycle_step
from .times import hour_of, instant

MAX_LINES_PER_LIFE = 200     # "why did it go" needs the lines about it, not every unconsolidatable event
MAX_BLOCKED_PER_LIFE = 10
_SAME_CALL = 10.0   # seconds: a launch and the creation line its provisioning call logs after it
_REPLACING = ("disruption", "deprovisioning")   # the controllers whose NodeClaims replace disrupted ones


class Draft:
    """A NodeClaim's life while the log is read (mutable); :func:`karptui.history.finish.finish` freezes it."""

    __slots__ = (
        "annotated",
        "annotation",
        "blocked",
        "capacity_type",
        "claim_deleted",
        "collected",
        "command",
        "created",
        "disrupted",
        "drained",
        "failures",
        "initialized",
        "instance_type",
        "interruption",
        "key",
        "launched",
        "lines",
        "more",
        "named",
        "node",
        "nodepool",
        "provider_id",
        "registered",
        "requested",
        "seen",
        "taint",
        "terminated",
        "zone",
    )

    def __init__(self, key: str, named: bool = True) -> None:
        self.key = key
        self.named = named   # False: no line names it (key "(unnamed, line N)"), see HistoryBuilder._unnamed
        self.nodepool = self.node = self.provider_id = self.instance_type = self.zone = self.capacity_type = ""
        self.requested: tuple[str, ...] = ()
        self.more = 0
        self.created = self.launched = self.registered = self.initialized = None
        self.disrupted = self.drained = self.annotated = self.terminated = self.collected = None
        self.taint = self.annotation = ""
        self.command: Command | None = None
        self.interruption: tuple | None = None
        self.failures: list = []
        self.blocked: list = []
        self.lines: list[str] = []
        self.seen: set[str] = set()   # the steps a line showed, with or without a time
        self.claim_deleted = None      # the "deleted nodeclaim" line (after the node's)

    def absorb(self, other: Draft) -> None:
        """What a draft known only by its node's name said, once a line names its NodeClaim."""
        for name in self.__slots__[1:]:
            mine, theirs = getattr(self, name), getattr(other, name)
            if name == "lines":
                self.lines = sorted(set(mine) | set(theirs), key=line_order)[:MAX_LINES_PER_LIFE]
            elif name in ("failures", "blocked"):
                mine.extend(theirs)
            elif name == "seen":
                mine |= theirs
            elif not mine and theirs:
                setattr(self, name, theirs)


def line_order(ref: str) -> tuple:
    """A line's place in the input: (file, line number)."""
    file, _, line = ref.rpartition(":")
    return (file, int(line) if line.isdigit() else 0)


def _adjacent(before: str, ref: str, gap: int = 3, step: int = 1) -> bool:
    """Whether line ``ref`` follows line ``before`` of the same input within ``gap`` lines (one table's rows);
    ``step`` -1: an input read from its last line to its first (:mod:`.order`), where it precedes it."""
    (file_a, a), (file_b, b) = line_order(before), line_order(ref)
    return file_a == file_b and 0 < (b - a) * step <= gap


@dataclass
class Command:
    """One disruption command as logged: its candidates and the replacements created for it."""

    time: datetime | None
    method: str
    action: str
    command_id: str
    nodes: list[str]
    pod_count: int | None
    nodepools: list[str]
    line: str
    expected: int                     # replacements still to come (logged count, or 1 for a replace before v1)
    size: int | None = None           # the nodes the line says it terminates, when it gives their number
    replacements: list[str] = field(default_factory=list)
    candidates: list[str] = field(default_factory=list)   # draft keys


@dataclass
class Hour:
    """What the log said about pending pods in one UTC hour."""

    provisionable_lines: int = 0
    provisionable_max: int = 0
    unschedulable: set = field(default_factory=set)
    failed_scheduling: set = field(default_factory=set)
    nominated: int = 0

    def add(self, other: Hour) -> None:
        """The same hour as counted from another part of the log."""
        self.provisionable_lines += other.provisionable_lines
        self.provisionable_max = max(self.provisionable_max, other.provisionable_max)
        self.unschedulable |= other.unschedulable
        self.failed_scheduling |= other.failed_scheduling
        self.nominated += other.nominated


# The kinds whose handlers only count into the hour of their line's time (no life, no order): the parts of a
# log read apart can count them each in a builder of their own and be merged (:meth:`HistoryBuilder.add_hours`)
HOURLY = frozenset({"pods_provisionable", "pod_unschedulable", "pod_nominated"})


TOLD_AGAIN_SECONDS = 300.0


def _told_again(known: tuple | None, when: datetime | None, message_kind: str, action: str) -> bool:
    """Whether an interruption of this kind is the one already known for the NodeClaim: Karpenter tells one
    interruption several times (its ``initiating delete from interruption message`` line, and an event on
    the Node and one on the NodeClaim, e.g. SpotInterrupted, which say no action), and it happened once.
    Within a few minutes of the first; another kind (a rebalance recommendation, then the interruption), or
    another action the provider logged (v0.2x's offering removed, then the node deleted), is another record."""
    if known is None or known[1] != message_kind or (action and known[2] and action != known[2]):
        return False
    return known[0] is None or when is None or abs((when - known[0]).total_seconds()) <= TOLD_AGAIN_SECONDS


class HistoryBuilder:
    """Feed events (the log reader's dicts) with where each came from; read the result with
    :func:`karptui.history.finish.finish`."""

    def __init__(self, provisionable: bool = True) -> None:
        """``provisionable``: keep each "found provisionable pod(s)" line's time, count and pods (the
        decision audit reads them; a day's log has a hundred thousand, which nothing else reads)."""
        self.keep_provisionable = provisionable
        self.drafts: dict[str, Draft] = {}
        self.by_node: dict[str, str] = {}
        self.commands: list[Command] = []
        self.commands_of: dict[str, list[Command]] = {}   # draft key -> the commands naming it
        self.open: Command | None = None          # a replace command still waiting for its replacements
        self.unnamed: list = []                   # creations that named no NodeClaim, waiting for their launch
        self.nameless: Draft | None = None        # the newest life whose event rows name no object
        self.gone: tuple[str, str] | None = None  # (node, line) of a deletion naming only its node, just read
        self.told: Draft | None = None            # the unnamed life of a disruption line that named nobody, just read
        self.unpaired: Draft | None = None        # the newest launch, while no creation line has followed it
        self.terminating: tuple | None = None     # (method, action, name, "node"|"nodeclaim") of a DisruptionTerminating row
        self.hours: dict[str, Hour] = {}
        self.launch_failures: list[dict] = []
        self.interruptions: list[dict] = []
        # (time, count, pod names) of each "found provisionable pod(s)" line: the decision audit asks
        # whether pods appeared between a snapshot's capture and a decision
        self.provisionable: list[tuple[datetime, int, tuple[str, ...]]] = []
        self.first: datetime | None = None
        self.last_text = ""
        self.last: datetime | None = None
        self.events = 0
        self.newest_first = False   # the input listed its events newest first and is fed oldest first (.order)

    # -- input ------------------------------------------------------------------------------------

    def feed_all(self, events: Iterable[dict], file: str = "") -> None:
        handlers = _HANDLERS
        prefix = f"{file}:" if file else ""
        for event in events:
            self.events += 1
            handler = handlers.get(event["kind"])
            if handler is None:
                continue
            text = event.get("time") or ""
            if text:
                self.last_text = text
            handler(self, event, text, f"{prefix}{event['line']}" if event.get("line") else "event")

    def count(self, event: dict) -> None:
        """One :data:`HOURLY` event, in a builder that reads a part of a log for another
        (:func:`karptui.history.read.feed_log`): counted into its hour, nothing else kept."""
        _HANDLERS[event["kind"]](self, event, event.get("time") or "", "")

    def counts(self) -> tuple[dict[str, Hour], list[tuple[datetime, int, tuple[str, ...]]]]:
        """What :meth:`count` gathered, for :meth:`add_counts` of the builder of the whole log."""
        return self.hours, self.provisionable

    def add_counts(self, counts: tuple[dict[str, Hour], list], last_text: str = "") -> None:
        """What another builder counted of :data:`HOURLY` events (:meth:`counts`), read from the part of the
        same log that follows the events fed here; ``last_text`` is the time of that part's last event (any
        kind the builder reads), when it came after those fed here."""
        hours, provisionable = counts
        for key, other in hours.items():
            mine = self.hours.get(key)
            if mine is None:
                self.hours[key] = other
            else:
                mine.add(other)
        self.provisionable.extend(provisionable)
        if last_text:
            self.last_text = last_text

    def _when(self, text: str) -> datetime | None:
        when = instant(text) if text else None
        if when is not None:
            if self.first is None or when < self.first:
                self.first = when
            if self.last is None or when > self.last:
                self.last = when
        return when

    def end(self) -> datetime | None:
        """The newest time in the input (``--since 24h`` counts back from it)."""
        tail = instant(self.last_text) if self.last_text else None
        if tail is not None and (self.last is None or tail > self.last):
            self.last = tail
        return self.last

    # -- whose line is it -------------------------------------------------------------------------

    def _draft(self, claim: str | None, node: str | None, ref: str) -> Draft:
        """The life a line is about: by its NodeClaim, else by its node (a node named before its NodeClaim
        is; merged when a later line names both)."""
        drafts = self.drafts
        if claim:
            draft = drafts.get(claim)
            if draft is None:
                draft = drafts[claim] = Draft(claim)
            if node and node != claim:
                known = self.by_node.get(node)
                if known == node and node in drafts:   # known by its node's name until now
                    draft.absorb(drafts.pop(node))
                    self._rekey(node, claim)
                if known != claim:                      # the newest NodeClaim on a reused node name
                    self.by_node[node] = claim
                draft.node = draft.node or node
        else:
            key = self.by_node.get(node or "") or node or ""
            draft = drafts.get(key)
            if draft is None:
                draft = drafts[key] = Draft(key)
                self.by_node[key] = key
                draft.node = key
        if len(draft.lines) < MAX_LINES_PER_LIFE:
            draft.lines.append(ref)
        return draft

    def _unnamed(self, ref: str) -> Draft:
        """The life of an event row that names no object: a describe table pasted without the command or the
        object above it. Every row of such a table is the described object's, so rows a few lines apart are one
        life, keyed by its first line; the steps they show would otherwise be lost."""
        last = self.nameless
        if last is not None and last.lines and _adjacent(last.lines[-1], ref, step=self._step):
            if len(last.lines) < MAX_LINES_PER_LIFE:
                last.lines.append(ref)
            return last
        return self._fresh_unnamed(ref)

    def leftover_creations(self) -> list[Draft]:
        """A life for each creation line that named no NodeClaim and that no launch line followed (v0.2x's
        ``launching machine with N pods ...`` at the end of a paste): the NodeClaim was being created, unnamed.
        Fresh drafts on each call; the builder keeps waiting for their launches."""
        out = []
        for when, e, ref, _ in self.unnamed:
            draft = Draft(f"(unnamed, line {ref})", named=False)
            draft.lines.append(ref)
            self._creation_fields(draft, when, e)
            out.append(draft)
        return out

    def _rekey(self, old: str, new: str) -> None:
        for command in self.commands_of.pop(old, ()):
            self.commands_of.setdefault(new, []).append(command)
            command.candidates = [new if k == old else k for k in command.candidates]
            command.replacements = [new if k == old else k for k in command.replacements]

    def _awaiting(self, step: str, ref: str) -> Draft | None:
        """A lifecycle line that names no NodeClaim (a paste trimmed to its messages): the newest NodeClaim
        that has reached the step before this one and not this one, if any."""
        before = {"launched": "created", "registered": "launched", "initialized": "registered"}[step]
        for draft in reversed(list(self.drafts.values())[-50:]):
            if step not in draft.seen and before in draft.seen:
                if len(draft.lines) < MAX_LINES_PER_LIFE:
                    draft.lines.append(ref)
                return draft
        return None

    def _step_draft(self, event: dict, step: str, ref: str) -> Draft | None:
        claim, node = event.get("nodeclaim"), event.get("node")
        if claim or (node and node in self.by_node):
            return self._draft(claim, node, ref)
        found = self._awaiting(step, ref)
        if found is not None and node:
            found.node = node
            self.by_node[node] = found.key
            return found
        if found is None and not node and step == "launched" and self._paste():
            # a launch naming nothing with no creation before it (an author's copy of the line, its names
            # left out or written as placeholders): a life of its own, which the lines after it may go on
            return self._fresh_unnamed(ref)
        return found or (self._draft(None, node, ref) if node else None)

    # -- handlers ---------------------------------------------------------------------------------

    def _created(self, e: dict, text: str, ref: str) -> None:
        claim = e.get("nodeclaim")
        when = self._when(text)
        command = self._replacing(e.get("controller"))
        if not claim:
            draft = self._launch_before(when, e)
            if draft is not None:  # v0.9-v0.16: "Created node with ..." right after its own "Launched instance"
                if len(draft.lines) < MAX_LINES_PER_LIFE:
                    draft.lines.append(ref)
                self._creation(draft, when, e, command)
                return
            # before v0.28 ("launching node with ..."): the launch line that follows names the node
            self.unnamed.append((when, e, ref, command))
            return
        self.unpaired = None
        draft = self._draft(claim, None, ref)
        self._creation(draft, when, e, command)

    def _launch_before(self, when: datetime | None, e: dict) -> Draft | None:
        """The launch a nameless creation line reports, when that is unambiguous: v0.9-v0.16 logged
        ``Launched instance: ID, hostname: X, type: T ...`` and then, in the same call, ``Created node with N
        pods requesting ... from types A, B and K other(s)`` (aws/karpenter-provider-aws v0.13.0
        pkg/controllers/provisioning/provisioner.go ``launch``). So: the newest launch with no creation line
        after it, within seconds, whose type the creation's list holds or may hold (K others)."""
        draft, self.unpaired = self.unpaired, None
        if draft is None or "created" in draft.seen:
            return None
        if when is not None and draft.launched is not None and not 0 <= (when - draft.launched).total_seconds() <= _SAME_CALL:
            return None
        types = e.get("instance_types") or ()
        if draft.instance_type and types and draft.instance_type not in types and not e.get("more"):
            return None
        return draft

    def _creation(self, draft: Draft, when: datetime | None, e: dict, command: Command | None) -> None:
        self._creation_fields(draft, when, e)
        if command is not None:
            command.replacements.append(draft.key)
            self.commands_of.setdefault(draft.key, []).append(command)

    def _replacing(self, controller: str | None) -> Command | None:
        """A NodeClaim created right after a replace command, by the disruption controller (or by a line
        that does not say which), is that command's replacement."""
        command = self.open
        if command is None or controller not in (None, *_REPLACING):
            return None
        command.expected -= 1
        if command.expected <= 0:
            self.open = None
        return command

    @staticmethod
    def _creation_fields(draft: Draft, when: datetime | None, e: dict) -> None:
        draft.created = draft.created or when
        draft.seen.add("created")
        draft.nodepool = e.get("nodepool") or draft.nodepool
        draft.requested, draft.more = tuple(e.get("instance_types") or ()), e.get("more") or 0

    def _launched(self, e: dict, text: str, ref: str) -> None:
        draft = self._step_draft(e, "launched", ref)
        if draft is None and self.unnamed and self._paste():   # a creation and a launch that both name nothing
            draft = self._fresh_unnamed(self.unnamed[0][2])
            draft.lines.append(ref)
        if draft is None:
            return
        when = self._when(text)
        if "created" not in draft.seen and self.unnamed:  # the oldest creation that named no NodeClaim
            created, found, _, command = self.unnamed.pop(0)
            self._creation(draft, created, found, command)
        draft.launched = draft.launched or when
        draft.seen.add("launched")
        self.unpaired = draft if "created" not in draft.seen else None
        draft.instance_type = e.get("instance_type") or draft.instance_type
        draft.zone = e.get("zone") or draft.zone
        draft.capacity_type = e.get("capacity_type") or draft.capacity_type
        draft.provider_id = e.get("provider_id") or draft.provider_id

    def _registered(self, e: dict, text: str, ref: str) -> None:
        draft = self._step_draft(e, "registered", ref)
        if draft is not None:
            draft.registered = draft.registered or self._when(text)
            draft.seen.add("registered")

    def _initialized(self, e: dict, text: str, ref: str) -> None:
        draft = self._step_draft(e, "initialized", ref)
        if draft is not None:
            draft.initialized = draft.initialized or self._when(text)
            draft.seen.add("initialized")

    def _disruption(self, e: dict, text: str, ref: str) -> None:
        when = self._when(text)
        candidates = e.get("candidates") or [{"node": n} for n in e.get("nodes") or ()]
        if not candidates and e.get("nodeclaim"):
            candidates = [{"nodeclaim": e["nodeclaim"]}]
        if not candidates and e.get("node_count") == 1:
            only = self._only_running()
            if only is not None:   # a paste trimmed to its messages: the one NodeClaim that could be meant
                candidates = [{"nodeclaim": only.key, "node": only.node or None}]
        told = None
        if not candidates and self._paste():   # a disruption naming nobody is still a life that went
            told = self.told = self._fresh_unnamed(ref)
            candidates = [{"nodeclaim": told.key}]
        action = e.get("action") or ""
        expected = e.get("replacement_count")
        if expected is None:
            expected = 1 if action == "replace" else 0
        command = Command(when, e.get("method") or "other", action, e.get("command_id") or "",
                          [c.get("node") or c.get("nodeclaim") or "" for c in candidates], e.get("pod_count"),
                          list(e.get("nodepools") or ()), ref, expected, e.get("node_count"))
        for candidate in candidates:
            draft = self._draft(candidate.get("nodeclaim"), candidate.get("node"), ref)
            if draft.command is None:
                draft.disrupted, draft.command = when, command
                draft.seen.add("disrupted")
            draft.instance_type = draft.instance_type or candidate.get("instance_type") or ""
            draft.capacity_type = draft.capacity_type or candidate.get("capacity_type") or ""
            command.candidates.append(draft.key)
            self.commands_of.setdefault(draft.key, []).append(command)
        self.commands.append(command)
        self.open = command if expected else None
        if told is None:
            self.told = None

    @property
    def _step(self) -> int:
        return -1 if self.newest_first else 1

    def _paste(self) -> bool:
        """Whether the input so far is a paste (a few lives), where a line naming nothing still tells of a life;
        in a day's log every such line has its names, and one that lost them is left out."""
        return len(self.drafts) <= 50

    def _fresh_unnamed(self, ref: str) -> Draft:
        """A new unnamed life beginning at line ``ref``, the newest one a nameless line may join."""
        draft = self.nameless = self.drafts[f"(unnamed, line {ref})"] = Draft(f"(unnamed, line {ref})", named=False)
        draft.lines.append(ref)
        return draft

    def _goes_on(self, draft: Draft, ref: str) -> Draft:
        """A named drain or termination line right after a disruption that named nobody goes on with that
        disruption's story (``disrupting nodeclaim(s) via delete ... (0 pods)``, then ``tainted node`` with the
        node): the disruption was this life's. Asked only of a life no disruption or interruption has told."""
        told, self.told = self.told, None
        if told is None or told is draft or draft.seen & {"disrupted", "interrupted"} or not told.lines \
                or not _adjacent(told.lines[-1], ref, step=self._step) or self.drafts.get(told.key) is not told:
            return draft
        draft.absorb(self.drafts.pop(told.key))
        for command in self.commands_of.get(told.key, ()):
            command.nodes = [draft.node or draft.key if n == told.key else n for n in command.nodes]
        self._rekey(told.key, draft.key)
        if self.nameless is told:
            self.nameless = None
        return draft

    def _nameless_step(self, step: str, when: datetime | None, ref: str) -> Draft | None:
        """A drain or termination line naming nothing, right after a line of a life that named nothing
        either (an interruption, a disruption): that life's next step. Elsewhere in a paste, the step of the
        one life the paste shows disrupted or interrupted and not yet gone, when there is exactly one (a
        ``deleted node`` hours after the only disruption); alone it tells of no life."""
        last = self.nameless
        if last is None or not last.lines or not _adjacent(last.lines[-1], ref, step=self._step) or step in last.seen:
            draft = self._only_going(step)
            if draft is None:
                return None
            if len(draft.lines) < MAX_LINES_PER_LIFE:
                draft.lines.append(ref)
        else:
            draft = self._unnamed(ref)
        draft.seen.add(step)
        if getattr(draft, step) is None:
            setattr(draft, step, when)
        return draft

    def _only_going(self, step: str) -> Draft | None:
        """The one life a paste shows disrupted or interrupted, not yet gone and without ``step``, if exactly one."""
        return self._the_one({"disrupted", "interrupted"}, {"terminated", "garbage_collected", step})

    def _only_running(self) -> Draft | None:
        """The one NodeClaim the input shows launched and not yet disrupted, interrupted or gone, if there is
        exactly one: a disruption line of one node that names none (a paste trimmed to ``message`` and a few
        keys) can mean only it."""
        return self._the_one({"launched", "registered", "initialized"},
                             {"disrupted", "interrupted", "terminated", "garbage_collected"})

    def _the_one(self, reached: set[str], not_reached: set[str]) -> Draft | None:
        """The one life that has reached a step of ``reached`` and none of ``not_reached``, if exactly one.
        Asked only of a paste (:meth:`_paste`, at most 50 lives), so a day's log pays nothing."""
        if not self._paste():
            return None
        found = [d for d in self.drafts.values() if d.seen & reached and not d.seen & not_reached]
        return found[0] if len(found) == 1 else None

    def _terminated(self, e: dict, text: str, ref: str) -> None:
        claim, node = e.get("nodeclaim"), e.get("node")
        if not (claim or node):
            if self._paste():
                draft = self._nameless_step("terminated", self._when(text), ref)
                if draft is not None and e.get("deleted") == "nodeclaim" and draft.claim_deleted is None:
                    draft.claim_deleted = draft.terminated
            return
        gone, self.gone = self.gone, None
        if claim and not node and gone is not None and claim not in self.drafts \
                and _adjacent(gone[1], ref, step=self._step) \
                and self.drafts.get(gone[0]) is not None and self.drafts[gone[0]].key == gone[0]:
            node = gone[0]   # "deleted node" then "deleted nodeclaim", each naming only its own object: one life
        draft = self._goes_on(self._draft(claim, node, ref), ref)
        if node and not claim and e.get("deleted") != "nodeclaim":
            self.gone = (node, ref)
        when = self._when(text)
        if draft.terminated is None or (when is not None and when < draft.terminated):
            draft.terminated = when
        if e.get("deleted") == "nodeclaim" and draft.claim_deleted is None:
            draft.claim_deleted = when
        draft.seen.add("terminated")

    def _interruption(self, e: dict, text: str, ref: str) -> None:
        when = self._when(text)
        record = {"time": when, "node": e.get("node"), "nodeclaim": e.get("nodeclaim"),
                  "message_kind": e.get("message_kind") or "unknown", "action": e.get("action") or "", "line": ref}
        if not (e.get("nodeclaim") or e.get("node")):
            self.interruptions.append(record)
            if record["action"] != "remove_offering" and self._paste():   # a NodeClaim was interrupted, unnamed
                draft = self._fresh_unnamed(ref)
                draft.seen.add("interrupted")
                draft.interruption = (when, record["message_kind"], record["action"], ref)
            return
        draft = self._draft(e.get("nodeclaim"), e.get("node"), ref)
        if record["message_kind"] == "instance_state_change" and draft.seen & {"disrupted", "drained"}:
            # Karpenter's own termination told back: deleting a disrupted NodeClaim terminates its instance, and
            # the state-change notice of that reaches the interruption queue ("Instance is terminating",
            # InstanceTerminating). The instance went; nothing interrupted the life.
            draft.seen.add("terminated")
            if draft.terminated is None:
                draft.terminated = when
            return
        draft.seen.add("interrupted")
        if _told_again(draft.interruption, when, record["message_kind"], record["action"]):
            return
        self.interruptions.append(record)
        if draft.interruption is None or draft.interruption[2] == "remove_offering":
            draft.interruption = (when, record["message_kind"], record["action"], ref)

    def _launch_failed(self, e: dict, text: str, ref: str) -> None:
        when = self._when(text)
        self.launch_failures.append({"time": when, "nodeclaim": e.get("nodeclaim"), "nodepool": e.get("nodepool"),
                                     "pod": e.get("pod"), "error": e.get("error") or "", "line": ref})
        if e.get("nodeclaim") or self._paste():   # unnamed: a launch that failed before any name (v0.x)
            draft = self._draft(e["nodeclaim"], None, ref) if e.get("nodeclaim") else self._fresh_unnamed(ref)
            draft.nodepool = draft.nodepool or e.get("nodepool") or ""
            draft.seen.add("launch_failed")
            if len(draft.failures) < MAX_BLOCKED_PER_LIFE:
                draft.failures.append((when, e.get("error") or ""))

    def _other(self, e: dict, text: str, ref: str) -> None:
        if e.get("event"):
            step = lifecycle_step(e)
            if step is not None:
                self._event_step(e, step, text, ref)
            return
        if garbage_collected(e):
            draft = self._draft(e.get("nodeclaim"), e.get("node"), ref)
            draft.collected = draft.collected or self._when(text)
            draft.nodepool = draft.nodepool or e.get("nodepool") or ""
            draft.provider_id = draft.provider_id or e.get("provider_id") or ""
            draft.seen.add("garbage_collected")
            return
        if not (e.get("annotation") or drain_begins(e)):
            return
        if not (e.get("nodeclaim") or e.get("node")):
            if not e.get("annotation") and self._paste():
                self._nameless_step("drained", self._when(text), ref)
            return
        draft = self._draft(e.get("nodeclaim"), e.get("node"), ref)
        if not e.get("annotation"):
            draft = self._goes_on(draft, ref)
        when = self._when(text)
        if e.get("annotation"):
            draft.annotated = draft.annotated or when
            draft.annotation = draft.annotation or e["annotation"]
        elif "drained" not in draft.seen:
            draft.seen.add("drained")
            draft.drained = when
            draft.taint = e.get("taint") or e["message"].split(" ", 1)[0].lower()   # "tainted" (not printed), "cordoned"

    def _event_step(self, e: dict, step: str, text: str, ref: str) -> None:
        """A Karpenter event row that shows a step of a life (:func:`lifecycle_step`). DisruptionTerminating is
        filed on the Node and then on its NodeClaim with the same reason: a NodeClaim's row right after a Node's
        with the same method and action is the same life's. A row pasted in a log is one of its lines; a snapshot's
        or ``--events``' event (``origin: event``) adds to a life the input otherwise shows, and makes none, as
        :meth:`_blocked` does (a cluster's events name every node)."""
        claim, node = e.get("nodeclaim"), e.get("node")
        pair, self.terminating = self.terminating, None
        if e.get("origin") == "event" and not ((claim and claim in self.drafts) or (node and node in self.by_node)):
            return
        when = self._when(text)
        if not (claim or node):
            draft = self._unnamed(ref)
            if step == "disrupted":   # rows whose object the author elided: the unnamed life's disruption
                if "disrupted" not in draft.seen:
                    self._disruption({"method": e.get("method"), "action": e.get("action") or "",
                                      "candidates": [{"nodeclaim": draft.key}]}, text, ref)
                return
            draft.seen.add(step)
            if getattr(draft, step) is None:
                setattr(draft, step, when)
            return
        if step == "disrupted":
            same = pair is not None and pair[:2] == (e.get("method"), e.get("action"))
            if claim and not node and same and pair[3] == "node":
                self._draft(claim, pair[2], ref)   # merges the node's draft, and its command, into the NodeClaim's
                return
            if node and not claim and same and pair[3] == "nodeclaim":
                self._draft(pair[2], node, ref)    # the pair listed NodeClaim first (a table sorted by object)
                return
            if node and not claim:
                self.terminating = (e.get("method"), e.get("action"), node, "node")
            elif claim and not node:
                self.terminating = (e.get("method"), e.get("action"), claim, "nodeclaim")
            self._disruption({"method": e.get("method"), "action": e.get("action") or "",
                              "candidates": [{"nodeclaim": claim, "node": node}]}, text, ref)
            return
        draft = self._draft(claim, node, ref)
        draft.seen.add(step)
        if step == "drained":
            draft.drained = draft.drained or when
        elif getattr(draft, step) is None:
            setattr(draft, step, when)

    def _hour(self, text: str) -> Hour | None:
        """The hour bucket of a line: sliced from a UTC RFC 3339 time (most lines), parsed otherwise."""
        if len(text) >= 20 and text[-1] == "Z" and text[10] == "T":
            key = text[:13] + ":00Z"
        else:
            when = instant(text) if text else None
            if when is None:
                return None
            key = hour_of(when)
        hour = self.hours.get(key)
        if hour is None:
            hour = self.hours[key] = Hour()
        return hour

    def _provisionable(self, e: dict, text: str, ref: str) -> None:
        hour = self._hour(text)
        if hour is not None:
            count = e.get("count") or len(e.get("pods") or ())
            hour.provisionable_lines += 1
            hour.provisionable_max = max(hour.provisionable_max, count)
            if self.keep_provisionable:
                when = instant(text)
                if when is not None:
                    self.provisionable.append((when, count, tuple(e.get("pods") or ())))

    def _unschedulable(self, e: dict, text: str, ref: str) -> None:
        hour = self._hour(text)
        if hour is not None and e.get("pod"):
            (hour.failed_scheduling if e.get("event") else hour.unschedulable).add(e["pod"])

    def _nominated(self, e: dict, text: str, ref: str) -> None:
        hour = self._hour(text)
        if hour is not None:
            hour.nominated += 1

    def _blocked(self, e: dict, text: str, ref: str) -> None:
        """DisruptionBlocked, Unconsolidatable, a rejected consolidation: noted on a NodeClaim the input
        otherwise shows (a snapshot's events name every node; they do not make a life each)."""
        claim, node = e.get("nodeclaim"), e.get("node")
        if not ((claim and claim in self.drafts) or (node and node in self.by_node)):
            return
        draft = self._draft(e.get("nodeclaim"), e.get("node"), ref)
        if len(draft.blocked) < MAX_BLOCKED_PER_LIFE:
            draft.blocked.append((self._when(text), e.get("event") or e["kind"], e.get("reason") or ""))

    def failed_scheduling(self, pod: str, when: datetime | None) -> None:
        """kube-scheduler's FailedScheduling event (from ``--events`` or the snapshot), not a Karpenter line."""
        if when is None:
            return
        key = hour_of(when)
        hour = self.hours.get(key)
        if hour is None:
            hour = self.hours[key] = Hour()
        hour.failed_scheduling.add(pod)


# The handler of each kind: the class's functions, not bound methods kept on the builder (a builder holding
# its own methods is a reference cycle, which only the collector frees: a day's lives all waited for it)
_HANDLERS = {
    "nodeclaim_created": HistoryBuilder._created, "nodeclaim_launched": HistoryBuilder._launched,
    "nodeclaim_registered": HistoryBuilder._registered, "nodeclaim_initialized": HistoryBuilder._initialized,
    "disruption": HistoryBuilder._disruption, "node_terminated": HistoryBuilder._terminated,
    "interruption": HistoryBuilder._interruption, "launch_failed": HistoryBuilder._launch_failed,
    "other": HistoryBuilder._other, "pods_provisionable": HistoryBuilder._provisionable,
    "pod_unschedulable": HistoryBuilder._unschedulable, "pod_nominated": HistoryBuilder._nominated,
    "disruption_blocked": HistoryBuilder._blocked, "unconsolidatable": HistoryBuilder._blocked,
    "consolidation_rejected": HistoryBuilder._blocked,
}
READ = frozenset(_HANDLERS)   # the kinds a builder reads: the others are passed over, their times too


def build_history(events: Iterable[dict], file: str = "") -> HistoryBuilder:
    """A builder fed with one stream of events (tests, a pane's window); see :func:`finish`."""
    builder = HistoryBuilder()
    builder.feed_all(events, file)
    return builder
