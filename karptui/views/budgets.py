"""Disruption budgets over time: per NodePool and reason, what Karpenter may disrupt now and in the hours ahead.

Karpenter only says a budget blocks when it blocks (a DisruptionBlocked event), and
a scheduled budget (``schedule`` + ``duration``) changes the answer by the hour. This
view asks the simulator's budget rules (:mod:`karptui.sim.karpenter.disruption.budgets`,
the one owner) at the snapshot's time and every ``step`` after it, and names the
candidates each budget holds back now: the nodes the reason's method would take up
(its candidate filter passes) beyond what the budgets allow, best savings per cost
first. Node counts stay as captured: the timeline says what the budgets would allow
the cluster as it is. Reason ``Unhealthy`` is shown where node repair is a disruption method
paced by budgets (v1.15 with the ``NodeRepair`` gate, :func:`karptui.sim.karpenter.repair.repair_mode`):
the legacy controller of earlier releases deletes unhealthy nodes outside any budget. Headless: the
TUI and ``karptui budgets`` both show it.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta, timezone

from ..model import Snapshot
from ..sim.karpenter.disruption import budgets as B
from ..sim.karpenter.featuregates import FeatureGates
from ..sim.karpenter.repair import VOLUNTARY, repair_mode
from ..sim.karpenter.settings import controller_gates
from ..sim.state import ClusterState
from .clock import Clock
from .format import counted

STEP = timedelta(hours=1)


class WindowPastCalendar(ValueError):
    """The view's hourly cells would run past 9999-12-31 (the end of Python's calendar, as of
    Go's ``time``): a capture time or ``--at`` near it has no window to show."""


def window_fits(at: datetime, hours: int) -> None:
    """Raise :class:`WindowPastCalendar` unless ``hours`` hourly cells from ``at`` exist."""
    if at > datetime.max.replace(tzinfo=timezone.utc) - timedelta(hours=hours + 1):
        raise WindowPastCalendar(f"{at:%Y-%m-%dT%H:%MZ} leaves no {hours}-hour window before the year 9999 ends")


@dataclass(frozen=True)
class BudgetLine:
    """One budget of a NodePool, as it stands at the view's time."""

    index: int                 # its place in spec.disruption.budgets
    nodes: str
    schedule: str
    duration: str              # "8h", or "" without a schedule
    reasons: tuple[str, ...]   # () = every reason
    active: bool
    allows: int | None         # nodes it allows now (None: inactive, so no limit)
    next_change: datetime | None  # when it next turns active or inactive within the view's hours
    holds_back: tuple[str, ...]   # candidates it holds back now (it is the smallest for their reason)


@dataclass(frozen=True)
class ReasonRow:
    """One NodePool and reason: allowed now, over time, and the candidates held back."""

    pool: str
    reason: str
    allowed: int | None            # disruptions allowed now, less nodes already disrupting; None: unlimited
    timeline: tuple[int | None, ...]  # the same at now, now + step, ... (hours + 1 values)
    changes: tuple[tuple[datetime, int | None], ...]  # exact times within the hours when it changes
    binding: tuple[int, ...]       # the budgets that set it now
    candidates: tuple[str, ...]
    held_back: tuple[str, ...]


@dataclass(frozen=True)
class PoolBudgets:
    name: str
    nodes: int                     # initialized nodes (what percentages are of)
    disrupting: int                # of those, not Ready or being deleted: they spend the budget
    budgets: tuple[BudgetLine, ...]
    reasons: tuple[ReasonRow, ...]


@dataclass(frozen=True)
class BudgetsView:
    at: datetime
    known: bool                    # False: the capture time is unknown (the newest timestamp in the dump)
    hours: int
    step: timedelta
    pools: tuple[PoolBudgets, ...]
    provisioners: tuple[str, ...] = ()   # v1alpha5 Provisioners: counted in the header, with no budgets


def _after(pool, count: B.PoolCount, reason: str, at: datetime) -> int | None:
    value = B.allowed_disruptions(pool, count, reason, at)
    return None if value >= B.UNLIMITED - count.disrupting else value


def _duration(seconds: float | None) -> str:
    if seconds is None:
        return ""
    minutes = int(seconds // 60)
    hours, minutes = divmod(minutes, 60)
    return (f"{hours}h" if hours else "") + (f"{minutes}m" if minutes or not hours else "")


def budget_reasons(snapshot: Snapshot, gates: FeatureGates) -> tuple[str, ...]:
    """The reasons budgets pace in the release simulated: ``Unhealthy`` first where repair is the
    first disruption method (v1.15 with the NodeRepair gate), then Empty, Drifted, Underutilized."""
    return ((B.UNHEALTHY,) if repair_mode(snapshot, gates) == VOLUNTARY else ()) + B.REASONS


def budgets_view(snapshot: Snapshot, catalog, clock: Clock, hours: int = 24, step: timedelta = STEP,
                 gates: FeatureGates | None = None) -> BudgetsView:
    """Every NodePool's budgets at ``clock.now`` and over the next ``hours``
    (:class:`WindowPastCalendar` when those hours run past the calendar's end). ``gates``: Karpenter's
    feature gates (default: the snapshot's controller's), a what-if's ``featureGates`` over them."""
    at = clock.now
    window_fits(at, hours)
    gates = (gates or controller_gates(snapshot)).with_(snapshot.feature_gates)
    reasons = budget_reasons(snapshot, gates)
    state = ClusterState(snapshot)
    pools = {p.name: p for p in snapshot.nodepools if p.kind != "Provisioner"}
    counts = B.pool_counts(pools, state)
    # a node not Ready spends every budget but Unhealthy's (unhealthy nodes are what repair takes)
    by_reason = {reason: B.pool_counts(pools, state, reason) if reason == B.UNHEALTHY else counts
                 for reason in reasons}
    candidates: dict[tuple[str, str], list[str]] = {}
    if catalog is not None and pools:
        from ..sim.karpenter.disruption import Disruptor

        candidates = Disruptor(snapshot, catalog, gates=gates).candidates_by_reason(state)
    end = at + timedelta(hours=hours)
    out = []
    for name in sorted(pools):
        pool = pools[name]
        rows, holding = [], {i: [] for i in range(len(pool.budgets))}
        for reason in reasons:
            count = by_reason[reason][name]
            # the budgets in force whose limit is the allowance (the budgets module's own rule)
            least, applying = B.allowed(pool, count.nodes, reason, at), {id(b) for b in B.applying(pool, reason, at)}
            binding = tuple(i for i, b in enumerate(pool.budgets)
                            if id(b) in applying and B.limit(b, count.nodes) == least)
            now = _after(pool, count, reason, at)
            mine = tuple(candidates.get((name, reason), ()))
            held = mine[now:] if now is not None else ()
            for i in binding:
                holding[i] += [n for n in held if n not in holding[i]]
            timeline = tuple(_after(pool, count, reason, at + k * step) for k in range((end - at) // step + 1)) \
                if step else ()
            moments = sorted({t for b in pool.budgets if B.applies(b, reason) for t in B.changes(b, at, end)})
            changes, last = [], now
            for moment in moments:
                value = _after(pool, count, reason, moment)
                if value != last:
                    changes.append((moment, value))
                    last = value
            rows.append(ReasonRow(name, reason, now, timeline, tuple(changes), binding, mine, held))
        count = counts[name]
        lines = []
        for i, b in enumerate(pool.budgets):
            on = B.active(b, at)
            changed = B.changes(b, at, end)
            lines.append(BudgetLine(i, b.nodes, b.schedule, _duration(b.duration) if b.schedule else "", b.reasons,
                                    on, B.limit(b, count.nodes) if on else None, changed[0] if changed else None,
                                    tuple(holding[i])))
        out.append(PoolBudgets(name, count.nodes, count.disrupting, tuple(lines), tuple(rows)))
    provisioners = tuple(sorted(p.name for p in snapshot.nodepools if p.kind == "Provisioner"))
    return BudgetsView(at, clock.known, hours, step, tuple(out), provisioners)


def _stamp(moment: datetime | None) -> str | None:
    return None if moment is None else moment.strftime("%Y-%m-%dT%H:%M:%SZ")


def budgets_json(view: BudgetsView) -> dict:
    """The document ``karptui budgets -o json`` prints (docs/budgets-json.md)."""
    return {
        "at": _stamp(view.at),
        "at_known": view.known,
        "hours": view.hours,
        "step_minutes": int(view.step.total_seconds() // 60),
        "nodepools": [{
            "name": p.name,
            "nodes": p.nodes,
            "disrupting": p.disrupting,
            "budgets": [{"index": b.index, "nodes": b.nodes, "schedule": b.schedule or None,
                         "duration": b.duration or None, "reasons": list(b.reasons), "active": b.active,
                         "allows": b.allows, "next_change": _stamp(b.next_change), "holds_back": list(b.holds_back)}
                        for b in p.budgets],
            "reasons": [{"reason": r.reason, "allowed": r.allowed, "binding_budgets": list(r.binding),
                         "candidates": list(r.candidates), "held_back": list(r.held_back),
                         "timeline": [{"at": _stamp(view.at + k * view.step), "allowed": v}
                                      for k, v in enumerate(r.timeline)],
                         "changes": [{"at": _stamp(t), "allowed": v} for t, v in r.changes]}
                        for r in p.reasons],
        } for p in view.pools],
    }


def _cell(value: int | None) -> str:
    if value is None:
        return "∞"
    return str(value) if value < 10 else "+"


def budgets_lines(view: BudgetsView) -> list[str]:
    """The view as plain lines (the TUI's budgets view and the CLI's table): per NodePool its
    budgets, then per reason a strip of one cell per step (a digit, + for 10 or more, ∞ for
    no limit) starting at "now"."""
    when = view.at.strftime("%Y-%m-%d %H:%M UTC") + ("" if view.known else " (capture time unknown: newest timestamp)")
    lines = [f"Disruption budgets at {when}, and the next {view.hours}h "
             f"(one cell per {_duration(view.step.total_seconds())}; ∞ no limit, + 10 or more)"]
    if view.provisioners:
        lines.append(f"({counted(len(view.provisioners), 'v1alpha5 Provisioner')} ({', '.join(view.provisioners)}): "
                     "Provisioners, Karpenter v0.31 and earlier, have no disruption budgets)")
    elif not view.pools:
        lines.append("(no NodePools: nothing to budget)")
    width = max((len(r.timeline) for p in view.pools for r in p.reasons), default=0)
    ruler = "".join("|" if k % 6 == 0 else "·" for k in range(width))
    for p in view.pools:
        lines.append("")
        lines.append(f"NodePool {p.name}: {p.nodes} initialized node(s), {p.disrupting} already disrupting")
        for b in p.budgets:
            when = f" schedule {b.schedule!r} for {b.duration}" if b.schedule else " always"
            state = f"active, allows {b.allows}" if b.active else "inactive"
            change = f"; {'ends' if b.active else 'starts'} {b.next_change:%a %H:%M}" if b.next_change else ""
            reasons = ", ".join(b.reasons) if b.reasons else "all reasons"
            held = f"; holds back {', '.join(b.holds_back)}" if b.holds_back else ""
            lines.append(f"  budget {b.index}: nodes {b.nodes},{when}, {reasons}: {state}{change}{held}")
        lines.append(f"  {'':14} now{' ' * max(0, width - 3)}")
        lines.append(f"  {'':14} {ruler}")
        for r in p.reasons:
            strip = "".join(_cell(v) for v in r.timeline)
            now = "no limit" if r.allowed is None else f"{r.allowed} allowed now"
            held = f"; held back: {', '.join(r.held_back)}" if r.held_back else ""
            lines.append(f"  {r.reason:14} {strip}  {now}{held}")
    return lines
