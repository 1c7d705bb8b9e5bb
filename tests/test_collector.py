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
