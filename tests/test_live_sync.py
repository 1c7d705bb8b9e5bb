"""A live cluster's first list as it arrives: pages in the store at once, and how far it got."""

from __future__ import annotations

import json
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.cluster.connect import connect
from karptui.cluster.informer import SYNCED
from karptui.cluster.live import LiveCluster
from karptui.sources import fast_json
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI


@pytest.fixture
def api():
    with FakeAPI(bookmark_interval=0.2) as fake:
        for i in range(2):
            fake.add(node_obj(f"node-{i}"))
        for i in range(20):
            fake.add(pod_obj(f"web-{i}", node=f"node-{i % 2}"))
        yield fake


def seen_while_listing(live: LiveCluster, timeout: float = 20.0) -> list[tuple[int, str]]:
    """(pods in a snapshot, the progress line) each time either changes, until every kind is listed."""
    seen: list[tuple[int, str]] = []
    deadline = time.monotonic() + timeout
    while not live.wait_synced(0.02) and time.monotonic() < deadline:
        now = (len(live.snapshot().pods), live.progress())
        if not seen or seen[-1] != now:
            seen.append(now)
    return seen


def test_the_first_list_shows_each_page_as_it_arrives_and_says_how_far_it_got(api, kubeconfig):
    api.slow("pods", 0.4)  # each page of 5 pods takes this long to come
    live = LiveCluster(connect(kubeconfig), page=5, read_timeout=5).start()
    try:
        seen = seen_while_listing(live)
        assert (5, "synced 5/20 pods…") in seen
        assert (10, "synced 10/20 pods…") in seen
        assert live.wait_synced(10)
        assert len(live.snapshot().pods) == 20 and live.progress() == ""
    finally:
        live.stop()


def test_a_list_done_again_keeps_the_whole_picture_until_it_is_read(api, kubeconfig):
    live = LiveCluster(connect(kubeconfig), page=5, read_timeout=5).start()
    try:
        assert live.wait_synced(10)
        pods = next(i for i in live.informers if i.resource.name == "pods")
        api.wait_for_streams(sum(1 for i in live.informers if i.state == SYNCED))  # every watch open
        api.slow("pods", 0.4)
        pods.resync = 0  # list pods again now, slowly
        api.drop_watches()
        counts, listing = set(), False
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (listing and pods.listing_since is None):
            listing = listing or pods.listing_since is not None
            counts.add(len(live.snapshot().pods))
            assert live.progress() == ""  # not a first list: nothing to say
            time.sleep(0.05)
        assert listing, "pods were not listed again"
        assert counts == {20} and pods.counts["resyncs"] >= 1
    finally:
        live.stop()


def test_the_cli_opens_the_screen_once_every_kind_is_arriving(api, kubeconfig, monkeypatch, capsys):
    from karptui.cli import live as cli_live

    monkeypatch.setattr(cli_live, "PARTIAL_AFTER", 0.5)
    api.slow("pods", 1.5)   # pages slower than the app's start on a loaded machine: the screen sees them arrive
    live = LiveCluster(connect(kubeconfig), page=2, read_timeout=5).start()
    try:
        assert cli_live._wait_with_progress(live, "fake")
        said = capsys.readouterr().err
        assert "showing it as it arrives (synced " in said and "/20 pods…" in said
        assert 0 < len(live.snapshot().pods) < 20
    finally:
        live.stop()


# ---- orjson, with the stdlib as the judge ----------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.floats(allow_nan=False) | st.text()
    | st.integers(min_value=-(2**70), max_value=2**70),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=5), inner, max_size=4),
    max_leaves=20)


@settings(max_examples=300, deadline=None)
@given(JSON_VALUES)
def test_fast_json_decodes_exactly_what_the_stdlib_does(value):
    text = json.dumps(value)
    decoded = fast_json.loads(text.encode())
    assert repr(decoded) == repr(json.loads(text))  # repr: 1 and 1.0, 2**70 and 1.18e21 differ


@pytest.mark.parametrize("text", [
    '{"a": 18446744073709551616}', '{"a": -9223372036854775809}', '{"a": NaN}', '{"a": 1e400}',
    '{"a": "\\ud800"}', '[1, 2.0, -0.0, 1E2]', '{"a": 1, "a": 2}',
    '[0.12345678901234567890123]', '[1.5e1234567890123456789]', '[-12345678901234567890]',
    '{"h":"12345678901234567890","n":123456789012345678901}', '[1,\n12345678901234567890123]',
])
def test_fast_json_hands_what_orjson_would_refuse_or_round_to_the_stdlib(text):
    assert repr(fast_json.loads(text.encode())) == repr(json.loads(text))
    assert repr(fast_json.loads(text)) == repr(json.loads(text))


def test_fast_json_leaves_digit_runs_inside_strings_to_orjson():
    """Karpenter's hash annotations are 19-20 digit strings on every Node and NodeClaim: orjson takes
    them (its value is the stdlib's); a run that may be a number goes to the stdlib."""
    hashed = '{"metadata":{"annotations":{"karpenter.sh/nodepool-hash":"12345678901234567890"}}}'
    assert fast_json.fast_loads(hashed) == json.loads(hashed)
    assert fast_json.fast_loads(hashed.encode()) == json.loads(hashed)
    for number in ('{"n":12345678901234567890}', '{"n":-12345678901234567890}', '[1.12345678901234567890]'):
        assert fast_json.fast_loads(number) is fast_json.NOT_FAST
        assert fast_json.fast_loads(number.encode()) is fast_json.NOT_FAST


@pytest.mark.parametrize("text", ["", "{", '{"a": 1} x', "<html>proxy error</html>", '{"a": 01}'])
def test_fast_json_refuses_what_the_stdlib_refuses(text):
    with pytest.raises(ValueError):
        json.loads(text)
    with pytest.raises(ValueError):
        fast_json.loads(text.encode())


async def test_the_screen_fills_in_as_pages_arrive_and_its_header_says_how_far(api, kubeconfig):
    from textual.widgets import Static

    from karptui.tui.app import KarptuiApp

    api.slow("pods", 1.5)   # pages slower than the app's start on a loaded machine: the screen sees them arrive
    live = LiveCluster(connect(kubeconfig), page=5, read_timeout=5).start()
    try:
        while not any(i.listed for i in live.informers if i.resource.name == "pods"):
            time.sleep(0.02)
        app = KarptuiApp(live.snapshot(), live=live, logs_since=0, live_interval=0.1, simulate_on_start=False)
        async with app.run_test(size=(160, 45)) as pilot:
            headers: list[str] = []
            for _ in range(600):
                await pilot.pause(0.05)
                header = str(app.screen.query_one("#source", Static).render())
                if not headers or headers[-1] != header:
                    headers.append(header)
                if live.wait_synced(0) and "synced" not in header and "20 pods" in header:
                    break
            assert any(f"· {n} pods · 0 pending · 0 nodepools · synced {n}/20 pods… · now" in h
                       for h in headers for n in (5, 10, 15)), headers
            assert "synced" not in headers[-1] and len(app.snapshot.pods) == 20
            await pilot.press("q")
    finally:
        live.stop()


def test_the_first_list_keeps_the_collector_paused_and_asks_for_the_next_page_while_building(api, kubeconfig):
    """Issue 28 (live sync at 20,000 nodes): while a kind is first listed the cyclic collector stays
    paused from page to page (it walked the growing store between pages), and each next page is
    asked for before the one in hand is built; once every kind is listed the collector is back on."""
    import gc

    seen: list[tuple[str, bool]] = []   # ("ask", collector on?) per page request; ("built", _) per page built
    live = LiveCluster(connect(kubeconfig), page=5, read_timeout=5)
    pods = next(i for i in live.informers if i.resource.name == "pods")
    lister, put = pods.lister, pods._put

    def asking(**kwargs):
        if not kwargs.get("watch"):
            seen.append(("ask", gc.isenabled()))
        return lister(**kwargs)

    def building(page, raw):
        if not seen or seen[-1][0] != "built":
            time.sleep(0.2)   # a slow build: the next page is asked for meanwhile
            seen.append(("built", gc.isenabled()))
        put(page, raw)

    pods.lister, pods._put = asking, building
    assert gc.isenabled()
    live.start()
    try:
        assert live.wait_synced(20)
        asks = [on for what, on in seen if what == "ask"]
        assert len(asks) == 4 and not any(asks[1:]), seen      # 20 pods in pages of 5: paused throughout
        # the second page was asked for before the first was built
        second_ask = [i for i, (what, _) in enumerate(seen) if what == "ask"][1]
        assert second_ask < seen.index(("built", False)), seen
        deadline = time.monotonic() + 5
        while not gc.isenabled() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert gc.isenabled()
    finally:
        live.stop()


def test_read_ahead_raises_a_page_error_where_that_page_would_have_come():
    from karptui.cluster.resources import read_ahead

    def pages():
        yield {"n": 1}
        yield {"n": 2}
        raise ValueError("page 3 refused")

    got = []
    with pytest.raises(ValueError, match="page 3 refused"):
        for page in read_ahead(pages()):
            got.append(page["n"])
    assert got == [1, 2]
    # a caller that stops early: the helper stops too (it is not left blocked on a full hand-off)
    endless = ({"n": n} for n in range(10**9))
    for page in read_ahead(endless, "endless"):
        break
    time.sleep(1.0)
    import threading
    assert not [t for t in threading.enumerate() if t.name == "read-ahead-endless"]
