"""The NodePool decision table of a pending pod, for people (the pod drill-in, ``simulate --explain``)
and as JSON (``pods[].nodepools[]``, docs/simulate-json.md).

The verdicts are the simulator's (karptui.sim.karpenter.nodepool_verdicts); this only words them: one
line per NodePool in the order Karpenter tries them, then what the verdict leaves out, indented (the
conflicting requirement, the limits in use, how many instance types each filter removed). A launch's
price is shown after the discount, if any, and marked as every cost figure is (karptui.views.cost).

Each verdict is the NodePool's for the pod on a NodeClaim of its own; the row of the NodePool the batch
launched the pod's NodeClaim from also carries the batch's launch (karptui.views.prediction), and the
table says which answer is which.
"""

from __future__ import annotations

from collections.abc import Sequence

from .cost import launch_cost
from .prediction import LAUNCH, Prediction

NOTHING = "(Karpenter did not try this pod: no NodePool decision table)"
VERDICT_LABEL = {
    "launch": "first to fit", "also-fits": "fits, not first", "deleting": "being deleted", "static": "static",
    "not-ready": "not ready", "no-instance-types": "no instance types", "limits": "limits exhausted",
    "taints": "taint not tolerated", "requirements": "requirements conflict", "volumes": "volume zones",
    "topology": "topology", "instance-types": "no instance type fits", "min-values": "minValues not met",
    "reservations": "reservation held",
}
CHOSEN = "chosen"               # the NodePool the batch launched the pod's NodeClaim from
ALONE = "this pod alone"        # what a verdict evaluated for the pod on a NodeClaim of its own says
FITTING = ("launch", "also-fits")


def row_label(verdict: str, nodepool: str, prediction: Prediction | None = None) -> str:
    """A row's verdict in two words, for the Pending strip's short list: ``chosen`` on the NodePool the
    batch launched the pod from; a launch the pod alone would get, on any other row, says so."""
    if prediction is not None and prediction.kind == LAUNCH and prediction.nodepool == nodepool:
        return CHOSEN
    label = VERDICT_LABEL.get(verdict, verdict)
    return f"{label} ({ALONE})" if verdict in FITTING else label


def nodepool_lines(rows: Sequence[dict] | None) -> list[str]:
    """``1. gpu (weight 50) — taint not tolerated: did not tolerate taint (...)`` and its indented notes,
    from :func:`nodepools_json`'s rows (the CLI prints them from its JSON document, the drill-in from the
    attempt: the same words).

    The verdicts are each NodePool's for the pod on a NodeClaim of its own; the batch packs the pending
    pods together and may launch a larger type. So the row of the NodePool the batch launched from
    (``batch``) gives the batch's launch in the Pending strip's words, and every launch the pod alone
    would get says ``this pod alone``: two answers on one screen must not read as one."""
    if not rows:
        return [NOTHING]
    lines = []
    for i, row in enumerate(rows, 1):
        alone = row["reason"]
        fitting = row["verdict"] in FITTING
        if row.get("launch"):
            alone += f" at {row['price_text']}"
        label = VERDICT_LABEL.get(row["verdict"], row["verdict"])
        head = f"{i}. {row['nodepool']} (weight {row['weight']}) — "
        batch = row.get("batch")
        if batch:
            lines.append(f"{head}{CHOSEN}: {batch['text']}")
            lines.append(f"     {ALONE}: {alone}" if fitting else
                         f"     {ALONE}, on a NodeClaim of its own: {label}: {alone}")
        elif fitting:
            lines.append(f"{head}{label}; {ALONE}: {alone}")
        else:
            lines.append(f"{head}{label}: {alone}")
        lines += [f"     {detail}" for detail in row["details"]]
        if row.get("instance_types"):
            counted = f"instance types, {ALONE}" if fitting else "instance types"
            lines.append(f"     {counted}: {funnel_text(row['instance_types'])}")
    return lines


def funnel_text(counts: dict) -> str:
    """``1362 in the catalog; nodepool requirements -1356, resources -6; 0 left`` (filters that removed
    none are left out)."""
    steps = ", ".join(f"{name} -{n}" for name, n in counts["removed"].items() if n)
    return f"{counts['catalog']} in the catalog; {steps or 'none removed'}; {counts['left']} left"


def nodepools_json(verdicts: Sequence, catalog=None, prediction: Prediction | None = None) -> list[dict]:
    """``pods[].nodepools[]``: each verdict's fields (the pod alone); a launch gains ``price_after_discount``
    when discounted, and ``price_text``, its price as shown (marked). ``batch``: the batch's launch
    (:meth:`Prediction.batch_json`) on the row of the NodePool it launched from, else None."""
    batch = prediction.batch_json(catalog) if prediction is not None else None
    out = []
    for v in verdicts:
        doc = v.to_dict()
        if v.launch is not None:
            cost = launch_cost(v.launch, catalog)
            if cost.discounted:
                doc["launch"]["price_after_discount"] = cost.hourly
            doc["price_text"] = cost.rate_text()
        doc["batch"] = batch if batch is not None and batch["nodepool"] == v.nodepool else None
        out.append(doc)
    return out
