"""A recording's checkpoints: the same states as the replay from its base, however it is read.

A checkpoint is only a shortcut (docs/record.md): every test here reads one recording twice, with
its checkpoints and without (``Recording(path, checkpoints=False)``, as a recording of the format
before them), and the two must agree at every moment, whatever happened to the checkpoints.
"""

from __future__ import annotations

import dataclasses
import gzip
import json
import shutil
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from karptui.errors import InputError
from karptui.recording import Recording, RecordingWriter
from karptui.recording.segments import list_segments
from tests.conftest import node_obj, pod_obj

START = datetime(2026, 11, 28, 0, 0, tzinfo=UTC)
POOL = {"karpenter.sh/nodepool": "default", "karpenter.sh/capacity-type": "on-demand",
        "node.kubernetes.io/instance-type": "m5.xlarge"}
ZONES = ("us-east-1a", "us-east-1b", "us-east-1c")


def _line(message: str, when: datetime, **fields) -> str:
    return json.dumps({"level": "INFO", "time": when.strftime("%Y-%m-%dT%H:%M:%S.%f")[:-3] + "Z",
                       "logger": "controller", "message": message, **fields})


def _node(i: int) -> dict:
    return node_obj(f"node-{i}", zone=ZONES[i % 3], labels=POOL)


def _pod(i: int, node: int, generation: int = 0) -> dict:
    pod = pod_obj(f"web-{i}", cpu="250m", node=f"node-{node}")
    pod["metadata"].setdefault("labels", {})["generation"] = f"g{generation}-{'x' * 60}"
    return pod


def _event(i: int, when: datetime, node: int, count: int = 1) -> dict:
    return {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"ev-{i}", "namespace": "default"},
            "involvedObject": {"kind": "Node", "name": f"node-{node}"}, "reason": "DisruptionTerminating",
            "message": f"Disrupting Node: Underutilized/Replace ({count})", "type": "Normal",
            "source": {"component": "karpenter"}, "lastTimestamp": when.strftime("%Y-%m-%dT%H:%M:%SZ"),
            "count": count}


def churned(path: Path, intervals: int = 40, checkpoint_every: int | None = 2, cap: int | None = None) -> dict:
    """A recording of six nodes and their pods over ``intervals`` 5-minute intervals: every interval
    a third of the pods relabelled, one pod replaced, an Event added, the newest Event seen again and
    the one held longest let expire (every seventh, the last expired served again), every third a node
    replaced (its pods moved first) and the newest pod relabelled a millisecond before the end,
    with Karpenter's "disrupting node(s)" line. The states it went through, by time: their names."""
    writer = RecordingWriter(path, cap, checkpoint_every=checkpoint_every)
    writer.check()
    writer.begin(300, START)
    nodes = list(range(6))
    pods = {i: (i % 6, 0) for i in range(24)}
    held, expired = [0, 1], []    # Events the API server serves, oldest first; those it let expire
    state = {("Node", n) for n in nodes} | {("Pod", p) for p in pods} | {("Event", e) for e in held}
    writer.base(START, START, [*(_node(n) for n in nodes), *(_pod(p, n, g) for p, (n, g) in pods.items()),
                               *(_event(e, START, e) for e in held)],
                [(START, _line("found provisionable pod(s)", START - timedelta(seconds=3), Pods="default/web-0"))])
    expected = {START: sorted(state)}
    made_nodes, made_pods = 6, 24
    for interval in range(1, intervals + 1):
        begin, end = START + timedelta(minutes=5 * (interval - 1)), START + timedelta(minutes=5 * interval)
        changes, logs, t = [], [], begin
        for p in sorted(pods)[interval % 3::3]:
            t += timedelta(seconds=2)
            node, generation = pods[p]
            pods[p] = (node, generation + 1)
            changes.append((t, "MODIFIED", _pod(p, node, generation + 1)))
        gone = min(pods)
        t += timedelta(seconds=5)
        changes.append((t, "DELETED", {"apiVersion": "v1", "kind": "Pod",
                                       "metadata": {"name": f"web-{gone}", "namespace": "default"}}))
        del pods[gone]
        state.discard(("Pod", gone))
        pods[made_pods] = (nodes[-1], 0)
        changes.append((t, "ADDED", _pod(made_pods, nodes[-1])))
        state.add(("Pod", made_pods))
        made_pods += 1
        expected[t] = sorted(state)
        t += timedelta(seconds=1)
        changes.append((t, "ADDED", _event(interval + 1, t, nodes[0])))
        held.append(interval + 1)
        t += timedelta(seconds=1)
        changes.append((t, "MODIFIED", _event(interval + 1, t, nodes[0], count=2)))
        if len(held) > 3:
            t += timedelta(seconds=1)
            gone_event = held.pop(0)
            changes.append((t, "DELETED", {"apiVersion": "v1", "kind": "Event",
                                           "metadata": {"name": f"ev-{gone_event}", "namespace": "default"}}))
            expired.append(gone_event)
        if interval % 7 == 0 and expired:
            t += timedelta(seconds=1)
            back = expired.pop()
            changes.append((t, "ADDED", _event(back, t, nodes[1], count=3)))
            held.append(back)
        state = {s for s in state if s[0] != "Event"} | {("Event", e) for e in held}
        expected[t] = sorted(state)
        if interval % 3 == 0:
            old, new = nodes.pop(0), made_nodes
            made_nodes += 1
            decided = t + timedelta(seconds=30)
            logs.append((decided + timedelta(seconds=1), _line(
                "disrupting node(s)", decided, controller="disruption", reason="underutilized", decision="replace",
                **{"disrupted-nodes": [{"Node": {"name": f"node-{old}"}}]})))
            t = decided + timedelta(seconds=20)
            nodes.append(new)
            changes.append((t, "ADDED", _node(new)))
            state.add(("Node", new))
            for p in [p for p, (n, _) in pods.items() if n == old]:
                t += timedelta(seconds=1)
                pods[p] = (new, pods[p][1])
                changes.append((t, "MODIFIED", _pod(p, new, pods[p][1])))
            t += timedelta(seconds=10)
            changes.append((t, "DELETED", {"apiVersion": "v1", "kind": "Node", "metadata": {"name": f"node-{old}"}}))
            state.discard(("Node", old))
            expected[t] = sorted(state)
        last = max(pods)   # and one at the interval's very end: a checkpoint is of the end, not before
        pods[last] = (pods[last][0], pods[last][1] + 1)
        changes.append((end - timedelta(milliseconds=1), "MODIFIED", _pod(last, *pods[last])))
        writer.delta(begin, end, changes, logs)
        writer.rotate()
        expected[end] = sorted(state)
        if cap is not None:
            assert writer.size() <= cap
    return expected


def names(objects: dict) -> list[tuple[str, int]]:
    return sorted((kind, int(name.rsplit("-", 1)[1])) for kind, _, name in objects)


def moments_of(rec: Recording) -> list[datetime]:
    """Every interval's end and decision, and a microsecond either side of every change kept."""
    times = {m.at for m in rec.moments()}
    for segment in rec.segments[1:]:
        for when, _, _ in segment.changes:
            times |= {when - timedelta(microseconds=1), when, when + timedelta(microseconds=1)}
    return sorted(t for t in times if rec.start <= t)


def same_states(path: Path, expected: dict | None = None) -> Recording:
    """That the recording at ``path`` gives, read with its checkpoints and without, the same objects (in
    the same order), the same Events seen (expired ones included), the same Snapshot and the same log
    at every moment; the reader with them."""
    fast, slow = Recording(path), Recording(path, checkpoints=False)
    assert slow.checkpoints == {}
    assert (fast.start, fast.end) == (slow.start, slow.end)
    assert fast.moments() == slow.moments()
    for at in moments_of(slow):
        objects = fast.objects_at(at)
        assert list(objects.items()) == list(slow.objects_at(at).items()), at
        if expected is not None and at in expected:
            assert names(objects) == expected[at], at
        assert fast.events_until(at) == slow.events_until(at), at
    for at in (fast.end, *[m.at for m in slow.moments()][::5]):
        assert fields(fast.snapshot_at(at)) == fields(slow.snapshot_at(at)), at
    return fast


def fields(snapshot) -> dict:
    """A Snapshot's content, field by field (a Snapshot compares by identity)."""
    return {f.name: getattr(snapshot, f.name) for f in dataclasses.fields(snapshot)}


def test_every_moment_is_the_same_state_with_and_without_checkpoints(tmp_path):
    expected = churned(tmp_path / "rec")
    points = [f for f in list_segments(tmp_path / "rec") if f.type == "checkpoint"]
    assert len(points) >= 4
    rec = same_states(tmp_path / "rec", expected)
    assert sorted(rec.checkpoints) == [f.seq for f in points]   # the base is 0: index is seq
    assert rec.end == START + timedelta(minutes=5 * 40)


def test_the_newest_state_needs_neither_the_base_nor_the_changes_before_its_checkpoint(tmp_path):
    """The base's objects and the first intervals' changes are cut off (their heads, with the times and
    the log, kept): read with the checkpoints the newest state is still there, and so is any moment
    after the first checkpoint; without them it is an error naming the base."""
    out = tmp_path / "rec"
    expected = churned(out)
    want = Recording(out, checkpoints=False)
    newest, states = want.snapshot_at(want.end), {at: want.objects_at(at) for at in moments_of(want)}
    first = min(f.seq for f in list_segments(out) if f.type == "checkpoint")
    first_at = want.segments[first].end
    for file in list_segments(out):
        if file.seq <= first and file.type != "checkpoint":
            raw = gzip.decompress(file.path.read_bytes())
            body = raw.index(b',"objects":' if file.type == "base" else b',"changes":')
            file.path.write_bytes(gzip.compress(raw[:body] + b',"objects":[{"torn'))
    rec = Recording(out)
    assert fields(rec.snapshot_at(rec.end)) == fields(newest) and names(rec.objects_at(rec.end)) == expected[rec.end]
    for at, objects in states.items():
        if at >= first_at:
            assert list(rec.objects_at(at).items()) == list(objects.items()), at
    assert [m.at for m in rec.moments()] == [m.at for m in want.moments()]
    with pytest.raises(InputError, match="00000000.base.json.gz"):
        Recording(out, checkpoints=False).snapshot_at(rec.end)


def test_a_torn_checkpoint_is_ignored(tmp_path):
    out = tmp_path / "rec"
    churned(out)
    points = [f for f in list_segments(out) if f.type == "checkpoint"]
    newest, middle = points[-1], points[len(points) // 2]
    # cut short (a disk that lied about fsync, a copy interrupted): gzip's check fails
    newest.path.write_bytes(newest.path.read_bytes()[: newest.size // 2])
    # whole, but of another interval than its name says (renamed by hand)
    other = json.loads(gzip.decompress(points[0].path.read_bytes()))
    middle.path.write_bytes(gzip.compress(json.dumps(other).encode()))
    # a writer killed mid-write leaves only its temporary file: not a checkpoint
    (out / f".{newest.path.name}.karptui-99999999-deadbeef.tmp").write_bytes(b"\x1f\x8b half")
    rec = same_states(out)
    assert rec.checkpoints.keys() == {p.seq for p in points}
    # nothing above touched the replay: the newest state came from the checkpoint before the torn one
    assert rec.objects_at(rec.end) == Recording(out, checkpoints=False).objects_at(rec.end)


def test_a_recording_without_checkpoints_in_the_layout_before_them_still_opens(tmp_path):
    """The format before checkpoints: each segment's log after its objects or changes, no checkpoint."""
    out = tmp_path / "rec"
    expected = churned(out)
    new = Recording(out, checkpoints=False)
    states = {at: new.objects_at(at) for at in moments_of(new)}
    old = tmp_path / "old"
    old.mkdir()
    shutil.copy(out / "recording.json", old / "recording.json")
    for file in list_segments(out):
        if file.type == "checkpoint":
            continue
        doc = json.loads(gzip.decompress(file.path.read_bytes()))
        body = "objects" if file.type == "base" else "changes"
        again = {k: doc[k] for k in ("segment", "seq", "start", "end", body, "logs")}
        (old / file.path.name).write_bytes(gzip.compress(json.dumps(again, separators=(",", ":")).encode()))
    rec = Recording(old)
    assert rec.checkpoints == {} and [m.at for m in rec.moments()] == [m.at for m in new.moments()]
    assert rec.logs == new.logs
    for at, objects in states.items():
        assert list(rec.objects_at(at).items()) == list(objects.items()), at
    assert names(rec.objects_at(rec.end)) == expected[rec.end]


def test_rotation_keeps_a_full_state_for_the_oldest_moment_and_the_states_within_their_share(tmp_path):
    """Under a cap that holds a few states: checkpoints count toward it, are thinned to half of it, go
    with the intervals rotation drops, and what remains replays as it was written."""
    out = tmp_path / "rec"
    probe = tmp_path / "probe"
    churned(probe, intervals=1, checkpoint_every=None)
    state_size = next(f.size for f in list_segments(probe) if f.type == "base")
    cap = 9 * state_size
    expected = churned(out, intervals=120, cap=cap)
    files = list_segments(out)
    bases = [f for f in files if f.type == "base"]
    points = [f for f in files if f.type == "checkpoint"]
    assert len(bases) == 1 and bases[0].seq > 0 and points   # rotated, and checkpoints still there
    assert all(bases[0].seq < p.seq for p in points)
    assert bases[0].size + sum(p.size for p in points) <= cap / 2 + state_size // 4
    rec = same_states(out, expected)
    assert rec.start == START + timedelta(minutes=5 * bases[0].seq)   # a base numbered N: after delta N


def test_record_says_a_bad_checkpoint_every_in_one_line(cli, tmp_path):
    code, _, err = cli("record", tmp_path / "r", "--checkpoint-every", "often")
    assert code == 2 and "--checkpoint-every" in err and len(err.strip().splitlines()) == 1, err


def test_no_checkpoint_stands_for_a_moment_before_a_change_it_holds(tmp_path):
    """A change timed after its interval's end (a clock stepped back): the state after that interval is
    not the state at its end, so no checkpoint is written until an interval ends after every change."""
    out = tmp_path / "rec"
    writer = RecordingWriter(out, checkpoint_every=1)
    writer.check()
    writer.begin(300, START)
    writer.base(START, START, [_node(0)])
    end = START + timedelta(minutes=5)
    writer.delta(START, end, [(end + timedelta(minutes=2), "ADDED", _node(1))])
    assert writer.checkpoint(force=True) is None
    writer.delta(end, end + timedelta(minutes=5), [(end + timedelta(minutes=3), "ADDED", _node(2))])
    assert writer.checkpoint(force=True) is not None
    rec = same_states(out)
    assert list(rec.checkpoints) == [2]
    assert names(rec.objects_at(end)) == [("Node", 0)]
    assert names(rec.objects_at(rec.end)) == [("Node", 0), ("Node", 1), ("Node", 2)]


async def test_scrubbing_a_recording_with_a_checkpoint_shows_the_replayed_state_at_every_step():
    """The bundled night has a checkpoint at 05:50: the TUI opens at 08:00 from it, and every ``{`` back to
    the start and ``}`` forward again shows the nodes the replay from the base has then."""
    from karptui.sources import resolve_snapshot_path
    from karptui.tui.app import KarptuiApp
    from karptui.tui.widgets import VirtualTable

    path = resolve_snapshot_path("night-shift")
    rec, replayed = Recording(path), Recording(path, checkpoints=False)
    assert [rec.segments[i].end.strftime("%H:%M") for i in rec.checkpoints] == ["05:50"]
    app = KarptuiApp(rec.snapshot_at(rec.end), recording=rec, simulate_on_start=False)
    async with app.run_test(size=(160, 45)) as pilot:
        def nodes() -> list[str]:
            keys = app.screen.query_one("#nodes-table", VirtualTable).keys
            return sorted(k.removeprefix("node:") for k in keys if k.startswith("node:"))

        def then(at) -> list[str]:
            return sorted(n.name for n in replayed.snapshot_at(at).nodes)

        async def settle() -> None:
            for _ in range(300):
                await pilot.pause(0.02)
                if app.scrub_to is None and nodes() == then(app.moment):
                    return
            raise AssertionError((app.moment, nodes(), then(app.moment)))

        await pilot.pause()
        assert app.moment == rec.end and nodes() == then(rec.end)
        seen = set()
        for key in ["left_curly_bracket"] * 8 + ["right_curly_bracket"] * 8:
            await pilot.press(key)
            await settle()
            seen.add(tuple(nodes()))
        assert app.moment == rec.end
        assert app.source_line().startswith(f"as at {rec.end:%Y-%m-%d %H:%M:%S} UTC, recorded")
        assert len(seen) >= 3   # the night's replacements: the steps showed different clusters


@pytest.mark.parametrize("removed", [0, 1, 4])
def test_a_rotation_killed_half_way_leaves_a_recording_that_replays_as_written(tmp_path, monkeypatch, removed):
    """Killed after writing the new base and removing ``removed`` of the files it replaces: the reader
    starts from the lowest base left, takes only the checkpoints after it, and every moment it has is
    the state written then."""
    import karptui.recording.writer as writer_module

    remove = writer_module._remove

    def killed(files) -> None:
        files = list(files)
        if not any(f.type == "base" for f in files):   # checkpoints thinned: not a rotation
            remove(files)
            return
        remove(files[:removed])
        raise KeyboardInterrupt   # as kill -9 would stop it: nothing after this runs

    probe = tmp_path / "probe"
    churned(probe, intervals=1, checkpoint_every=None)
    state_size = next(f.size for f in list_segments(probe) if f.type == "base")
    monkeypatch.setattr(writer_module, "_remove", killed)
    out = tmp_path / "rec"
    with pytest.raises(KeyboardInterrupt):
        churned(out, intervals=200, cap=9 * state_size)
    bases = [f for f in list_segments(out) if f.type == "base"]
    assert len(bases) == (2 if removed == 0 else 1) and any(f.type == "checkpoint" for f in list_segments(out))
    written = max(f.seq for f in list_segments(out) if f.type == "delta")
    expected = churned(tmp_path / "whole", intervals=written, checkpoint_every=None)
    rec = same_states(out, expected)
    assert rec.end == START + timedelta(minutes=5 * written)


def test_karptui_record_writes_checkpoints_of_the_live_cluster_that_replay_as_its_intervals(cli, tmp_path):
    """The recorder itself, on the stand-in API server, pods arriving all the while: with
    ``--checkpoint-every`` one interval, checkpoints come once the intervals hold half a state's bytes,
    and each is the state the intervals replay to."""
    import threading

    from tests.fakeapi import FakeAPI
    from tests.test_record import stand_in

    out = tmp_path / "rec"
    with FakeAPI(bookmark_interval=0.2) as api:
        stand_in(api)
        done = threading.Event()

        def arrive() -> None:
            for i in range(400):
                if done.wait(0.02):
                    return
                api.add(_pod(i, i % 3))

        feeder = threading.Thread(target=arrive, daemon=True)
        feeder.start()
        code, stdout, err = cli("record", out, "--every", "0.3s", "--for", "4s", "--checkpoint-every", "0.3s",
                                "--logs-since", "0", "--kubeconfig", api.kubeconfig(tmp_path / "k"))
        done.set()
        feeder.join(10)
    assert code == 0, err
    points = [f for f in list_segments(out) if f.type == "checkpoint"]
    assert points and f"{len(points)} checkpoint(s) written" in stdout
    assert json.loads((out / "recording.json").read_text())["checkpointEvery"] == 1
    rec = same_states(out)
    assert len(rec.objects_at(rec.end)) > len(rec.objects_at(rec.start))


class Decodes:
    """The segment files the reader decodes whole (its ``decode``), by name, in order: a step's cost
    counted in full states and intervals, not timed."""

    def __init__(self, monkeypatch) -> None:
        import karptui.recording.reader as reader

        self.names: list[str] = []
        decode = reader.decode

        def counted(path):
            if path.name.endswith(".json.gz"):   # a segment, not the manifest
                self.names.append(path.name)
            return decode(path)

        monkeypatch.setattr(reader, "decode", counted)

    def since(self, mark: int) -> tuple[list[str], list[str]]:
        """(full states, deltas) decoded since ``len(self.names)`` was ``mark``."""
        names = self.names[mark:]
        return ([n for n in names if ".delta." not in n], [n for n in names if ".delta." in n])


def test_each_step_back_decodes_one_full_state_at_most_and_steps_near_each_other_none(tmp_path, monkeypatch):
    """Eight hours, a checkpoint every 25 minutes. ``{`` from the newest moment to the first: each step
    decodes the newest full state at or before its moment (and nothing when it is still kept) and only
    the intervals after it up to the moment, each once; the Events seen by then come from the same
    decoded state. ``}`` forward again finds the last checkpoints used still decoded, as many as are kept."""
    from karptui.recording.reader import CHECKPOINTS_KEPT

    out = tmp_path / "rec"
    churned(out, intervals=96, checkpoint_every=5)
    replayed = Recording(out, checkpoints=False)
    hours = [replayed.end - timedelta(hours=h) for h in range(9)]
    states = {at: (list(replayed.objects_at(at).items()), replayed.events_until(at)) for at in hours}
    decodes = Decodes(monkeypatch)
    rec = Recording(out)
    assert len(rec.checkpoints) >= 16 and decodes.names == []
    ends = {i: rec._head(i)[1] for i in rec.checkpoints}   # the intervals' heads: no decode
    rec.snapshot_at(rec.end)
    wanted = []   # the full state each step must start from, by file name

    def newest_full(at) -> str:
        before = [i for i, end in ends.items() if end <= at]
        return f"{max(before):08d}.checkpoint.json.gz" if before else "00000000.base.json.gz"

    at, used = rec.end, []
    while (back := rec.step(at, "hour", -1)) is not None:
        at, mark = back, len(decodes.names)
        objects = rec.objects_at(at)
        full, deltas = decodes.since(mark)
        want = newest_full(at)
        assert full == ([] if want in used[-CHECKPOINTS_KEPT:] or want.endswith("base.json.gz") and want in used
                        else [want]), at
        start = 0 if want.endswith("base.json.gz") else int(want[:8])
        assert all(start < int(d[:8]) and rec._head(int(d[:8]))[0] <= at for d in deltas), (at, deltas)
        assert len(set(deltas)) == len(deltas)
        assert list(objects.items()) == states[at][0], at
        mark = len(decodes.names)
        assert rec.events_until(at) == states[at][1] and decodes.since(mark) == ([], []), at
        used = [u for u in used if u != want] + [want]
        wanted.append(want)
    assert at == rec.start and len(set(wanted)) == len(wanted) == 8   # 07:00 ... 00:00: each another
    deltas = [n for n in decodes.names if ".delta." in n]
    assert len(deltas) == len(set(deltas))   # every interval decoded once, whatever the steps that needed it
    kept = [w for w in wanted if ".checkpoint." in w][-CHECKPOINTS_KEPT:]
    for step in range(CHECKPOINTS_KEPT + 1):
        at, mark = rec.step(at, "hour", 1), len(decodes.names)
        rec.snapshot_at(at)
        want = newest_full(at)
        assert decodes.since(mark)[0] == ([] if want in kept else [want]), (step, at)
    assert want not in kept   # the fifth step forward: its checkpoint had gone from those kept


def test_the_history_of_events_needs_neither_the_base_nor_every_checkpoint(tmp_path, monkeypatch):
    """Events at the newest moment: from the newest checkpoint and the intervals after it, the Events that
    expired before it (one of the base's among them) kept by the checkpoint. Checkpoints of a writer before
    they were kept (no ``expired``) give the same history from the base, without decoding every one."""
    out = tmp_path / "rec"
    churned(out)
    want = Recording(out, checkpoints=False).events_until(START + timedelta(hours=5))
    assert {"ev-0", "ev-1"} <= {e.name for e in want}   # the base's two, long expired
    decodes = Decodes(monkeypatch)
    rec = Recording(out)
    assert rec.events_until(rec.end) == want
    newest = max(rec.checkpoints)
    assert decodes.since(0)[0] == [f"{newest:08d}.checkpoint.json.gz"]
    for file in list_segments(out):
        if file.type == "checkpoint":
            doc = json.loads(gzip.decompress(file.path.read_bytes()))
            assert isinstance(doc.pop("expired"), list) and list(doc)[-1] == "objects"
            file.path.write_bytes(gzip.compress(json.dumps(doc, separators=(",", ":")).encode()))
    mark = len(decodes.names)
    older = Recording(out)
    assert older.events_until(older.end) == want
    assert decodes.since(mark)[0] == [f"{newest:08d}.checkpoint.json.gz", "00000000.base.json.gz"]
    same_states(out)


def test_conversions_are_kept_for_the_states_shown_last_only(tmp_path, monkeypatch):
    """Scrubbing a day would otherwise keep the model's conversion of every object of every state passed:
    the reader keeps those of the states built last (a step back to one of them converts nothing) and no
    more than they hold."""
    import karptui.recording.reader as reader

    out = tmp_path / "rec"
    churned(out, intervals=96, checkpoint_every=5)
    converted = []
    real = reader.convert
    monkeypatch.setattr(reader, "convert", lambda obj: converted.append(obj) or real(obj))
    rec = Recording(out)
    hours = [rec.end - timedelta(hours=h) for h in range(9)]
    held = []
    for at in hours:
        held.append({id(o) for o in rec.objects_at(at).values()})
        rec.snapshot_at(at)
        assert len(rec._built) <= len(set().union(*held[-reader.STATES_KEPT:])), at
    assert len(converted) > len(held[0])   # the states differ: each step converted something
    mark = len(converted)
    for at in hours[-reader.STATES_KEPT:]:
        rec.snapshot_at(at)
    assert len(converted) == mark


@pytest.mark.parametrize("expired", ["not a list", [["3", {}]], [[3]], [[3, "not an object"]]])
def test_a_checkpoint_whose_expired_events_are_not_what_they_should_be_still_gives_the_state(tmp_path, expired):
    """Hand-edited or from another tool: its state is used, and the Events come from the base."""
    out = tmp_path / "rec"
    churned(out, intervals=12)
    want = Recording(out, checkpoints=False)
    newest = max((f for f in list_segments(out) if f.type == "checkpoint"), key=lambda f: f.seq)
    doc = json.loads(gzip.decompress(newest.path.read_bytes()))
    doc["expired"] = expired
    newest.path.write_bytes(gzip.compress(json.dumps(doc).encode()))
    rec = Recording(out)
    assert list(rec.objects_at(rec.end).items()) == list(want.objects_at(rec.end).items())
    assert rec.events_until(rec.end) == want.events_until(rec.end)
    assert rec._full[newest.seq].expired is None


def test_a_long_scrub_keeps_a_bounded_number_of_intervals_and_the_same_states(tmp_path, monkeypatch):
    """Scrubbing a whole recording back and forth holds at most ``INTERVALS_KEPT`` intervals decoded
    (a day of them once held ~500 MiB), and every state and Event history is the one a reader that
    keeps every interval gives. An interval pushed out and needed again is decoded again: the bound
    is what is held, not what is read."""
    import karptui.recording.reader as reader

    out = tmp_path / "rec"
    churned(out, intervals=60, checkpoint_every=None)   # no checkpoints: every replay from the base
    keeping = Recording(out)
    hours = [keeping.end - timedelta(minutes=m) for m in range(0, 300, 25)]
    states = {at: (list(keeping.objects_at(at).items()), keeping.events_until(at)) for at in hours}
    assert len(keeping._decoded) == 60
    monkeypatch.setattr(reader, "INTERVALS_KEPT", 6)
    decodes = Decodes(monkeypatch)
    bounded = Recording(out)
    for at in [*hours, *reversed(hours), *hours]:
        assert list(bounded.objects_at(at).items()) == states[at][0], at
        assert bounded.events_until(at) == states[at][1], at
        assert len(bounded._decoded) <= 6
    deltas = [n for n in decodes.names if ".delta." in n]
    assert len(deltas) > len(set(deltas)) >= 60 - 12   # intervals read again after they were let go
