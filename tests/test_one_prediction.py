"""One prediction per pod (issue 26): for every pending pod of every bundled snapshot, the Pending strip,
the NodePool decision table, the pod drill-in and ``simulate --explain`` (its text and its JSON) give the
batch's answer — the NodeClaim Karpenter's provisioning simulation over all pending pods put the pod on:
its instance type, zone and NodePool (or that it stays pending, or the node it binds to).

The table also shows what each NodePool would do with the pod on a NodeClaim of its own, which may be
a smaller type (on ``topology-spread`` t3a.micro where the batch launches t3a.xlarge). That is allowed
only where the words say so ("this pod alone"): no surface may name a launch that is not the batch's
without saying whose it is.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

import pytest
from textual.widgets import Static

from karptui.catalog import catalog_from_snapshot_region, parse_catalog
from karptui.sim import simulate
from karptui.sources import bundled_snapshot, bundled_snapshots, load_snapshot
from karptui.views.details import pod_detail
from karptui.views.nodes import short_name
from karptui.views.pending import pending_detail, pending_rows

ALONE = "this pod alone"
TABLE = "nodepools, in the order Karpenter tries them"
ZONE = re.compile(r"\b[a-z]{2}(?:-[a-z]+)+-\d[a-z]\b")
WORD = re.compile(r"[A-Za-z0-9][A-Za-z0-9.-]*[A-Za-z0-9]")
ROW = re.compile(r"^\s*\d+\. (\S+) \(weight -?\d+\) — ")
# topology-spread with only t3.nano to launch: Karpenter leaves every host-spread pod pending
NANO = {"instanceTypes": [{"name": "t3.nano", "cpu": "2", "memory": "512Mi", "pods": "4",
                           "offerings": [{"zone": "ap-northeast-2a", "capacityType": "on-demand", "price": 0.0052}]}]}
CASES = [(name, None) for name in sorted(bundled_snapshots())] + [("topology-spread", "nano")]


@dataclass(frozen=True)
class Answer:
    """The batch's answer, read off the simulation's result (its attempt and NodeClaim plans), not off
    any surface's words."""

    kind: str                 # launch, node, pending
    node: str | None = None   # the NodeClaim, or the node it binds to
    nodepool: str = ""
    instance_type: str = ""
    zone: str = ""


def batch_answer(attempt, result) -> Answer:
    if attempt.node is None:
        return Answer("pending")
    if not attempt.new_node:
        return Answer("node", attempt.node)
    (claim,) = [c for c in result.nodeclaims if c.name == attempt.node]
    assert attempt.pod.key in claim.pods
    return Answer("launch", claim.name, claim.nodepool, claim.launch["instance_type"], claim.launch["zone"])


def named(text: str, types: set[str]) -> tuple[set[str], set[str]]:
    """The instance types and zones a line names."""
    words = set(WORD.findall(text))
    return words & types, set(ZONE.findall(text))


def assert_names_only_the_batch(lines: list[str], answer: Answer, types: set[str], where: str) -> None:
    """A line naming an instance type or zone names the batch's, or says it is the pod alone."""
    for line in lines:
        found_types, found_zones = named(line, types)
        if ALONE in line:
            continue
        if answer.kind == "launch":
            assert found_types <= {answer.instance_type}, f"{where}: {line!r} names another launch"
            assert found_zones <= {answer.zone}, f"{where}: {line!r} names another zone"
        else:
            assert not found_types, f"{where}: {line!r} names a launch, but the batch launches none"


def assert_says_the_answer(line: str, answer: Answer, where: str) -> None:
    """One line giving the batch's answer in full."""
    if answer.kind == "launch":
        for part in (answer.instance_type, answer.zone, answer.nodepool):
            assert part in line, f"{where}: {line!r} does not name {part}"
    elif answer.kind == "node":
        assert short_name(answer.node) in line, f"{where}: {line!r} does not name {answer.node}"
    else:
        assert "pending" in line.lower() or "Failed to schedule pod" in line, f"{where}: {line!r}"


def assert_table(lines: list[str], answer: Answer, types: set[str], where: str) -> None:
    """The NodePool table: the batch's NodePool row gives the batch's launch; every other launch it
    names says it is the pod alone's."""
    assert lines, f"{where}: no NodePool table"
    assert_names_only_the_batch(lines, answer, types, where)
    rows = {m.group(1): line for line in lines if (m := ROW.match(line))}
    if answer.kind == "launch":
        head = rows[answer.nodepool]
        assert answer.instance_type in head and answer.zone in head, f"{where}: {head!r}"
    for line in lines:
        if "would launch" in line or "could launch" in line:
            assert ALONE in line or (answer.kind == "launch" and answer.instance_type in line), f"{where}: {line!r}"


def cli_blocks(out: str) -> dict[str, list[str]]:
    """``simulate --explain``'s "why, pod by pod" part: each pod's lines, by pod."""
    if "why, pod by pod" not in out:
        return {}  # no pending pod
    block = out[out.index("why, pod by pod"):].splitlines()[1:]
    blocks: dict[str, list[str]] = {}
    current = None
    for line in block:
        if line and not line.startswith(" "):
            if "/" not in line or " " in line:
                current = None  # a line after the pods ("launch ...")
                continue
            current = blocks.setdefault(line, [])
        elif current is not None:
            current.append(line)
    return blocks


@pytest.mark.parametrize(("name", "catalog_name"), CASES)
def test_every_surface_gives_the_batchs_answer(name, catalog_name, cli, write, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")  # one line per printed line: the words are checked, not the wrapping
    snapshot = load_snapshot(bundled_snapshot(name))
    catalog = parse_catalog(NANO) if catalog_name else catalog_from_snapshot_region(snapshot)
    result = simulate(snapshot, catalog=catalog, explain=True)
    types = {t.name for t in catalog.types} | {c.launch["instance_type"] for c in result.nodeclaims if c.launch}
    extra = ("--instance-types", write("nano.json", NANO)) if catalog_name else ()
    code, out, err = cli("simulate", name, "--explain", *extra)
    assert code == 0, err
    text = cli_blocks(out)
    code, out, err = cli("simulate", name, "--explain", "-o", "json", *extra)
    assert code == 0, err
    docs = {p["pod"]: p for p in json.loads(out)["pods"]}
    rows = {r.key: r for r in pending_rows(snapshot)}
    attempts = {a.pod.key: a for a in result.attempts}

    for pod in snapshot.pending_pods:
        attempt = attempts.get(pod.key)
        if attempt is None:
            continue  # not simulated (another scheduler, being deleted): no answer anywhere
        answer = batch_answer(attempt, result)
        where = f"{name}{'/' + catalog_name if catalog_name else ''} {pod.key}"

        # the Pending strip (the view model the Pending pane shows)
        strip = pending_detail(rows[pod.key], attempt, snapshot, result.nodeclaims, catalog)
        assert_says_the_answer(strip.simulator, answer, f"{where} strip")
        assert_names_only_the_batch([strip.simulator, strip.disagreement, strip.nodepools], answer, types,
                                    f"{where} strip")

        # the drill-in: its "simulation" section opens with the answer; its NodePool table
        detail = pod_detail(pod, snapshot, attempt, [], catalog, result.nodeclaims)
        opening = detail["simulation"][0]
        assert_says_the_answer(opening, answer, f"{where} drill-in")
        assert_names_only_the_batch([opening], answer, types, f"{where} drill-in")
        if attempt.nodepools is not None:
            assert_table(detail[TABLE], answer, types, f"{where} drill-in table")

        # simulate --explain, as printed
        lines = text[pod.key]
        if snapshot.nodepools and attempt.scheduler_reason is not None:  # the pods left to Karpenter
            (karpenter,) = [line for line in lines if line.startswith("  Karpenter: ")]
            assert_says_the_answer(karpenter, answer, f"{where} --explain")
            assert_names_only_the_batch([karpenter], answer, types, f"{where} --explain")
        if attempt.nodepools is not None:
            start = lines.index("  NodePools, in the order Karpenter tries them:") + 1
            assert_table([line for line in lines[start:] if line.startswith("    ")], answer, types,
                         f"{where} --explain table")

        # simulate --explain -o json
        doc = docs[pod.key]
        assert doc["node"] == answer.node and doc["new_node"] == (answer.kind == "launch"), where
        if "karpenter" in doc["verdict"]:
            assert_says_the_answer(doc["verdict"]["karpenter"], answer, f"{where} json verdict")
            assert_names_only_the_batch([doc["verdict"]["karpenter"]], answer, types, f"{where} json verdict")
        if "nodepools" in doc:
            batch_rows = [r for r in doc["nodepools"] if r["batch"] is not None]
            if answer.kind == "launch":
                (row,) = batch_rows
                launch = row["batch"]["launch"]
                assert (row["nodepool"], row["batch"]["nodepool"], row["batch"]["nodeclaim"]) == \
                    (answer.nodepool, answer.nodepool, answer.node), where
                assert (launch["instance_type"], launch["zone"]) == (answer.instance_type, answer.zone), where
                assert row["batch"]["text"] == strip.simulator.split("; no node today")[0], \
                    f"{where}: the table's words are not the strip's"
            else:
                assert batch_rows == [], where
            for row in doc["nodepools"]:  # the pod alone's verdicts keep their fields
                assert {"nodepool", "weight", "verdict", "reason", "details", "launch"} <= set(row)


def test_the_cases_hold_pods_of_each_kind():
    """The parametrised runs above are not vacuous: launches and pods left pending are both checked."""
    kinds = set()
    for name, catalog_name in CASES:
        snapshot = load_snapshot(bundled_snapshot(name))
        catalog = parse_catalog(NANO) if catalog_name else catalog_from_snapshot_region(snapshot)
        result = simulate(snapshot, catalog=catalog, explain=True)
        kinds |= {batch_answer(a, result).kind for a in result.attempts}
    assert {"launch", "pending"} <= kinds


async def test_the_tui_strip_and_drill_in_name_the_batchs_launch():
    """As a user sees it on `karptui demo`: a host-spread pod whose pod-alone launch (t3a.micro) is not
    the batch's (t3a.xlarge) — the strip and the drill-in name the batch's; the table says which is which."""
    from karptui.tui.app import KarptuiApp
    from karptui.tui.screens.detail import DetailScreen
    from karptui.views.prediction import predict

    app = KarptuiApp(load_snapshot(bundled_snapshot("topology-spread")))
    async with app.run_test(size=(160, 45)) as pilot:
        await app.workers.wait_for_complete()
        await pilot.pause()
        await pilot.press("2", "j")
        await pilot.pause()
        key = app.screen.table().cursor_key.removeprefix("pod:")
        attempt = app.attempts[key]
        answer = batch_answer(attempt, app.result)
        alone = next(v.launch for v in attempt.nodepools if v.verdict == "launch")
        assert answer.kind == "launch" and alone.instance_type != answer.instance_type  # the case at issue
        strip = " ".join(str(app.screen.query_one("#pending-detail", Static).render()).split())
        words = predict(attempt, app.result.nodeclaims, app.catalog).launch_text
        assert f"simulator: {words}" in strip
        assert f"{answer.instance_type} on-demand in {answer.zone}" in strip and alone.instance_type not in strip
        assert "NodePools: 1. default chosen" in strip
        await pilot.press("enter")
        assert isinstance(app.screen, DetailScreen)
        shown = "\n".join(" ".join(str(s.render()).split()) for s in app.screen.query(Static))
        assert f"simulated: {words}" in shown
        assert f"1. default (weight 0) — chosen: {words}" in shown
        assert f"{ALONE}: would launch {alone.instance_type} in zone {alone.zone}" in shown
