"""The garbage collector's settings around big pictures and long simulations (sources.collector)."""

import subprocess
import sys
import textwrap


def test_settling_for_a_simulation_keeps_the_picture_out_of_passes_and_still_frees_cycles():
    """Run in a child interpreter: the settings are process-wide."""
    script = textwrap.dedent("""
        import gc, weakref
        from karptui.sources.collector import YOUNG_THRESHOLD, settle_for_simulation

        class Node:
            pass

        picture = [Node() for _ in range(1000)]
        settle_for_simulation()
        assert gc.get_freeze_count() >= 1000, gc.get_freeze_count()
        assert gc.get_threshold()[0] >= YOUNG_THRESHOLD
        a, b = Node(), Node()
        a.other, b.other = b, a           # a cycle made during the simulation
        gone = weakref.ref(a)
        del a, b
        gc.collect()
        assert gone() is None             # the collector still frees it
        print("ok")
    """)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def _in_child(script: str) -> None:
    done = subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True,
                          check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_a_simulation_child_leaves_a_session_s_frozen_picture_frozen():
    """A session opened on a file keeps its picture out of the collector's passes for good; a Disruption
    pane's forked child ending must not give it back (the next full pass walked all of it in some key)."""
    _in_child("""
        import gc
        from karptui.sources.collector import settle_for_simulation
        from karptui.tui import forked
        if not forked.IN_CHILD_PROCESS:
            print("ok"); raise SystemExit
        picture = [[i] for i in range(5000)]
        settle_for_simulation()
        before = gc.get_freeze_count()
        told = []
        forked.run_forked(lambda tell: tell("done", len(picture)), lambda k, v: told.append((k, v)),
                          lambda: False, "test")
        assert told == [("done", 5000)], told
        assert gc.get_freeze_count() >= before >= 5000, (gc.get_freeze_count(), before)
        print("ok")
    """)


def test_a_simulation_child_freezes_a_live_session_s_objects_only_while_it_runs():
    """Nothing frozen before (a live session's snapshots come and go): frozen while a child shares the
    pages, unfrozen when the last child ends, so what the session drops later is collected."""
    _in_child("""
        import gc
        from karptui.tui import forked
        if not forked.IN_CHILD_PROCESS:
            print("ok"); raise SystemExit
        picture = [[i] for i in range(5000)]
        assert gc.get_freeze_count() == 0
        during = []
        forked.run_forked(lambda tell: tell("done", 1), lambda k, v: during.append(gc.get_freeze_count()),
                          lambda: False, "test")
        assert during and during[0] >= 5000, during
        assert gc.get_freeze_count() == 0, gc.get_freeze_count()
        print("ok")
    """)


def test_an_opened_snapshot_leaves_the_collector_s_passes_before_the_screen_is_imported():
    """``karptui open``: the screen's imports allocate enough to set off full collections, which walked a
    20,000-node picture still in the collector's sight (6.8 s of a launch); the picture is frozen first."""
    _in_child("""
        import gc, sys
        from pathlib import Path
        import karptui.cli.tui as tui
        from karptui.cli import main
        from karptui.sources import bundled_snapshot

        seen = []
        settle = tui.settle_for_simulation

        def settle_and_note():
            settle()
            seen.append(("textual.app" in sys.modules, gc.get_freeze_count()))

        tui.settle_for_simulation = settle_and_note
        tui.play = lambda app: 0
        assert main(["open", str(bundled_snapshot())]) == 0
        assert seen and seen[0][0] is False and seen[0][1] > 0, seen
        print("ok")
    """)


def test_a_kept_session_keeps_its_start_up_answer_out_of_the_collector_s_passes():
    """A session on a file froze its picture; the start-up simulation's answer and the rows built from it
    came later and cost a 92 ms middle-generation pass, then 306 ms full passes, in some key at 20,000
    nodes. Once shown, they are frozen too; a live session (nothing kept) freezes nothing."""
    _in_child("""
        import asyncio, gc
        from karptui.sources import bundled_snapshot, load_snapshot
        from karptui.sources.collector import settle_for_simulation
        from karptui.tui.app import KarptuiApp

        def in_passes(obj):
            return any(o is obj for o in gc.get_objects())

        async def answered(kept):
            snapshot = load_snapshot(bundled_snapshot())
            if kept:
                settle_for_simulation()
            app = KarptuiApp(snapshot)
            async with app.run_test(size=(120, 40)) as pilot:
                while app.result is None:
                    await pilot.pause(0.05)
                await pilot.pause()
                return app.result, app.attempts

        result, attempts = asyncio.run(answered(kept=False))
        assert in_passes(result) and in_passes(attempts)
        result, attempts = asyncio.run(answered(kept=True))
        assert not in_passes(result) and not in_passes(attempts)
        print("ok")
    """)
