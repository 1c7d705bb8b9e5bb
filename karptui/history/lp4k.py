"""The CSV: one row per NodeClaim, first the columns awslabs' LogParserForKarpenter (lp4k) writes, under
its own names and in its order, so its users can switch; then karptui's own. docs/history.md lists them
and where a value differs from lp4k's."""

from __future__ import annotations

import csv
from collections.abc import Iterable
from typing import TextIO

from ..text import visible
from .life import Life
from .times import seconds_between, stamp

LP4K_COLUMNS = (
    "nodeclaim", "createdtime", "nodepool", "instancetypes", "launchedtime", "providerid", "instancetype", "zone",
    "capacitytype", "registeredtime", "k8snodename", "initializedtime", "nodereadytime", "nodereadytimesec",
    "disruptiontime", "disruptionreason", "disruptiondecision", "disruptednodecount", "replacementnodecount",
    "disruptedpodcount", "annotationtime", "annotation", "tainttime", "taint", "interruptiontime",
    "interruptionkind", "deletedtime", "nodeterminationtime", "nodeterminationtimesec", "nodelifecycletime",
    "nodelifecycletimesec", "initialized", "deleted",
)
OWN_COLUMNS = ("end", "priceperhour", "pricediscounted", "launchtoreadysec", "disrupttogonesec", "replacedby",
               "replaces", "interruptionaction", "disruptioncommand", "lines")
COLUMNS = LP4K_COLUMNS + OWN_COLUMNS


def go_duration(seconds: float | None) -> str:
    """Seconds as Go prints a time.Duration (``1m18.591s``, ``0s``), the form lp4k's duration columns take."""
    if not seconds:
        return "0s"
    millis = round(seconds * 1000)
    hours, rest = divmod(millis, 3_600_000)
    minutes, rest = divmod(rest, 60_000)
    secs = f"{rest / 1000:.3f}".rstrip("0").rstrip(".") + "s"
    return (f"{hours}h" if hours else "") + (f"{minutes}m" if hours or minutes else "") + secs


def _sec(seconds: float | None) -> str:
    return f"{(seconds or 0.0):.1f}"


def _types(life: Life) -> str:
    names = list(life.requested_types)
    if life.requested_more:
        names.append(f"and{life.requested_more}others")
    return "|".join(names)


def row(life: Life) -> dict:
    d, i = life.disruption, life.interruption
    ready = life.created_to_ready
    deleted = life.nodeclaim_deleted or life.terminated   # lp4k: the "deleted nodeclaim" line
    terminating = seconds_between(life.annotated, deleted)
    lived = seconds_between(life.created, deleted)
    return {
        "nodeclaim": life.nodeclaim if life.named else "", "createdtime": stamp(life.created) or "", "nodepool": life.nodepool,
        "instancetypes": _types(life), "launchedtime": stamp(life.launched) or "", "providerid": life.provider_id.rpartition("/")[2],
        "instancetype": life.instance_type, "zone": life.zone, "capacitytype": life.capacity_type,
        "registeredtime": stamp(life.registered) or "", "k8snodename": life.node,
        "initializedtime": stamp(life.initialized) or "", "nodereadytime": go_duration(ready),
        "nodereadytimesec": _sec(ready),
        "disruptiontime": (stamp(d.time) or "") if d else "", "disruptionreason": d.method if d else "",
        "disruptiondecision": d.action if d else "",
        "disruptednodecount": str(len(d.others) + 1) if d else "",
        "replacementnodecount": str(len(d.replacements)) if d else "",
        "disruptedpodcount": str(d.pod_count) if d and d.pod_count is not None else "",
        "annotationtime": stamp(life.annotated) or "", "annotation": life.annotation,
        "tainttime": stamp(life.drained) or "", "taint": life.taint,
        "interruptiontime": (stamp(i.time) or "") if i else "", "interruptionkind": i.message_kind if i else "",
        "deletedtime": stamp(deleted) or "", "nodeterminationtime": go_duration(terminating),
        "nodeterminationtimesec": _sec(terminating), "nodelifecycletime": go_duration(lived),
        "nodelifecycletimesec": _sec(lived),
        "initialized": "true" if "initialized" in life.steps else "false",
        "deleted": "true" if "terminated" in life.steps else "false",
        "end": life.end_reason, "priceperhour": "" if life.price is None else f"{life.price:g}",
        "pricediscounted": "true" if life.price_discounted else "false",
        "launchtoreadysec": "" if life.launch_to_ready is None else _sec(life.launch_to_ready),
        "disrupttogonesec": "" if life.disrupt_to_gone is None else _sec(life.disrupt_to_gone),
        "replacedby": "|".join(life.replaced_by), "replaces": "|".join(life.replaces),
        "interruptionaction": i.action if i else "", "disruptioncommand": d.command_id if d else "",
        "lines": "|".join(life.lines),
    }


def write_csv(lives: Iterable[Life], out: TextIO) -> None:
    """Rows in order of creation, lp4k's order too. Cells are text from the log: quoted as CSV needs,
    never interpreted; on a terminal, control characters are shown as escapes (karptui.text), never sent."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(COLUMNS)
    shown = getattr(out, "isatty", lambda: False)()
    for life in lives:
        cells = row(life)
        # the row's values in the columns' order (csv.DictWriter's check of every row's keys cost a tenth)
        writer.writerow([visible(cells[key]) for key in COLUMNS] if shown else [cells[key] for key in COLUMNS])
