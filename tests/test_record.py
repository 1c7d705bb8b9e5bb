"""``karptui record`` against the stand-in API server, and the recording read back and scrubbed."""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from karptui.cli import main
from karptui.recording import Recording, RecordingWriter, is_recording
from karptui.recording.segments import list_segments
from tests.conftest import node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import eventually, nodepool, only_gets
from tests.test_live_logs import NS, karpenter_pod, lease

POOL = {"karpenter.sh/nodepool": "default", "karpenter.sh/capacity-type": "on-demand",
        "node.kubernetes.io/instance-type": "m5.xlarge"}
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")


def pool_node(i: int) -> dict:
    return node_obj(f"node-{i}", zone=ZONES[i % 3], labels=POOL)


def line(message: str, when: datetime, **fields) -> str:
    return json.dumps({"level": "INFO", "time": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z", "logger": "controller",
                       "message": message, "commit": "abc", **fields})


def stand_in(api: FakeAPI, nodes: int = 3) -> None:
    for i in range(nodes):
        api.add(pool_node(i))
    api.add(karpenter_pod("karpenter-a"))
    api.add(lease("karpenter-a"))
    api.add(nodepool("default"))


def deltas_with(out: Path, predicate) -> bool:
    """Whether a delta segment on disk holds a change ``predicate`` accepts."""
    for file in list_segments(out) if out.is_dir() else ():
        if file.type == "delta":
            doc = json.loads(gzip.decompress(file.path.read_bytes()))
            if any(predicate(kind, obj) for _, kind, obj in doc["changes"]):
                return True
    return False


@pytest.fixture(scope="module")
def recorded(tmp_path_factory):
    """A recording made by ``karptui record`` while nodes come and go and Karpenter decides."""
    tmp = tmp_path_factory.mktemp("record")
    out = tmp / "rec"
    with FakeAPI(bookmark_interval=0.2) as api:
        stand_in(api)
        api.add(pod_obj("web-0", cpu="2"))  # pending until Karpenter's new node takes it
        api.append_log(NS, "karpenter-a", "controller",
                       line("found provisionable pod(s)", datetime.now(UTC), Pods="default/web-0"))
        kubeconfig = api.kubeconfig(tmp / "k")
        timeline: dict[str, datetime] = {}

        def churn() -> None:
            eventually(lambda: any(f.type == "base" for f in list_segments(out)) if out.is_dir() else False, 30)
            api.add(pool_node(3))  # Karpenter launched a node
            eventually(lambda: deltas_with(out, lambda k, o: k == "ADDED" and o["metadata"]["name"] == "node-3"), 30)
            api.modify(pod_obj("web-0", cpu="2", node="node-3"))  # kube-scheduler bound it
            eventually(lambda: deltas_with(out, lambda k, o: k == "MODIFIED" and o["metadata"]["name"] == "web-0"), 30)
            time.sleep(0.3)
            timeline["decided"] = datetime.now(UTC)
            api.append_log(NS, "karpenter-a", "controller", line(
                "disrupting node(s)", timeline["decided"], controller="disruption", reason="underutilized",
                decision="delete", **{"disrupted-nodes": [{"Node": {"name": "node-0"}, "NodeClaim": {"name": "c0"}}]}))
            time.sleep(0.3)
            api.delete(pool_node(0))
            eventually(lambda: deltas_with(out, lambda k, o: k == "DELETED" and o["metadata"]["name"] == "node-0"), 30)
            os.kill(os.getpid(), signal.SIGTERM)  # stopped as `kill` stops it: the interval so far is written

        thread = threading.Thread(target=churn, daemon=True)
        thread.start()
        code = main(["record", str(out), "--every", "0.25s", "--for", "120s", "--kubeconfig", str(kubeconfig),
                     "--max-size", "10MiB"])
        thread.join(30)
        only_gets(api)
    assert code == 0
    return out, timeline


def node_names(snapshot) -> list[str]:
    return sorted(n.name for n in snapshot.nodes)


def test_a_recording_replays_nodes_as_they_were(recorded):
    out, timeline = recorded
    assert is_recording(out)
    rec = Recording(out)
    assert node_names(rec.snapshot_at(rec.start)) == ["node-0", "node-1", "node-2"]
    assert node_names(rec.snapshot_at(rec.end)) == ["node-1", "node-2", "node-3"]
    decisions = [m for m in rec.moments() if m.what == "decision"]
    assert [abs((m.at - timeline["decided"]).total_seconds()) < 0.01 for m in decisions] == [True]
    at_decision = rec.snapshot_at(decisions[0].at)
    assert node_names(at_decision) == ["node-0", "node-1", "node-2", "node-3"]
    assert "disrupting node(s)" in at_decision.meta.logs_text  # its log up to then
    assert "disrupting node(s)" not in rec.snapshot_at(decisions[0].at - timedelta(milliseconds=1)).meta.logs_text
    assert "found provisionable pod(s)" in rec.snapshot_at(rec.start).meta.logs_text
    intervals = [m for m in rec.moments() if m.what == "interval"]
    assert len(intervals) >= 3 and intervals[0].at == rec.start and intervals[-1].at == rec.end
    assert at_decision.meta.captured_at == decisions[0].at and at_decision.meta.context == "fake"


def test_the_recording_keeps_only_the_allow_list(recorded):
    out, _ = recorded
    raw = b"".join(gzip.decompress(f.path.read_bytes()) for f in list_segments(out))
    assert b"secret-cluster" not in raw and b"secretKeyRef" not in raw and b"managedFields" not in raw
    assert oct((out / "recording.json").stat().st_mode & 0o777) == oct(0o666 & ~_umask())


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


# ---- the TUI on a recording -------------------------------------------------------------------

async def test_open_scrubs_every_pane_to_the_moment(recorded):
    from karptui.tui.app import KarptuiApp
    from karptui.tui.widgets import VirtualTable

    out, _ = recorded
    rec = Recording(out)
    app = KarptuiApp(rec.snapshot_at(rec.end), recording=rec, simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()

        def nodes() -> list[str]:
            keys = app.screen.query_one("#nodes-table", VirtualTable).keys
            return sorted(k.removeprefix("node:") for k in keys if k.startswith("node:"))

        async def settle(check) -> None:
            for _ in range(200):
                await pilot.pause(0.02)
                if check():
                    return
            raise AssertionError(app.source_line())

        def pending() -> list[str]:
            return app.screen.query_one("#pending-table", VirtualTable).keys

        assert nodes() == ["node-1", "node-2", "node-3"]
        assert app.source_line().startswith(f"as at {rec.end:%Y-%m-%d %H:%M:%S} UTC, recorded · ")
        assert "pod:default/web-0" not in pending()
        await pilot.press("left_square_bracket")  # the previous decision: node-0 about to go
        await settle(lambda: "node-0" in nodes())
        assert nodes() == ["node-0", "node-1", "node-2", "node-3"]
        assert app.moment == rec.step(rec.end, "decision", -1)
        assert app.source_line().startswith(f"as at {app.moment:%Y-%m-%d %H:%M:%S} UTC, recorded")
        await pilot.press("4")
        disruption = app.screen.query_one("#disruption-table", VirtualTable)
        await settle(lambda: "node:node-0" in disruption.keys)
        assert any(e["kind"] == "disruption" for e in app.events)  # the Activity pane's log: up to then
        await pilot.press("left_curly_bracket")  # an hour earlier: the recording's start
        await settle(lambda: "node-3" not in nodes())
        assert app.moment == rec.start and nodes() == ["node-0", "node-1", "node-2"]
        await pilot.press("2")
        assert "pod:default/web-0" in pending()  # pending then, before node-3 came
        assert not any(e["kind"] == "disruption" for e in app.events)
        await pilot.press("right_square_bracket")
        await settle(lambda: "node-3" in nodes())
        assert app.moment == rec.decisions[0].at
        await pilot.press("right_curly_bracket")  # an hour later: the end
        await settle(lambda: "node-0" not in nodes())
        assert app.moment == rec.end
        await pilot.press("left_curly_bracket", "right_square_bracket")  # typed ahead: start, then its next decision
        await settle(lambda: app.scrub_to is None and app.moment == rec.decisions[0].at)
        assert nodes() == ["node-0", "node-1", "node-2", "node-3"]


async def test_scrub_keys_are_a_recordings_only(recorded):
    from karptui.sources import bundled_snapshot, load_snapshot
    from karptui.tui.app import KarptuiApp
    from karptui.tui.screens.help import help_rows

    app = KarptuiApp(load_snapshot(bundled_snapshot()), simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        before = app.snapshot
        await pilot.press("right_square_bracket", "left_curly_bracket")
        await pilot.pause()
        assert app.moment is None and app.snapshot is before and not app.source_line().startswith("as at")
        assert "[" not in {key for key, _, _ in help_rows(app, app.screen)}
    rec = Recording(recorded[0])
    app = KarptuiApp(rec.snapshot_at(rec.end), recording=rec, simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        await pilot.pause()
        keys = {key: what for key, what, _ in help_rows(app, app.screen)}
        assert keys["["] == "Previous decision (recording)" and keys["}"] == "An hour later (recording)"


# ---- kill -9 ----------------------------------------------------------------------------------

def test_kill_9_mid_interval_loses_at_most_that_interval(tmp_path):
    out = tmp_path / "rec"
    with FakeAPI(bookmark_interval=0.2) as api:
        stand_in(api)
        env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
        child = subprocess.Popen([sys.executable, "-m", "karptui", "record", str(out), "--every", "0.4s",
                                  "--kubeconfig", str(api.kubeconfig(tmp_path / "k")), "--logs-since", "0"],
                                 env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            eventually(lambda: out.is_dir() and any(f.type == "base" for f in list_segments(out)), 60)
            confirmed = ["node-0", "node-1", "node-2"]
            for i in (3, 4, 5):
                api.add(pool_node(i))
                written = f"node-{i}"
                eventually(lambda n=written: deltas_with(out, lambda k, o: o["metadata"]["name"] == n), 30)
                confirmed.append(f"node-{i}")
            api.add(pool_node(6))  # seen by the child, not yet written: this interval is the one lost
            time.sleep(0.05)
            child.send_signal(signal.SIGKILL)
            child.wait(10)
        finally:
            if child.poll() is None:
                child.kill()
                child.wait(10)
    assert child.returncode == -signal.SIGKILL
    rec = Recording(out)
    last = node_names(rec.snapshot_at(rec.end))
    assert last in (sorted(confirmed), sorted([*confirmed, "node-6"]))
    for file in list_segments(out):  # every segment on disk whole
        json.loads(gzip.decompress(file.path.read_bytes()))
    # a temporary file a kill left mid-write is not a segment
    (out / ".00000099.delta.json.gz.karptui-99999999-deadbeef.tmp").write_bytes(b"\x1f\x8b half")
    assert node_names(Recording(out).snapshot_at(rec.end)) == last


# ---- the cap ----------------------------------------------------------------------------------

def test_rotation_keeps_the_directory_under_its_cap_and_what_remains_replays(tmp_path):
    cap = 60_000
    writer = RecordingWriter(tmp_path / "rec", cap)
    writer.check()
    start = datetime(2026, 11, 28, 0, 0, tzinfo=UTC)
    state = {f"node-{i}": _node(i) for i in range(20)}
    writer.begin(300, start)
    writer.base(start, start, state.values())
    expected = {}
    for interval in range(1, 200):
        end = start + timedelta(minutes=5 * interval)
        gone, new = f"node-{interval - 1}", f"node-{interval + 19}"
        changes = [(end - timedelta(minutes=2), "ADDED", _node(interval + 19)),
                   (end - timedelta(minutes=1), "DELETED", {"apiVersion": "v1", "kind": "Node",
                                                          "metadata": {"name": gone}})]
        state[new] = _node(interval + 19)
        del state[gone]
        writer.delta(end - timedelta(minutes=5), end, changes,
                     [(end, line("disrupting node(s)", end - timedelta(minutes=1), controller="disruption",
                                 reason="underutilized", decision="delete",
                                 **{"disrupted-nodes": [{"Node": {"name": gone}}]}))])
        writer.rotate()
        expected[end] = sorted(state)
        assert writer.size() <= cap
    assert writer.rotations >= 1 and writer.dropped > 0
    rec = Recording(tmp_path / "rec")
    assert rec.start > start and rec.end == end
    for at in (rec.start, rec.end, *(m.at for m in rec.moments() if m.what == "interval")):
        assert node_names(rec.snapshot_at(at)) == expected[at]
    assert len(rec.decisions) == len([s for s in rec.segments if s.type == "delta"])


def _node(i: int) -> dict:
    node = node_obj(f"node-{i}", zone=ZONES[i % 3], labels={**POOL, "filler": f"{i:08x}" * 40})
    return node


# ---- bad input ----------------------------------------------------------------------------------

def test_record_and_open_bad_input_is_one_line(cli, tmp_path, recorded):
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "x").write_text("x")
    for args, said in (
        (("record", taken), "is a directory that is not empty"),
        (("record", recorded[0]), "already holds a recording"),
        (("record", tmp_path / "nowhere" / "rec"), "does not exist"),
        (("record", tmp_path / "r", "--every", "soon"), "--every: 'soon' is not a duration"),
        (("record", tmp_path / "r", "--every", "0s"), "--every: '0s' is not a duration"),
        (("record", tmp_path / "r", "--max-size", "lots"), "--max-size: 'lots' is not a size"),
        (("open", recorded[0], "--logs", tmp_path / "k.log"), "carries its own Karpenter log"),
    ):
        code, _, err = cli(*args)
        assert code == 2 and said in err and len(err.strip().splitlines()) == 1, (args, err)
    broken = tmp_path / "broken"
    broken.mkdir()
    for file in recorded[0].iterdir():
        (broken / file.name).write_bytes(file.read_bytes())
    newest = list_segments(broken)[-1].path
    newest.write_bytes(b"not gzip")
    code, _, err = cli("open", broken)
    assert code == 2 and newest.name in err and len(err.strip().splitlines()) == 1


def test_every_snapshot_command_reads_a_recording_as_its_newest_state(cli, recorded):
    code, out, err = cli("snapshot", "info", recorded[0], "--output", "json")
    assert code == 0, err
    info = json.loads(out)
    assert info["nodes"] == 3, info
    code, out, err = cli("simulate", recorded[0], "--output", "json")
    assert code == 0, err


def test_record_for_a_while_then_stops_by_itself(cli, tmp_path):
    with FakeAPI(bookmark_interval=0.2) as api:
        stand_in(api)
        code, stdout, err = cli("record", tmp_path / "rec", "--every", "0.3s", "--for", "1s", "--logs-since", "0",
                                "--kubeconfig", api.kubeconfig(tmp_path / "k"), "--max-size", "0")
    assert code == 0, err
    assert stdout.startswith("recorded ") and " interval(s) of fake to " in stdout
    rec = Recording(tmp_path / "rec")
    intervals = len([s for s in rec.segments if s.type == "delta"])
    assert intervals >= 3 and f"recorded {intervals} interval(s)" in stdout
    assert rec.manifest["maxSize"] is None and rec.manifest["every"] == 0.3


def test_events_that_expired_are_still_in_the_history(tmp_path):
    writer = RecordingWriter(tmp_path / "rec")
    writer.check()
    start = datetime(2026, 11, 28, 3, 0, tzinfo=UTC)
    event = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "node-0.disrupting", "namespace": "default"},
             "involvedObject": {"kind": "Node", "name": "node-0"}, "reason": "DisruptionTerminating",
             "message": "Disrupting Node: Underutilized/Delete", "type": "Normal",
             "source": {"component": "karpenter"}, "lastTimestamp": "2026-11-28T03:12:05Z", "count": 1}
    writer.begin(300, start)
    writer.base(start, start, [pool_node(0), pool_node(1)])
    writer.delta(start, start + timedelta(minutes=5), [(start + timedelta(minutes=1), "ADDED", event)])
    writer.delta(start + timedelta(minutes=5), start + timedelta(minutes=10),
                 [(start + timedelta(minutes=9), "DELETED", {"apiVersion": "v1", "kind": "Event",
                                                             "metadata": dict(event["metadata"])})])
    rec = Recording(tmp_path / "rec")
    assert rec.snapshot_at(rec.end).events == () and rec.events_until(start) == []
    assert [e.reason for e in rec.snapshot_at(start + timedelta(minutes=5)).events] == ["DisruptionTerminating"]
    assert [(e.reason, e.involved_name) for e in rec.events_until(rec.end)] == [("DisruptionTerminating", "node-0")]


def test_the_bundled_night_is_the_readmes_journey_and_what_its_generator_writes(cli, tmp_path):
    """README: ``karptui open night-shift`` (a bundled name) shows the chain, and a step back to the decision at
    03:12:05 still has the node that went then; the files are tools/gen_recording.py's, byte for byte."""
    from karptui.history.snapshot import snapshot_timeline
    from karptui.sources import resolve_snapshot_path

    path = resolve_snapshot_path("night-shift")
    rec = Recording(path)
    assert [m.at.strftime("%H:%M:%S") for m in rec.decisions] == ["01:47:20", "02:20:41", "03:12:05", "05:31:12",
                                                                  "06:40:09"]
    timeline = snapshot_timeline(rec.snapshot_at(rec.end))
    assert [c.nodeclaims for c in timeline.chains] == [("default-xpsl4", "default-8jftb", "default-xctk6",
                                                         "default-bq896")]
    at = rec.step(rec.end - timedelta(hours=5), "decision", 1)
    assert at.strftime("%H:%M:%S") == "03:12:05"
    assert "ip-10-0-229-214.ec2.internal" in rec.snapshot_at(at).node_by_name
    assert "ip-10-0-229-214.ec2.internal" not in rec.snapshot_at(rec.end).node_by_name
    code, out, _ = cli("snapshot", "info", "night-shift")
    assert code == 0 and "night-shift (generated)" in out
    again = tmp_path / "night"
    subprocess.run([sys.executable, str(Path(__file__).parent.parent / "tools" / "gen_recording.py"), str(again)],
                   check=True, capture_output=True)
    assert sorted(p.name for p in again.iterdir()) == sorted(p.name for p in path.iterdir())
    for made in again.iterdir():
        assert made.read_bytes() == (path / made.name).read_bytes(), made.name


def test_the_log_at_each_moment_is_read_as_a_reading_of_its_lines_would():
    """Scrubbing takes each moment's log events from the one reading of the whole log, renumbered to the lines
    kept; at every moment of the bundled night they are what reading those lines afresh gives."""
    from karptui.logs import LogParser
    from karptui.recording.reader import Recording as Reader

    recording = Reader(Path(__file__).parent.parent / "snapshots" / "night-shift")
    moments = recording.moments()
    assert len(moments) > 10
    for moment in moments:
        fresh = list(LogParser().parse(recording.logs_until(moment.at)))
        assert recording.log_events_until(moment.at) == fresh, moment.at
