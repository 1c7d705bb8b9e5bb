"""Inputs that made karptui work without bound (issue 29 item 17): each now stays within seconds
or is refused in one line.

No test here measures time: each feeds an input that takes minutes (or never ends) with the
old algorithm, and asserts the work done (calls counted) or the answer, under a generous
alarm (:func:`finishes`) that fails the test instead of hanging the suite.
"""

from __future__ import annotations

import json
import signal
from contextlib import contextmanager

import pytest

from karptui.model.cron import parse_cron

GENEROUS = 60  # seconds: minutes of work with the old algorithms, well under one now


class TookTooLong(Exception):
    pass


@contextmanager
def finishes(seconds: int = GENEROUS):
    """Fail (not hang) when the block runs past ``seconds``: a guard against the unbounded
    algorithm, never a measurement (the block's answer is what is asserted)."""
    def _alarm(signum, frame):
        raise TookTooLong(f"still running after {seconds} s: the work is unbounded again")
    previous = signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


def nodepool(name: str, budgets: list[dict]) -> dict:
    return {"apiVersion": "karpenter.sh/v1", "kind": "NodePool", "metadata": {"name": name},
            "spec": {"template": {"spec": {"nodeClassRef": {"group": "karpenter.k8s.aws", "kind": "EC2NodeClass",
                                                            "name": "default"}, "requirements": []}},
                     "disruption": {"consolidationPolicy": "WhenEmptyOrUnderutilized", "consolidateAfter": "0s",
                                    "budgets": budgets}}}


def dump(path, items: list[dict]):
    path.write_text(json.dumps({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


# ---------------------------------------------------------------- a long cron list

def test_a_cron_list_of_200000_entries_parses_in_one_pass(cli, tmp_path):
    """The parser formatted the whole schedule into a message for each entry: quadratic."""
    minutes = ",".join(str(i % 60) for i in range(200_000))
    with finishes():
        cron = parse_cron(f"{minutes} * * * *")
    assert cron.minutes == frozenset(range(60))
    path = dump(tmp_path / "cronlist.json",
                [nodepool("a", [{"nodes": "1", "schedule": f"{minutes} * * * *", "duration": "1h"}])])
    with finishes():
        code, out, err = cli("budgets", path, "--at", "2026-01-01T00:00:00Z", "-o", "json")
    assert code == 0, err
    assert json.loads(out)


def test_an_error_in_a_long_cron_list_is_one_short_line():
    from karptui.model.errors import ModelError
    with pytest.raises(ModelError) as caught:
        parse_cron(",".join(["1"] * 50_000) + ",99 * * * *")
    message = str(caught.value)
    assert "'99' is outside 0-59" in message and "(100,010 characters)" in message and len(message) < 200
