"""History's sums and times, computed the quick way, against their plain definitions (issue 30: a day's log
of a 5,000-node cluster in seconds, with the same answers to the last digit)."""

from datetime import UTC, datetime, timedelta, timezone

from hypothesis import example, given, settings
from hypothesis import strategies as st

from karptui.history.finish import _cost
from karptui.history.life import Life
from karptui.history.timeline import CostHour
from karptui.history.times import hour_of, stamp

DAY = datetime(2026, 3, 1, tzinfo=UTC)
ZONES = st.sampled_from([UTC, timezone(timedelta(hours=2)), timezone(timedelta(hours=-7, minutes=-30))])


def instants(low=-3 * 3600, high=30 * 3600):
    """Times around a day, to the millisecond or the microsecond, in a few zones (a log's own offsets)."""
    return st.builds(lambda ms, us, zone: (DAY + timedelta(milliseconds=ms, microseconds=us)).astimezone(zone),
                     st.integers(low * 1000, high * 1000), st.sampled_from([0, 1, 999]), ZONES)


def every_hour(lives, first, last, since, until):
    """Cost per hour by its definition: every hour from the window's start, every priced NodeClaim, from its
    launch (or the log's first line) to its first deletion line (or the log's last)."""
    start = max(first, since) if since else first
    stop = min(last, until) if until else last
    if stop < start:
        return ()
    spans = []
    for life in lives:
        if life.instance_type == "" and life.launched is None:
            continue
        began = life.launched or life.registered or life.initialized or (
            first if life.disrupted or life.terminated else None)
        spans.append((began or first, life.terminated, life.price))
    hour, out = start.replace(minute=0, second=0, microsecond=0), []
    while hour <= stop:
        lo, hi = max(hour, start), min(hour + timedelta(hours=1), stop)
        spent, rate, nodes, unpriced = 0.0, 0.0, 0, 0
        for began, gone, cost in spans:
            overlap = (min(gone or last, hi) - max(began, lo)).total_seconds()
            if overlap > 0 and cost is not None:
                spent += cost * overlap / 3600
            if began <= hi and (gone is None or gone > hi):
                nodes += 1
                unpriced += cost is None
                rate += 0 if cost is None else cost
        out.append(CostHour(hour.astimezone(UTC).strftime("%Y-%m-%dT%H:00Z"), round(spent, 4), round(rate, 4),
                            nodes, unpriced))
        hour += timedelta(hours=1)
    return tuple(out)


life_shapes = st.builds(
    lambda launched, lived, price, typed, disrupted: Life(
        nodeclaim="n", instance_type="m5.large" if typed else "", launched=launched,
        terminated=None if lived is None or launched is None else launched + timedelta(seconds=lived),
        disrupted=launched if disrupted else None, price=price),
    st.one_of(st.none(), instants()), st.one_of(st.none(), st.integers(0, 20 * 3600)),
    st.one_of(st.none(), st.floats(0.001, 40, allow_nan=False)), st.booleans(), st.booleans())


@settings(max_examples=300, deadline=None)
@given(st.lists(life_shapes, max_size=25), instants(-3600, 3600), st.integers(0, 26 * 3600),
       st.one_of(st.none(), instants()), st.one_of(st.none(), instants()))
def test_cost_per_hour_is_every_hour_over_every_nodeclaim(lives, first, length, since, until):
    """Summing a NodeClaim only into the hours it can touch gives every hour's figures, bit for bit, as a pass
    over all NodeClaims for each hour does -- also with a window (--since/--until) and NodeClaims launched
    before the log's first line, still running at its end, or never priced."""
    last = first + timedelta(seconds=length)
    assert _cost(lives, first, last, since, until) == every_hour(lives, first, last, since, until)


@settings(max_examples=500, deadline=None)
@example(datetime(999, 5, 6, 7, 8, 9, 123456, tzinfo=UTC))
@example(datetime(12, 1, 1, 23, 59, 59, 999999, tzinfo=timezone(timedelta(hours=-7, minutes=-30))))
@given(st.datetimes(min_value=datetime(1, 1, 2), max_value=datetime(9999, 12, 30), timezones=ZONES))
def test_stamp_and_hour_are_strftimes_text(when):
    """Times are written as strftime wrote them, in UTC with milliseconds (also the years before 1000,
    which strftime writes without leading zeros)."""
    utc = when.astimezone(UTC)
    assert stamp(when) == utc.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z"
    assert hour_of(when) == utc.strftime("%Y-%m-%dT%H:00Z")


def test_stamp_writes_karpenters_utc_milliseconds_from_any_offset():
    """Milliseconds cut, not rounded; any offset (or none: local time) brought to UTC; years before 1000 as
    they were always written."""
    assert stamp(datetime(2026, 3, 1, 0, 0, 1, 497999, tzinfo=UTC)) == "2026-03-01T00:00:01.497Z"
    assert stamp(datetime(2026, 3, 1, 0, 0, 1, tzinfo=UTC)) == "2026-03-01T00:00:01.000Z"
    assert stamp(datetime(2026, 3, 1, 1, 30, tzinfo=timezone(timedelta(hours=5, minutes=30)))) == \
        "2026-02-28T20:00:00.000Z"
    assert stamp(datetime(999, 1, 2, 3, 4, 5, 6000, tzinfo=UTC)) == "999-01-02T03:04:05.006Z"
    naive = datetime(2026, 3, 1, 12, 0, 0, 250000)
    assert stamp(naive) == stamp(naive.astimezone(UTC)) and stamp(None) is None
