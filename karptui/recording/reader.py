"""A recording read back: the moments it knows, and the cluster as it was at any of them.

``snapshot_at(t)`` is the newest full state at or before ``t`` (a checkpoint, else the base
segment) with every change seen after it up to ``t`` applied, built
by the same :class:`~karptui.model.build.SnapshotBuilder` a snapshot file goes through, so
every pane and the simulator take it unchanged; its metadata carries the Karpenter log
lines received up to ``t`` (the Activity pane, the Disruption pane's "Karpenter said").
``events_until(t)`` starts from the same full state (:meth:`Recording._start`, the one place a
replay finds where to begin), as a checkpoint keeps the Events that expired before it.

A full state is 27 MB of JSON at 1,000 nodes: it is decoded and replayed with the cyclic garbage
collector paused (:func:`~karptui.sources.collector.collector_paused`). Left on, the collector
walked every object of the states already held, again and again, while the new one was built:
stepping back 12 h past the newest checkpoint of a day at 1,000 nodes cost twice the CPU with it.
"""

from __future__ import annotations

import bisect
import threading
from collections import OrderedDict, deque
from dataclasses import dataclass, replace
from datetime import UTC, datetime, timedelta
from functools import cached_property
from pathlib import Path

from ..errors import InputError
from ..model import Snapshot, SnapshotMeta
from ..model.build import SnapshotBuilder, convert
from ..model.errors import ModelError
from ..sources.collector import collector_paused
from .segments import (BASE, CHANGE_TYPES, CHECKPOINT, DELTA, FORMAT, MANIFEST, VERSION, SegmentFile, decode, head,
                       identity, instant, list_segments)

#: Checkpoints kept decoded, the most recently used (their objects mostly shared with the states
#: already built, so each costs little): a scrubber going back and forth over a few hours decodes
#: each once. The base, once decoded, is kept besides: it is the start of every replay before them.
CHECKPOINTS_KEPT = 4
#: States whose objects' conversions to the model are kept (:meth:`Recording._convert`): a step reuses
#: those of the states shown just before it; older ones go, or a scrub through a day would keep every
#: object of every state it passed (1,000 nodes, 20 replaced every 5 minutes: 80,000 conversions).
STATES_KEPT = 4
#: Intervals kept decoded, the most recently used (the base is kept besides): eight hours of
#: five-minute intervals. A replay reads the intervals from its full state on, and the writer puts a
#: checkpoint every dozen intervals or so when they change much, so a scrub reuses the intervals of
#: the steps near it; kept for a whole session, a day back at 20 nodes replaced per interval held
#: ~500 MiB of decoded changes.
INTERVALS_KEPT = 96

_NO_TIME = datetime.min.replace(tzinfo=UTC)   # an Event that says no time sorts first

#: The log events that are Karpenter deciding something: a provisioning decision (the NodeClaims
#: it computed for pending pods) and a disruption decision ("disrupting node(s)", any method).
DECISION_KINDS = ("nodeclaims_computed", "disruption")


@dataclass(frozen=True)
class Moment:
    """A time the recording knows the cluster's state at: an interval's end, or a decision line."""

    at: datetime
    what: str   # "interval" or "decision"
    line: str = ""  # a decision's log line


@dataclass(frozen=True)
class Segment:
    """One segment, decoded: its interval, its changes (time, type, object) and log lines (time, line)."""

    seq: int
    type: str
    start: datetime
    end: datetime
    objects: tuple[dict, ...]
    changes: tuple[tuple[datetime, str, dict], ...]
    logs: tuple[tuple[datetime, str], ...]


@dataclass(frozen=True)
class FullState:
    """A state a replay starts from, decoded: the base, or a checkpoint.

    ``expired``: the Events a replay from the base has seen by then that the state no longer holds (the
    API server let them expire), each as last seen; what :meth:`Recording.events_until` adds to the
    state's own. None for a checkpoint written before checkpoints kept them."""

    after: int                          # the index in the chain of the segment whose state it is (0: the base)
    objects: tuple[dict, ...]
    expired: tuple[dict, ...] | None


def is_recording(path: str | Path) -> bool:
    """Whether ``path`` is a recording's directory (its manifest names the format)."""
    folder = Path(path)
    manifest = folder / MANIFEST
    if not folder.is_dir() or not manifest.is_file():
        return False
    try:
        return decode(manifest).get("format") == FORMAT
    except InputError:
        return False


def read_segment(file: SegmentFile) -> Segment:
    doc = decode(file.path)
    where = file.path
    if doc.get("segment") != file.type or doc.get("seq") != file.seq:
        raise InputError(where, f"says it is {doc.get('segment')!r} {doc.get('seq')!r}, not the {file.type} "
                                f"{file.seq} its name says")
    objects = doc.get("objects") if file.type != DELTA else []
    changes = []
    for item in doc.get("changes") or () if file.type == DELTA else ():
        if not (isinstance(item, list) and len(item) == 3 and item[1] in CHANGE_TYPES and isinstance(item[2], dict)):
            raise InputError(where, f"a change is not [time, ADDED|MODIFIED|DELETED, object]: {str(item)[:80]}")
        changes.append((instant(item[0], where), item[1], item[2]))
    if not isinstance(objects, list) or not all(isinstance(o, dict) for o in objects):
        raise InputError(where, "its objects are not a list of objects")
    return Segment(file.seq, file.type, instant(doc.get("start"), where), instant(doc.get("end"), where),
                   tuple(objects), tuple(changes), read_logs(doc, where))


def read_logs(doc: dict, where: Path) -> tuple[tuple[datetime, str], ...]:
    """A segment's ``logs``: (time received, line), each checked."""
    logs = []
    for item in doc.get("logs") or ():
        if not (isinstance(item, list) and len(item) == 2 and isinstance(item[1], str)):
            raise InputError(where, f"a log entry is not [time, line]: {str(item)[:80]}")
        logs.append((instant(item[0], where), item[1]))
    return tuple(logs)


def replayable(files: list[SegmentFile]) -> list[SegmentFile]:
    """The chain a reader replays: the lowest base, then the deltas numbered one after another
    from it (anything older was being rotated away when a recorder stopped; a gap ends it)."""
    bases = [f for f in files if f.type == BASE]
    if not bases:
        return []
    first = bases[0]
    chain, deltas = [first], {f.seq: f for f in files if f.type == DELTA}
    seq = first.seq + 1
    while seq in deltas:
        chain.append(deltas[seq])
        seq += 1
    return chain


def usable_checkpoints(files: list[SegmentFile], chain: list[SegmentFile]) -> dict[int, SegmentFile]:
    """The checkpoints a replay of ``chain`` may start from, by the index in ``chain`` of the delta
    whose state each holds: those numbered after its base, up to its last delta (one at or before
    the base was being rotated away; one past a gap follows deltas the chain does not have)."""
    if not chain:
        return {}
    first, last = chain[0].seq, chain[-1].seq
    return {f.seq - first: f for f in files if f.type == CHECKPOINT and first < f.seq <= last}


def apply(state: dict, change_type: str, obj: dict) -> None:
    """One change to a state keyed by :func:`identity`."""
    if change_type == "DELETED":
        state.pop(identity(obj), None)
    else:
        state[identity(obj)] = obj


class Recording:
    """A recording directory, opened: :meth:`moments`, :meth:`snapshot_at`, :meth:`logs_until`, :meth:`log_events_until`,
    :meth:`events_until`."""

    def __init__(self, path: str | Path, checkpoints: bool = True) -> None:
        self.path = Path(path)
        if not self.path.is_dir():
            raise InputError(path, "is not a recording (not a directory)")
        manifest = self.path / MANIFEST
        if not manifest.is_file():
            raise InputError(path, f"is not a recording (no {MANIFEST})")
        self.manifest = decode(manifest)
        if self.manifest.get("format") != FORMAT:
            raise InputError(manifest, f"is not a {FORMAT} manifest")
        if self.manifest.get("version") != VERSION:
            raise InputError(manifest, f"is version {self.manifest.get('version')!r} of the format; this karptui "
                                       f"reads version {VERSION}")
        found = list_segments(self.path)
        self.files = replayable(found)
        if not self.files:
            raise InputError(path, "holds no base segment yet (the recorder had not finished its first listing)")
        #: index in files of the delta a checkpoint's state follows -> the checkpoint (none when
        #: ``checkpoints`` is False: every state replayed from the base, as a recording without them)
        self.checkpoints = usable_checkpoints(found, self.files) if checkpoints else {}
        self._base: Segment | None = None        # the base segment, decoded when first needed
        self._decoded: OrderedDict[int, Segment] = OrderedDict()   # index -> an interval, least recently used first
        self._full: OrderedDict[int, FullState] = OrderedDict()   # index -> a checkpoint, least recently used first
        self._unusable: set[int] = set()         # indexes of checkpoints that cannot be read or are not what they say
        self._lock = threading.Lock()            # the TUI's workers read it beside the screen
        self._built: dict[int, tuple[dict, object]] = {}  # id(raw object) -> (it, what the model built)
        self._shown: deque[set[int]] = deque(maxlen=STATES_KEPT)   # ids of the objects of the states built last
        self._known: dict = {}                   # identity -> object, of the last state built
        self._heads: dict[int, tuple] = {}       # index -> (start, end, logs) (:meth:`_head`)

    # ---- its segments, decoded when needed --------------------------------------------------
    def segment(self, index: int) -> Segment:
        """The ``index``-th segment of the chain (0: the base), decoded the first time it is asked for.

        Opening decodes nothing: a state at ``t`` needs the newest checkpoint at or before ``t`` (else
        the base) and the intervals after it up to ``t``; the span and the log only the base's first
        fields (:func:`.segments.head`) and the intervals; each is decoded when something asks. The base stays
        decoded; an interval stays among the :data:`INTERVALS_KEPT` used last, so a long scrub holds a
        bounded share of the recording, and one it comes back to after that is decoded again."""
        with self._lock:
            found = self._base if index == 0 else self._decoded.get(index)
            if found is not None:
                if index:
                    self._decoded.move_to_end(index)
                return found
            found = read_segment(self.files[index])
            if found.type == BASE:
                found = replace(found, objects=self._shared(found.objects))
            elif found.changes:
                shared = self._shared(obj for _, _, obj in found.changes)
                found = replace(found, changes=tuple((when, change_type, obj) for (when, change_type, _), obj
                                                     in zip(found.changes, shared)))
            if index == 0:
                self._base = found
            else:
                self._decoded[index] = found
                while len(self._decoded) > INTERVALS_KEPT:
                    self._decoded.popitem(last=False)
        return found

    @property
    def segments(self) -> list[Segment]:
        """Every segment of the chain, decoded (all of them: for what needs the whole recording)."""
        return [self.segment(i) for i in range(len(self.files))]

    def _head(self, index: int) -> tuple[datetime, datetime, tuple[tuple[datetime, str], ...]]:
        """The ``index``-th segment's start, end and log lines, without its objects or changes when the
        file allows (:func:`.segments.head`): the span and the log need no state and no change."""
        found = self._heads.get(index)
        if found is None:
            file = self.files[index]
            decoded = self._base if index == 0 else self._decoded.get(index)
            doc = head(file.path) if decoded is None else None
            if doc is None or "logs" not in doc or doc.get("segment") != file.type or doc.get("seq") != file.seq:
                whole = decoded or self.segment(index)   # an older writer's (log last), or one to complain of
                found = (whole.start, whole.end, whole.logs)
            else:
                found = (instant(doc.get("start"), file.path), instant(doc.get("end"), file.path),
                         read_logs(doc, file.path))
            self._heads[index] = found
        return found

    def _end(self, index: int) -> datetime:
        return self._head(index)[1]

    def _logs_of(self, index: int) -> tuple[tuple[datetime, str], ...]:
        return self._head(index)[2]

    def _checkpoint(self, index: int) -> FullState | None:
        """The checkpoint after the ``index``-th segment, decoded (kept among the :data:`CHECKPOINTS_KEPT`
        used last); None when it cannot be read or does not hold what its name says (torn, cut short,
        another interval's): it is only a shortcut, and the state is then replayed from the one before it."""
        end = self._end(index)
        with self._lock:
            if index in self._unusable:
                return None
            found = self._full.get(index)
            if found is not None:
                self._full.move_to_end(index)
                return found
            file = self.checkpoints[index]
            try:
                doc = decode(file.path)
                objects = doc.get("objects")
                usable = (doc.get("segment") == CHECKPOINT and doc.get("seq") == file.seq
                          and isinstance(objects, list) and all(isinstance(o, dict) for o in objects)
                          and instant(doc.get("end"), file.path) == end)
            except InputError:
                usable = False
            if not usable:
                self._unusable.add(index)
                return None
            found = FullState(index, self._shared(objects), self._expired(doc.get("expired")))
            self._full[index] = found
            while len(self._full) > CHECKPOINTS_KEPT:
                self._full.popitem(last=False)
            return found

    def _expired(self, entries) -> tuple[dict, ...] | None:
        """A checkpoint's ``expired`` ([number of the delta that removed it, the Event as last seen]), without
        those removed at or before the base a replay starts from (a rotation has since dropped them): the
        Events that replay has seen and the checkpoint's state no longer holds. None when it has none (a
        writer before checkpoints kept them) or it is not such a list."""
        if not isinstance(entries, list):
            return None
        first = self.files[0].seq
        kept = []
        for entry in entries:
            if not (isinstance(entry, list) and len(entry) == 2 and isinstance(entry[0], int)
                    and isinstance(entry[1], dict)):
                return None
            if entry[0] > first:
                kept.append(entry[1])
        return tuple(kept)

    def _shared(self, objects) -> tuple[dict, ...]:
        """``objects`` with each one equal to the last state's object of its identity replaced by that
        one: a full state (or an interval's changes) decoded after another state shares what did not
        change between them, so the model's conversion of those (:meth:`_convert`) is reused and they
        are held once."""
        known = self._known
        out = []
        for obj in objects:
            same = known.get(identity(obj))
            out.append(same if same is not None and same == obj else obj)
        return tuple(out)

    # ---- what it spans --------------------------------------------------------------------
    @property
    def start(self) -> datetime:
        """The earliest time with a known state: the base segment's end."""
        return self._end(0)

    @property
    def end(self) -> datetime:
        return self._end(len(self.files) - 1)

    @cached_property
    def logs(self) -> list[tuple[datetime, str]]:
        """Every log line kept, with the time it was received, in order."""
        return [entry for index in range(len(self.files)) for entry in self._logs_of(index)]

    @cached_property
    def _parsed(self) -> tuple[list[datetime], list[dict]]:
        """Each log line's time (:meth:`logs_until`), and the events Karpenter's lines are read as.

        A line's time is the one it says, when it says one no later than it arrived (Karpenter's
        clock: "disrupting node(s)" at 03:12:05 was decided then, whenever the follower got it);
        else the time it was received."""
        from ..history.times import instant as log_instant
        from ..logs import LogParser

        lines = self.logs
        times = [received for received, _ in lines]
        events = list(LogParser().parse(text for _, text in lines))
        for event in events:
            index = event["line"] - 1
            said = log_instant(event["time"]) if isinstance(event.get("time"), str) else None
            if said is not None and said <= times[index]:
                times[index] = said
        return times, events

    @cached_property
    def decisions(self) -> list[Moment]:
        """Karpenter's decision lines within the recording, at their times (:meth:`_parsed`), in order."""
        times, events = self._parsed
        found = [Moment(times[e["line"] - 1], "decision", self.logs[e["line"] - 1][1]) for e in events
                 if e["kind"] in DECISION_KINDS and self.start <= times[e["line"] - 1] <= self.end]
        return sorted(found, key=lambda m: m.at)

    def moments(self) -> list[Moment]:
        """Each interval's end and each Karpenter decision, in time order (the TUI steps through them)."""
        ends = [Moment(self._end(i), "interval") for i in range(len(self.files))]
        return sorted([*ends, *self.decisions], key=lambda m: (m.at, m.what))

    def step(self, at: datetime, by: str, direction: int) -> datetime | None:
        """Where scrubbing goes from ``at``: the next (``direction`` 1) or previous (-1) decision
        (``by="decision"``), or an hour later or earlier (``by="hour"``, kept within the recording);
        None when there is nothing further that way."""
        if by == "decision":
            times = [m.at for m in self.decisions]
            if direction > 0:
                index = bisect.bisect_right(times, at)
                return times[index] if index < len(times) else None
            index = bisect.bisect_left(times, at)
            return times[index - 1] if index > 0 else None
        if by != "hour":
            raise ValueError(f"no step by {by!r}")
        target = min(self.end, max(self.start, at + timedelta(hours=direction)))
        return None if target == at else target

    # ---- the state at a time ----------------------------------------------------------------
    def objects_at(self, at: datetime) -> dict:
        """The recorded objects (redacted API objects) as they were at ``at``, by identity: the newest
        checkpoint at or before ``at`` (else the base) and the changes after it up to ``at``."""
        if at < self.start:
            raise ValueError(f"{at.isoformat()} is before the recording's first state ({self.start.isoformat()})")
        with collector_paused():
            full = self._start(at)
            state = {identity(o): o for o in full.objects}
            for change_type, obj in self._changes_until(at, full.after):
                apply(state, change_type, obj)
        self._known = state
        return state

    def _start(self, at: datetime, events: bool = False) -> FullState:
        """Where a replay to ``at`` starts, for every reader of a state (:meth:`objects_at`,
        :meth:`events_until`): the newest full state that stands for the cluster at ``at``, a checkpoint
        whose interval ended at or before ``at`` (the writer writes one only when no change before it
        is later than that end), else the base.

        One full state decoded at most (and one more for each torn checkpoint passed over), the
        :data:`CHECKPOINTS_KEPT` used last kept. For ``events``, only a checkpoint that keeps the Events
        expired before it will do: one without them comes from a writer before checkpoints kept them,
        as every other checkpoint of the recording, so the replay starts from the base at once."""
        for index in sorted(self.checkpoints, reverse=True):
            if self._end(index) > at:
                continue
            full = self._checkpoint(index)
            if full is None:
                continue
            if not events or full.expired is not None:
                return full
            break
        return FullState(0, self.segment(0).objects, ())

    def _changes_until(self, at: datetime, after: int = 0):
        """(change type, object) of every change recorded after the ``after``-th segment up to ``at``, in order."""
        for index in range(after + 1, len(self.files)):
            if self._head(index)[0] > at:
                return
            for when, change_type, obj in self.segment(index).changes:
                if when > at:
                    break
                yield change_type, obj

    def events_until(self, at: datetime) -> list:
        """Every Kubernetes Event the recording saw up to ``at`` (model Events, each as last seen by
        then), those the API server had let expire included: the state at ``at`` has only those it
        still served, a history of the night wants them all. In the order they last happened (their
        last time, else their first; then namespace and name).

        From the same full state as the state at ``at`` (:meth:`_start`): its Events, those that had
        expired before it, and the changes after it up to ``at``."""
        with collector_paused():
            full = self._start(at, events=True)
            seen = {identity(o): o for o in full.expired}
            seen.update((identity(o), o) for o in full.objects if o.get("kind") == "Event")
            for change_type, obj in self._changes_until(at, full.after):
                if change_type != "DELETED" and obj.get("kind") == "Event":
                    seen[identity(obj)] = obj
            events = []
            for obj in seen.values():
                try:
                    converted = self._convert(obj)
                except (ModelError, TypeError, ValueError, AttributeError, KeyError, IndexError):
                    continue  # snapshot_at says so in its warnings; here it is simply not an event
                if converted is not None:
                    events.append(converted[2])
        return sorted(events, key=lambda e: (e.last_seen or e.first_seen or _NO_TIME, e.namespace, e.name))

    def logs_until(self, at: datetime) -> list[str]:
        """The Karpenter log lines of the recording up to ``at`` (by their times, :meth:`_parsed`), in order.

        A line's time is never later than when it was received, so at or after the last line received
        (the newest state, which ``karptui open`` shows first) every line counts and none is parsed."""
        lines = self.logs
        if not lines or at >= max(received for received, _ in lines):
            return [text for _, text in lines]
        times, _ = self._parsed
        return [text for (_, text), when in zip(lines, times) if when <= at]

    def log_events_until(self, at: datetime) -> list[dict]:
        """What the log reader makes of :meth:`logs_until`'s lines, from the one reading of the whole log kept
        for :meth:`decisions` (:meth:`_parsed`): each event numbered by its line's place among the lines kept, as
        a reading of ``logs_until(at)`` numbers it. Stepping through a day's log costs no reading per step."""
        lines = self.logs
        times, events = self._parsed
        if not lines or at >= max(received for received, _ in lines):
            return [dict(event) for event in events]
        place, kept = [0] * len(lines), 0
        for index, when in enumerate(times):
            if when <= at:
                kept += 1
                place[index] = kept
        return [{**event, "line": place[event["line"] - 1]} for event in events if place[event["line"] - 1]]

    def snapshot_at(self, at: datetime) -> Snapshot:
        """The cluster as it was at ``at``, as an ordinary Snapshot (its capture time is ``at``)."""
        with collector_paused():
            builder = SnapshotBuilder(self._convert)
            origin = f"recording {self.path.name}"
            objects = self.objects_at(at)
            for obj in objects.values():
                builder.add(obj, origin)
            snapshot = builder.build(replace(self.meta, captured_at=at, logs_text="\n".join(self.logs_until(at))))
            self._forget_built(objects.values())
        return snapshot

    def _forget_built(self, objects) -> None:
        """The conversions kept from now on: those of the objects of the :data:`STATES_KEPT` states
        built last (``objects``: the one just built)."""
        with self._lock:
            self._shown.append({id(o) for o in objects})
            keep = set().union(*self._shown)
            if len(self._built) > len(keep):
                self._built = {key: hit for key, hit in self._built.items() if key in keep}

    def _convert(self, obj: dict):
        """:func:`~karptui.model.build.convert`, once per recorded object: the states of a recording
        share most of their objects, so a step of the scrubber builds only what changed."""
        hit = self._built.get(id(obj))
        if hit is not None and hit[0] is obj:
            return hit[1]
        converted = convert(obj)
        self._built[id(obj)] = (obj, converted)
        return converted

    @cached_property
    def meta(self) -> SnapshotMeta:
        m = self.manifest
        text = lambda key: m.get(key) if isinstance(m.get(key), str) else ""
        return SnapshotMeta(source=f"recording {self.path}", name=text("context") or self.path.name,
                            context=text("context"), cluster=text("cluster"),
                            kubernetes_version=text("kubernetesVersion"), logs_source=text("logsSource"))
