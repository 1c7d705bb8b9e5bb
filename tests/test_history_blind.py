"""``karptui history`` against NodeClaim lives labelled blind: sets h to m of issue 30, whose labellers read
only the pasted lines and Karpenter's own templates, never karptui (tests/log_corpus/X-history.yaml).

Each labelled life is found in ``karptui history``'s JSON by its NodeClaim's or node's name, else by one of
its labelled lines, and checked: the steps the lines show, the launch's type, zone and capacity type, the
disruption's method, action and the command's size, and whether it went. The sentence of "why it went" is
not compared (it is the labeller's prose). Each life where karptui and the label disagree is listed below
with the reason, as a strict xfail: a fix makes it pass, and the list must then lose it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from karptui.history.builder import HistoryBuilder
from karptui.history.finish import finish
from karptui.history.read import feed_log

CORPUS = Path(__file__).parent / "log_corpus"

# (paste, the life's tag) -> why karptui's history does not give what the label says
KNOWN = {
    ("h-023.log", "render-gpu-pool-h4x9c"): "only DisruptionBlocked event rows name it: events note blocks on the lives "
                                            "the input otherwise shows, they make no life each (a snapshot's events "
                                            "name every node)",
    ("i-004.log", "standard-od-x4m9c"): "only a debug `marking drifted` line names it, which is not a step of a life",
    ("i-007.log", "i-0a7e2c91d4b35f806"): "only v0.5's emptiness TTL lines (added, then removed) name it; a TTL is not "
                                           "a step of a life",
    ("i-032.log", "budget-spot-pool-t4w9m"): "the poster redacted both the drifted node's and its replacement's names to "
                                              "the same `ip-172-xx-xx-xx.ec2.internal`, so the replacement takes the old "
                                              "node's deletion",
    ("i-035.log", "ip-10-0-17-58.ec2.internal"): "only Unconsolidatable event rows name it: events make no life each",
    ("k-018.log", "line 7"): "its describe rows end with DisruptionBlocked `Node is deleting or marked for deletion`, "
                             "which the label reads as gone; a block is not a step of a life, so it stays running",
    ("s-003.log", "qa-linux-batch-amd64-w7kpz"): "only a termination controller's Reconciler error names it (its "
                                                "finalizer not removed), which the label reads as a deletion under "
                                                "way; an error is not a step of a life",
    ("r-024.log", "line 13"): "the author's bare event messages after DisruptionTerminating: `Evicted pod: Underutilized` "
                              "(one pod's eviction, which the label reads as the drain) and `Instance is terminating` "
                              "(the AWS interruption controller's InstanceTerminating, read as an interruption, which "
                              "the label reads as the termination)",
    ("u-022.log", "line 5"): "v0.4's Allocation `Reconciler error` with its error's opening cut out by the author "
                             "(`......`): what is left of the error (`getting launch template configs, ...`) is on "
                             "the line after the elision, and the line alone says no launch",
    ("v-031.log", "worker-qa-h7rvk"): "only Evicted event rows name it, in a development build's message (`Evicted "
                                      "pod: node NODECLAIM/NODE drifted`) no release wrote; an eviction is one pod's "
                                      "step, not the node's drain",
    ("z-007.log", "ip-10-138-97-214.eu-west-1.compute.internal"): "only a termination controller's Reconciler "
                                                                  "error names it (its instance not terminated), "
                                                                  "as s-003's: an error is not a step of a life",
    ("z-028.log", "unnamed"): "only a DisruptionBlocked row of a describe table pasted without its object names "
                              "it: event rows note blocks on the lives the input otherwise shows, they make no life "
                              "each (as h-023's)",
}


def _lives() -> list:
    cases = []
    for path in sorted(CORPUS.glob("*-history.yaml")):
        for paste, labelled in (yaml.safe_load(path.read_text()) or {}).items():
            for life in labelled.get("nodeclaims") or ():
                lines = sorted(int(s["line"]) for s in (life.get("steps") or {}).values()
                               if isinstance(s, dict) and s.get("line"))
                tag = life.get("nodeclaim") or life.get("node") or (f"line {lines[0]}" if lines else "unnamed")
                marks = [pytest.mark.xfail(strict=True, reason=KNOWN[(paste, tag)])] if (paste, tag) in KNOWN else []
                cases.append(pytest.param(paste, life, id=f"{paste}:{tag}", marks=marks))
    return cases


_HISTORIES: dict[str, list[dict]] = {}


def _history(paste: str) -> list[dict]:
    """Every life of ``karptui history PASTE -o json``, as the command builds it."""
    if paste not in _HISTORIES:
        builder = HistoryBuilder()
        feed_log(builder, str(CORPUS / paste), "", [])
        _HISTORIES[paste] = [life.to_dict() for life in finish(builder).lives]
    return _HISTORIES[paste]


def test_every_blind_set_is_here():
    assert {p.name for p in CORPUS.glob("*-history.yaml")} >= {f"{s}-history.yaml" for s in "hijklm"}
    assert len(_lives()) >= 158   # 42 lives of h, 49 of i, 17 of j, 19 of k, 14 of l, 17 of m


@pytest.mark.parametrize("paste,label", _lives())
def test_a_blind_labelled_life(paste, label):
    lives = _history(paste)
    names = {label.get("nodeclaim"), label.get("node")} - {None}
    steps = label.get("steps") or {}
    lines = {str(s["line"]) for s in steps.values() if isinstance(s, dict) and s.get("line")}
    life = next((x for x in lives if names & {x["nodeclaim"], x["node"]}), None) or \
        next((x for x in lives if lines & set(x["lines"])), None)
    assert life is not None, f"no life for {names or lines}"
    wrong = []
    for step, said in steps.items():
        if step not in life["steps"]:
            wrong.append(f"step {step} missing (has {life['steps']})")
        if not isinstance(said, dict):
            continue
        if step == "launched":
            wrong += [f"{k} {life[k]!r} != {said[k]!r}" for k in ("instance_type", "zone", "capacity_type")
                      if said.get(k) and life[k] != said[k]]
        if step == "disrupted":
            took = life["disruption"] or {}
            wrong += [f"disruption {k} {took.get(k)!r} != {said[k]!r}" for k in ("method", "action")
                      if said.get(k) and (took.get(k) or "").lower() != said[k].lower()]
            if said.get("command_nodes") and took.get("node_count") != said["command_nodes"]:
                wrong.append(f"command of {took.get('node_count')} node(s), labelled {said['command_nodes']}")
    if "went" in label:
        went = life["end"] not in ("running", "launch_failed")
        if went != bool(label["went"]):
            wrong.append(f"end {life['end']!r}, labelled went={label['went']}")
    assert not wrong, "; ".join(wrong)
