"""The NodePool decision table of a pending pod, for people (the pod drill-in, ``simulate --explain``)
and as JSON (``pods[].nodepools[]``, docs/simulate-json.md).

The verdicts are the simulator's (karptui.sim.karpenter.nodepool_verdicts); this only words them: one
line per NodePool in the order Karpenter tries them, then what the verdict leaves out, indented (the
conflicting requirement, the limits in use, how many instance types each filter removed). A launch's
price is shown after the discount, if any, and marked as every cost figure is (karptui.views.cost).
"""

from __future__ import annotations

from collections.abc import Sequence

from .cost import launch_cost

NOTHING = "(Karpenter did not try this pod: no NodePool decision table)"
VERDICT_LABEL = {
    "launch": "first to fit", "also-fits": "fits, not first", "deleting": "being deleted", "static": "static",
    "not-ready": "not ready", "no-instance-types": "no instance types", "limits": "limits exhausted",
    "taints": "taint not tolerated", "requirements": "requirements conflict", "volumes": "volume zones",
    "topology": "topology", "instance-types": "no instance type fits", "min-values": "minValues not met",
}


def nodepool_lines(rows: Sequence[dict] | None) -> list[str]:
    """``1. gpu (weight 50) — taint not tolerated: did not tolerate taint (...)`` and its indented notes,
    from :func:`nodepools_json`'s rows (the CLI prints them from its JSON document, the drill-in from the
    attempt: the same words)."""
    if not rows:
        return [NOTHING]
    lines = []
    for i, row in enumerate(rows, 1):
        reason = row["reason"]
        if row.get("launch"):
            reason += f" at {row['price_text']}"
        label = VERDICT_LABEL.get(row["verdict"], row["verdict"])
        lines.append(f"{i}. {row['nodepool']} (weight {row['weight']}) — {label}: {reason}")
        lines += [f"     {detail}" for detail in row["details"]]
        if row.get("instance_types"):
            lines.append(f"     instance types: {funnel_text(row['instance_types'])}")
    return lines


def funnel_text(counts: dict) -> str:
    """``1362 in the catalog; nodepool requirements -1356, resources -6; 0 left`` (filters that removed
    none are left out)."""
    steps = ", ".join(f"{name} -{n}" for name, n in counts["removed"].items() if n)
    return f"{counts['catalog']} in the catalog; {steps or 'none removed'}; {counts['left']} left"


def nodepools_json(verdicts: Sequence, catalog=None) -> list[dict]:
    """``pods[].nodepools[]``: each verdict's fields; a launch gains ``price_after_discount`` when
    discounted, and ``price_text``, its price as shown (marked)."""
    out = []
    for v in verdicts:
        doc = v.to_dict()
        if v.launch is not None:
            cost = launch_cost(v.launch, catalog)
            if cost.discounted:
                doc["launch"]["price_after_discount"] = cost.hourly
            doc["price_text"] = cost.rate_text()
        out.append(doc)
    return out
