"""Freeze a builder's drafts into a :class:`Timeline`: prices, the window, chains, churn, cost."""

from __future__ import annotations

from collections import Counter, defaultdict
from datetime import UTC, datetime, timedelta
from functools import cache

from ..catalog import Catalog
from .builder import Command, Draft, HistoryBuilder, line_order
from .life import Disruption, Interruption, Life
from .prices import catalog_for, price
from .timeline import Chain, Churn, CostHour, Link, PendingHour, Timeline
from .times import hour_of
from .window import Window

DEFAULT_SHORT_LIVED = 30 * 60.0
_UNBOUNDED = Window()
_NEVER = datetime.max.replace(tzinfo=UTC)   # lives whose lines had no time sort last


def _in_order(life: Life) -> tuple:
    """Lives by their first time; then the named by name, the unnamed by their first line (line 7 before 10)."""
    if life.named:
        return life.start or _NEVER, 0, life.nodeclaim, ()
    return life.start or _NEVER, 1, "", line_order(life.lines[0]) if life.lines else ()


def finish(builder: HistoryBuilder, window: Window = _UNBOUNDED, catalog: Catalog | None = None,
           discounts=None, short_lived: float = DEFAULT_SHORT_LIVED) -> Timeline:
    end = builder.end()
    since, until = window.resolve(end)
    drafts = list(builder.drafts.values()) + builder.leftover_creations()
    priced = catalog_for((d.zone for d in drafts), catalog, discounts)
    replaced_by: dict[str, list[str]] = defaultdict(list)
    replaces: dict[str, list[str]] = defaultdict(list)
    for command in builder.commands:
        for old in command.candidates:
            for new in command.replacements:
                replaced_by[old].append(new)
                replaces[new].append(old)
    # a day's thousands of launches are a few dozen offerings: each priced once
    price_of = cache(lambda itype, zone, capacity: price(priced, itype, zone, capacity))
    frozen = {d.key: _life(d, price_of, replaced_by.get(d.key, ()), replaces.get(d.key, ())) for d in drafts}
    kept = [life for life in frozen.values() if _within(life, since, until)]
    kept.sort(key=_in_order)
    names = {life.nodeclaim for life in kept}
    return Timeline(
        lives=tuple(kept),
        chains=_chains(builder.commands, frozen, names),
        churn=_churn(kept, since, until),
        short_lived=tuple(life.nodeclaim for life in kept if life.lived is not None and life.lived < short_lived),
        short_lived_seconds=short_lived,
        pending=_pending(builder, since, until),
        cost=_cost(kept, builder.first, end, since, until),
        launch_failures=tuple(f for f in builder.launch_failures if _at(f["time"], since, until)),
        interruptions=tuple(i for i in builder.interruptions if _at(i["time"], since, until)),
        since=since, until=until, first=builder.first, last=end,
        catalog=priced.source if not priced.region else f"{priced.source} {priced.region}",
        discounts=priced.discounts.describe() if priced.discounts is not None else "",
        provisionable=tuple(builder.provisionable),
    )


def _life(d: Draft, price_of, replaced_by, replaces) -> Life:
    cost, estimated, discounted = price_of(d.instance_type, d.zone, d.capacity_type) if d.instance_type \
        else (None, False, False)
    command = d.command
    disruption = None
    if command is not None:
        me = {d.key, d.node}
        disruption = Disruption(command.time, command.method, command.action, command.command_id,
                                tuple(n for n in command.nodes if n not in me), command.pod_count,
                                tuple(command.replacements), tuple(command.nodepools), command.line,
                                command.size)
    interruption = Interruption(*d.interruption) if d.interruption else None
    order = ("created", "launch_failed", "launched", "registered", "initialized", "disrupted", "interrupted", "garbage_collected",
             "drained", "terminated")
    return Life(
        nodeclaim=d.key, named=d.named, nodepool=d.nodepool, node=d.node, provider_id=d.provider_id, requested_types=d.requested,
        requested_more=d.more, instance_type=d.instance_type, zone=d.zone, capacity_type=d.capacity_type,
        price=cost, price_estimated=estimated, price_discounted=discounted, created=d.created, launched=d.launched,
        registered=d.registered, initialized=d.initialized, disrupted=d.disrupted, drained=d.drained,
        annotated=d.annotated, terminated=d.terminated, garbage_collected=d.collected, nodeclaim_deleted=d.claim_deleted, taint=d.taint, annotation=d.annotation,
        disruption=disruption, interruption=interruption, launch_failures=tuple(d.failures),
        blocked=tuple(d.blocked), replaces=tuple(replaces), replaced_by=tuple(replaced_by),
        steps=tuple(s for s in order if s in d.seen), lines=tuple(d.lines))


def _at(when: datetime | None, since: datetime | None, until: datetime | None) -> bool:
    if when is None:
        return since is None and until is None
    return (since is None or when >= since) and (until is None or when <= until)


def _within(life: Life, since: datetime | None, until: datetime | None) -> bool:
    """A life overlaps the window: begun by its end, not gone before its start (unknown ends are open)."""
    times = [t for t in (life.start, life.disrupted, life.drained, life.gone) if t is not None]
    if not times:
        return since is None and until is None
    first, last = min(times), max(times)
    if until is not None and first > until:
        return False
    gone = life.gone
    return not (since is not None and gone is not None and gone < since) and not (
        since is not None and gone is None and last < since and life.end_reason != "running")


def _chains(commands: list[Command], lives: dict[str, Life], shown: set[str]) -> tuple[Chain, ...]:
    """Replacements joined: A replaced by B replaced by C is one chain of two links."""
    links: dict[str, list[Link]] = defaultdict(list)
    parent: dict[str, str] = {}
    for command in commands:
        if not command.replacements:
            continue
        new_price = [lives[n].price if n in lives else None for n in command.replacements]
        for old in command.candidates:
            old_price = lives[old].price if old in lives else None
            share = len(command.candidates)
            saving = None if old_price is None or None in new_price else \
                round(old_price - sum(new_price) / share, 6)  # type: ignore[arg-type]
            links[old].append(Link(old, tuple(command.replacements), command.time, command.method, saving,
                                   command.command_id))
            for new in command.replacements:
                parent.setdefault(new, old)
    chains = []
    for root in [k for k in links if k not in parent]:
        order, chain_links, todo = [root], [], [root]
        while todo:
            name = todo.pop(0)
            for link in links.get(name, ()):
                chain_links.append(link)
                for new in link.new:
                    if new not in order:
                        order.append(new)
                        todo.append(new)
        if shown & set(order):
            chains.append(Chain(tuple(order), tuple(chain_links)))
    chains.sort(key=lambda c: (-len(c.nodeclaims), c.nodeclaims))
    return tuple(chains)


def _churn(lives: list[Life], since, until) -> tuple[Churn, ...]:
    counts: dict[tuple[str, str], Counter] = defaultdict(Counter)
    for life in lives:
        pool = life.nodepool or (life.disruption.nodepools[0] if life.disruption and life.disruption.nodepools
                                 else "")
        for step, when in (("created", life.created), ("disrupted", life.disrupted or (
                life.interruption.time if life.interruption else None)), ("terminated", life.terminated)):
            if when is not None and _at(when, since, until):
                counts[(pool, hour_of(when))][step] += 1
    return tuple(Churn(pool, hour, c["created"], c["disrupted"], c["terminated"])
                 for (pool, hour), c in sorted(counts.items()))


def _hour_key_in(hour: str, since, until) -> bool:
    start = datetime.fromisoformat(hour.replace("Z", ":00+00:00"))
    return (until is None or start <= until) and (since is None or start + timedelta(hours=1) > since)


def _pending(builder: HistoryBuilder, since, until) -> tuple[PendingHour, ...]:
    return tuple(PendingHour(hour, h.provisionable_lines, h.provisionable_max, len(h.unschedulable),
                             len(h.failed_scheduling), h.nominated)
                 for hour, h in sorted(builder.hours.items()) if _hour_key_in(hour, since, until))


def _cost(lives: list[Life], first: datetime | None, last: datetime | None, since, until) -> tuple[CostHour, ...]:
    """Each hour's spend from the launched NodeClaims' prices: a NodeClaim costs from its launch (or the
    log's first line, if it ran before) until its first deletion line (or the log's last)."""
    if first is None or last is None:
        return ()
    start = max(first, since) if since else first
    stop = min(last, until) if until else last
    if stop < start:
        return ()
    spans = []
    for life in lives:
        if life.instance_type == "" and life.launched is None:
            continue
        began = life.launched or life.registered or life.initialized or (first if life.disrupted or life.gone
                                                                            else None)
        spans.append((began or first, life.gone, life.price))
    first_hour = start.replace(minute=0, second=0, microsecond=0)
    hours = []   # (hour, lo, hi, seconds): the hour, the part of it inside start..stop and its length
    hour = first_hour
    while hour <= stop:
        end = hour + timedelta(hours=1)
        lo, hi = max(hour, start), min(end, stop)
        hours.append((hour, lo, hi, (hi - lo).total_seconds()))
        hour = end
    spent, rate = [0.0] * len(hours), [0.0] * len(hours)
    nodes, unpriced = [0] * len(hours), [0] * len(hours)
    for began, gone, cost in spans:
        # Only the hours from the one before its start to the one after its end can count it (a NodeClaim
        # of a day's log spans a few of them): each hour still adds its NodeClaims in their order, so
        # every sum is the one a pass over all of them for each hour gives, to the last bit.
        low = max(0, _hour_index(first_hour, began) - 1)
        high = len(hours) if gone is None else min(len(hours), _hour_index(first_hour, gone) + 2)
        ends = gone or last
        for index in range(low, high):
            hour, lo, hi, seconds = hours[index]
            # an hour it spans whole: the overlap is the hour's part, the same number as computed below
            overlap = seconds if began <= lo and ends >= hi else (min(ends, hi) - max(began, lo)).total_seconds()
            if overlap > 0 and cost is not None:
                spent[index] += cost * overlap / 3600
            if began <= hi and (gone is None or gone > hi):
                nodes[index] += 1
                if cost is None:
                    unpriced[index] += 1
                else:
                    rate[index] += cost
    return tuple(CostHour(hour_of(hour), round(spent[i], 4), round(rate[i], 4), nodes[i], unpriced[i])
                 for i, (hour, _, _, _) in enumerate(hours))


def _hour_index(first_hour: datetime, when: datetime) -> int:
    """Which of the hours from ``first_hour`` ``when`` falls in (negative before it)."""
    return (when - first_hour) // timedelta(hours=1)
