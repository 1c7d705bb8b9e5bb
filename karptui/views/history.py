"""The History pane's rows and drill-ins, from a :class:`karptui.history.Timeline` and the clock.

The pane shows what ``karptui history`` prints, in three views of one Timeline: every NodeClaim's
life (sortable), the replacement chains link by link, and each hour (churn per NodePool, short-lived
NodeClaims, pending pods, launch failures, interruptions, cost). A NodeClaim's drill-in leads with
:func:`karptui.history.why.why`, the sentence ``karptui history --node`` prints. Its input is a plain
Timeline and a "now" (the snapshot's clock), so anything that makes a Timeline (a log, a recording)
feeds the pane the same way. Nothing here reads a log.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from ..history.life import Life
from ..history.timeline import Chain, Timeline
from ..history.times import hour_of, span_text, stamp
from ..history.why import why
from .format import counted, money

VIEWS = ("nodeclaims", "chains", "hours")
NO_LOG = "(no Karpenter log: open with --logs FILE)"
READING_LOG = "(reading Karpenter's log…: this fills in when it is read)"   # while the session's log is parsed

LIFE_COLUMNS = ("nodeclaim", "nodepool", "type", "zone", "capacity", "$/h", "created", "launch→ready", "end",
                "at", "disrupt→gone", "lived", "replaced by")
# one sort per column, in the columns' order (the header's ▲ is over the sort's column)
HISTORY_SORTS = ("nodeclaim", "nodepool", "type", "zone", "capacity", "price", "created", "launch→ready", "end",
                 "at", "disrupt→gone", "lived", "replaced by")
CHAIN_COLUMNS = ("replacement chain · link", "at", "reason", "saving $/h", "command")
HOUR_COLUMNS = ("hour", "nodepool", "created", "disrupted", "gone", "short-lived", "pending", "launch errors",
                "interrupted", "spent $", "$/h at end", "nodes")


def _day(timeline: Timeline) -> str:
    """The one UTC day the log's lines span (``2025-06-02``), or "" when they span more."""
    days = {when.astimezone(UTC).date().isoformat() for when in (timeline.first, timeline.last) if when is not None}
    return days.pop() if len(days) == 1 else ""


def _time_format(timeline: Timeline) -> str:
    """Times in the tables: the clock alone when the log is of one UTC day, else with the date."""
    return "%H:%M:%S" if _day(timeline) else "%m-%d %H:%M:%S"


def _clock(when: datetime | None, fmt: str) -> str:
    return "" if when is None else when.astimezone(UTC).strftime(fmt)


def _end(life: Life) -> str:
    """The end column: Karpenter's method and action (``underutilized replace``), or why else it went."""
    if life.disruption is not None and life.disruption.action:
        return f"{life.end_reason} {life.disruption.action}"
    if life.interruption is not None:
        kind = life.interruption.message_kind.replace("_", " ")
        return kind if "interruption" in kind else f"interruption ({kind})"   # not "interruption (spot interruption)"
    return life.end_reason.replace("_", " ")


def _ended_at(life: Life) -> datetime | None:
    """When its end began: the disruption or interruption, else its deletion."""
    if life.disrupted is not None:
        return life.disrupted
    if life.interruption is not None and life.interruption.time is not None:
        return life.interruption.time
    return life.terminated


@dataclass(frozen=True)
class HistoryRows:
    """One view's rows: cells, keys (``life:NAME``, ``chain:ROOT``, ``link:N:FROM``, ``hour:H``) and, for
    the NodeClaims, the lives in the order shown."""

    rows: tuple[tuple[str, ...], ...]
    keys: tuple[str, ...]


def _life_key(sort: str) -> Callable[[Life, tuple], tuple]:
    """A sort's key over a life and its :class:`LifeTable` facts: unknown values (no price, no time) after
    the known ones (before them reversed)."""
    never = datetime.max.replace(tzinfo=UTC)

    def number(value: float | None) -> tuple:
        return (value is None, value or 0.0)

    def time(value: datetime | None) -> tuple:
        return (value is None, value or never)

    # facts: (start, price, launch→ready, end, at, disrupt→gone, lived)
    keys: dict[str, Callable[[Life, tuple], tuple]] = {
        "nodeclaim": lambda life, f: (life.nodeclaim,),
        "nodepool": lambda life, f: (life.nodepool, life.nodeclaim),
        "type": lambda life, f: (life.instance_type, life.nodeclaim),
        "zone": lambda life, f: (life.zone, life.nodeclaim),
        "capacity": lambda life, f: (life.capacity_type, life.nodeclaim),
        "price": lambda life, f: (*number(f[1]), life.nodeclaim),
        "created": lambda life, f: (*time(f[0]), life.nodeclaim),
        "launch→ready": lambda life, f: (*number(f[2]), life.nodeclaim),
        "end": lambda life, f: (f[3], life.nodeclaim),
        "at": lambda life, f: (*time(f[4]), life.nodeclaim),
        "disrupt→gone": lambda life, f: (*number(f[5]), life.nodeclaim),
        "lived": lambda life, f: (*number(f[6]), life.nodeclaim),
        "replaced by": lambda life, f: (", ".join(life.replaced_by), life.nodeclaim),
    }
    return keys[sort]


def life_fields(life: Life) -> tuple[str, ...]:
    """What the ``/`` filter searches in a NodeClaim's row (also its node and instance)."""
    return (life.nodeclaim, life.node, life.provider_id, life.nodepool, life.instance_type, life.zone,
            life.capacity_type, _end(life), *life.replaced_by, *life.replaces)


@dataclass(frozen=True, eq=False)
class LifeTable:
    """A Timeline's NodeClaim rows, formatted once: a sort or a filter only reorders them (a day of a big
    cluster is tens of thousands of lives; the pane makes this in its worker's process)."""

    lives: tuple[Life, ...]
    cells: tuple[tuple[str, ...], ...]
    facts: tuple[tuple, ...]   # per life: (start, price, launch→ready, end, at, disrupt→gone, lived)


def life_table(timeline: Timeline) -> LifeTable:
    fmt = _time_format(timeline)
    cells, facts = [], []
    for life in timeline.lives:
        ready, gone, lived, at, end = life.launch_to_ready, life.disrupt_to_gone, life.lived, _ended_at(life), _end(life)
        cells.append((life.nodeclaim, life.nodepool or "-", life.instance_type or "-", life.zone or "-",
                      life.capacity_type or "-", money(life.price) if life.price is not None else "-",
                      _clock(life.created, fmt) or "-", span_text(ready) or "-", end, _clock(at, fmt) or "-",
                      span_text(gone) or "-", span_text(lived) or "-", ", ".join(life.replaced_by) or "-"))
        facts.append((life.start, life.price, ready, end, at, gone, lived))
    return LifeTable(timeline.lives, tuple(cells), tuple(facts))


def life_rows(table: LifeTable, sort: str = "created", reverse: bool = False,
              keep: Callable[[Life], bool] | None = None) -> HistoryRows:
    """The NodeClaims ``keep`` keeps, sorted by ``sort`` (the Timeline's own order is by creation)."""
    lives, facts = table.lives, table.facts
    index = [i for i, life in enumerate(lives) if keep is None or keep(life)]
    if sort != "created" or reverse:
        key = _life_key(sort)
        index.sort(key=lambda i: key(lives[i], facts[i]), reverse=reverse)
    return HistoryRows(tuple(table.cells[i] for i in index), tuple(f"life:{lives[i].nodeclaim}" for i in index))


def saving_text(value: float | None) -> str:
    """A saving in USD per hour, as the tables print it: ``+0.1480``; a sum that rounds to nothing is
    ``+0.0000``, not ``-0.0000`` (a chain whose links cancel out saved nothing, it did not lose)."""
    if value is None:
        return "-"
    rounded = round(value, 4)
    return f"{rounded + 0.0 if rounded else 0.0:+.4f}"


def chain_rows(timeline: Timeline, keep: Callable[[Chain], bool] | None = None) -> HistoryRows:
    """Each chain (longest first) as ``▼ A → B → C`` with its total saving, then its links in order."""
    fmt = _time_format(timeline)
    rows, keys = [], []
    for chain in timeline.chains:
        if keep is not None and not keep(chain):
            continue
        first = chain.links[0].time if chain.links else None
        rows.append((f"▼ {' → '.join(chain.nodeclaims)}", _clock(first, fmt),
                     counted(len(chain.links), "link"), saving_text(chain.saving), ""))
        keys.append(f"chain:{chain.nodeclaims[0]}")
        for number, link in enumerate(chain.links):
            rows.append((f"  {link.old} → {', '.join(link.new)}", _clock(link.time, fmt) or "-", link.reason,
                         saving_text(link.saving), link.command_id or "-"))
            keys.append(f"link:{number}:{link.old}")
    return HistoryRows(tuple(rows), tuple(keys))


def chain_fields(chain: Chain) -> tuple[str, ...]:
    return (*chain.nodeclaims, *(link.reason for link in chain.links))


def _hour_label(hour: str, day: str) -> str:
    """``03:00Z`` on the log's one day, else ``2025-06-02 03:00Z`` (a snapshot's events may be of another
    day than its log; the key is ``2025-06-02T03:00Z``)."""
    return hour[11:] if hour[:10] == day else f"{hour[:10]} {hour[11:]}"


def pending_pods(hour) -> int:
    """An hour's pending pods in one number: the most of Karpenter's largest batch, the pods it could not
    schedule and the pods with a FailedScheduling event (the hour's drill-in has each)."""
    return max(hour.provisionable_max, hour.unschedulable_pods, hour.failed_scheduling_pods)


def hour_rows(timeline: Timeline, keep: Callable[[str], bool] | None = None) -> HistoryRows:
    """One row per hour (every NodePool together, with pending pods, failures, interruptions and cost),
    then one per NodePool that churned in it (``keep`` filters the NodePools)."""
    day = _day(timeline)
    short = set(timeline.short_lived)
    short_by: Counter = Counter()
    for life in timeline.lives:
        if life.nodeclaim in short and life.start is not None:
            short_by[(hour_of(life.start), life.nodepool)] += 1
    churn = defaultdict(list)
    for c in timeline.churn:
        churn[c.hour].append(c)
    pending = {p.hour: p for p in timeline.pending}
    cost = {c.hour: c for c in timeline.cost}
    failures = Counter(hour_of(f["time"]) for f in timeline.launch_failures if f["time"] is not None)
    interruptions = Counter(hour_of(i["time"]) for i in timeline.interruptions if i["time"] is not None)
    rows, keys = [], []
    for hour in sorted({*churn, *pending, *cost, *failures, *interruptions}):
        pools = [c for c in churn.get(hour, ()) if keep is None or keep(c.nodepool or "(unknown)")]
        if keep is not None and not pools:
            continue
        spent = cost.get(hour)
        p = pending.get(hour)
        rows.append((f"▼ {_hour_label(hour, day)}", "(all)", *(str(sum(getattr(c, f) for c in churn.get(hour, ())))
                                                            for f in ("created", "disrupted", "terminated")),
                     str(sum(n for (h, _), n in short_by.items() if h == hour)),
                     str(pending_pods(p)) if p is not None else "0", str(failures.get(hour, 0)),
                     str(interruptions.get(hour, 0)), f"{spent.spent:.2f}" if spent else "-",
                     f"{spent.per_hour_at_end:.3f}" if spent else "-", str(spent.nodes_at_end) if spent else "-"))
        keys.append(f"hour:{hour}")
        for c in pools:
            rows.append(("", c.nodepool or "(unknown)", str(c.created), str(c.disrupted), str(c.terminated),
                         str(short_by.get((hour, c.nodepool), 0)), "", "", "", "", "", ""))
            keys.append(f"pool:{hour}:{c.nodepool}")
    return HistoryRows(tuple(rows), tuple(keys))


def summary(timeline: Timeline, now: datetime | None = None) -> str:
    """The status line: how much, over when (UTC), and how the log's end stands to the clock shown (a
    snapshot's capture time, or the moment of a recording the header names)."""
    if not timeline.lives and not timeline.pending and not timeline.launch_failures:
        return "the log and events name no NodeClaim and no pending pod"
    first, last = timeline.first, timeline.last
    span = ""
    if first is not None and last is not None:
        if _day(timeline):
            span = f" · {_clock(first, '%H:%M:%S')}–{_clock(last, '%H:%M:%S')} UTC {_clock(first, '%Y-%m-%d')}"
        else:
            span = f" · {_clock(first, '%Y-%m-%d %H:%M')}–{_clock(last, '%Y-%m-%d %H:%M')} UTC"
        if now is not None and (now - last).total_seconds() > 300:
            span += f" (ends {span_text((now - last).total_seconds())} before the moment shown)"
    minutes = f"{timeline.short_lived_seconds / 60:g}m"
    spent = sum(c.spent for c in timeline.cost)
    prices = f"{timeline.catalog} prices" + (f", after discount {timeline.discounts}" if timeline.discounts else "")
    return (f"{counted(len(timeline.lives), 'NodeClaim')}{span} · {counted(len(timeline.chains), 'chain')} · "
            f"{len(timeline.short_lived):,} lived <{minutes} · "
            f"{counted(len(timeline.launch_failures), 'launch failure')} · "
            f"{counted(len(timeline.interruptions), 'interruption')} · ${spent:,.2f} spent ({prices})")


# ---- drill-ins ---------------------------------------------------------------------------------

WHY_SECTION = "Why did it go"


def life_detail(timeline: Timeline, life: Life) -> dict[str, list[str]]:
    """A NodeClaim's drill-in: the answer ``karptui history --node`` prints, then its life step by step,
    its chain, its command, what blocked it earlier, its launch failures and the lines it came from."""
    sections: dict[str, list[str]] = {WHY_SECTION: [why(life)]}
    sections["Life"] = _steps(life)
    chain = next((c for c in timeline.chains if life.nodeclaim in c.nodeclaims), None)
    if chain is not None:
        sections["Replacement chain"] = [" → ".join(chain.nodeclaims) + f"  (saving {saving_text(chain.saving)} $/h)"] + [
            f"{stamp(link.time) or '(no time)'}  {link.old} → {', '.join(link.new)}: {link.reason}, saving "
            f"{saving_text(link.saving)} $/h" + (f" (command {link.command_id})" if link.command_id else "")
            for link in chain.links]
    d = life.disruption
    if d is not None:
        sections["Disruption command"] = [
            f"{d.method}{' ' + d.action if d.action else ''} at {stamp(d.time) or '(no time)'}"
            + (f", command {d.command_id}" if d.command_id else ""),
            f"other nodes in the command: {', '.join(d.others) or 'none'}",
            f"pods on the command's nodes: {'not logged' if d.pod_count is None else d.pod_count}",
            f"replacements: {', '.join(d.replacements) or 'none'}",
            f"NodePools: {', '.join(d.nodepools) or 'not logged'}",
        ]
    if life.blocked:
        sections["Blocked earlier (events)"] = [f"{stamp(when) or '(no time)'}  {event}: {reason}"
                                                for when, event, reason in life.blocked]
    if life.launch_failures:
        sections["Launch failures"] = [f"{stamp(when) or '(no time)'}  {error}" for when, error in life.launch_failures]
    sections["Lines"] = [f"{', '.join(life.lines)} (y shows them)" if life.lines else "(none)"]
    return sections


def _steps(life: Life) -> list[str]:
    requested = ", ".join(life.requested_types) + (f" and {life.requested_more} more" if life.requested_more else "")
    price = ""
    if life.price is not None:
        price = f", {money(life.price)}/h" + (" (estimated)" if life.price_estimated else "") + (
            " (discounted)" if life.price_discounted else "")
    said = {
        "created": (life.created, f"nodepool {life.nodepool or '(not logged)'}"
                                  + (f"; requested {requested}" if requested else "")),
        "launched": (life.launched, " ".join(filter(None, (life.instance_type, life.zone, life.capacity_type)))
                     + price + (f"; {life.provider_id}" if life.provider_id else "")),
        "registered": (life.registered, f"node {life.node}" if life.node else ""),
        "initialized": (life.initialized, f"launch→ready {span_text(life.launch_to_ready)}"
                        if life.launch_to_ready is not None else ""),
        "disrupted": (life.disrupted, _end(life)),
        "interrupted": (life.interruption.time if life.interruption else None,
                        f"{life.interruption.message_kind}, {life.interruption.action}" if life.interruption else ""),
        "drained": (life.drained, life.taint),
        "terminated": (life.terminated, "; ".join(filter(None, (
            f"disrupt→gone {span_text(life.disrupt_to_gone)}" if life.disrupt_to_gone is not None else "",
            f"lived {span_text(life.lived)}" if life.lived is not None else "")))),
    }
    lines = []
    for step in life.steps:
        when, what = said.get(step, (None, ""))
        lines.append(f"{step:<12} {stamp(when) or '(no time in the line)':<25} {what}".rstrip())
    if not life.steps:
        lines.append("(no lifecycle line: known from events)")
    if life.created is None and life.start is not None:
        lines.append("created before the input begins")
    return lines


def line_numbers(life: Life) -> list[int]:
    """The log lines (``N``) a NodeClaim's history names; events (``event``) have none."""
    return [int(ref) for ref in life.lines if ref.isdigit()]


def lines_detail(life: Life, found: dict[int, str]) -> list[str]:
    """``y`` on a NodeClaim: the lines it came from as written (``found``: line number -> text)."""
    shown = [f"{n}: {found[n]}" if n in found else f"{n}: (not in the log any more)" for n in line_numbers(life)]
    events = sum(1 for ref in life.lines if ref == "event")
    if events:
        shown.append(f"and {counted(events, 'Kubernetes event')} (not log lines)")
    return shown or ["(no line names it)"]


def hour_detail(timeline: Timeline, hour: str) -> dict[str, list[str]]:
    """An hour's drill-in: each pending-pod count, churn per NodePool, the failures and interruptions."""
    p = next((x for x in timeline.pending if x.hour == hour), None)
    c = next((x for x in timeline.cost if x.hour == hour), None)
    sections = {"Pending pods": [
        (f"Karpenter's 'found provisionable pod(s)' lines: {p.provisionable_batches}, the largest "
         f"{p.provisionable_max} pod(s)"),
        f"pods Karpenter could not schedule: {p.unschedulable_pods}",
        f"pods with a FailedScheduling event: {p.failed_scheduling_pods}",
        f"Nominated events: {p.nominated}"] if p else ["no line about pending pods in this hour"]}
    sections["Churn per NodePool"] = [f"{x.nodepool or '(unknown)'}: {x.created} created, {x.disrupted} disrupted, "
                                      f"{x.terminated} gone" for x in timeline.churn if x.hour == hour] or ["none"]
    short = set(timeline.short_lived)
    sections[f"Lived under {timeline.short_lived_seconds / 60:g}m (created this hour)"] = [
        f"{life.nodeclaim}: {span_text(life.lived)}, {_end(life)}" for life in timeline.lives
        if life.nodeclaim in short and life.start is not None and hour_of(life.start) == hour] or ["none"]
    sections["Launch failures"] = [f"{stamp(f['time'])}  {f.get('nodeclaim') or f.get('nodepool') or ''}: {f['error']}"
                                   for f in timeline.launch_failures
                                   if f["time"] is not None and hour_of(f["time"]) == hour] or ["none"]
    sections["Interruptions"] = [f"{stamp(i['time'])}  {i.get('node') or i.get('nodeclaim') or ''}: "
                                 f"{i['message_kind']}, {i['action']}" for i in timeline.interruptions
                                 if i["time"] is not None and hour_of(i["time"]) == hour] or ["none"]
    sections["Cost"] = [f"spent ${c.spent:.2f}; at the hour's end ${c.per_hour_at_end:.3f}/h on {c.nodes_at_end} "
                        f"node(s), {c.unpriced_at_end} without a price" if c else "no launched NodeClaim priced"]
    return sections
