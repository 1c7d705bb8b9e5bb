"""A change's review for CI (``karptui check``): what it drifts, when budgets let that happen,
what it leaves pending, launches and costs, and which ``--fail-on`` thresholds it crosses.

Nothing here simulates or serializes the simulation again: the review is assembled from the
documents ``simulate --whatif -o json`` and ``budgets --whatif -o json`` print (their one
builders, :func:`karptui.cli.simulate.simulation_document` and
:func:`karptui.cli.budgets.budgets_document`), so ``check`` says what they say. The review is
one JSON document (docs/check-json.md); :func:`check_sections` lays it out as titled tables,
which the terminal table and the pull-request markdown (:func:`check_markdown`) both draw.
Every string from the cluster reaches markdown through :func:`md`. Headless.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from ..text import visible
from .cost import HOURS_PER_MONTH, Cost, signed
from .thresholds import Threshold

DRIFTED = "Drifted"
EXIT_CROSSED = 3


def check_document(sim: dict, budgets: dict, *, change: dict, consolidated: bool,
                   thresholds: Sequence[Threshold] = (), later: Mapping[str, dict] | None = None) -> dict:
    """The review of one change (docs/check-json.md) from ``simulate``'s and ``budgets``' documents.

    ``later``: ``simulate``'s documents of the same change at the times budgets first let drift
    start (:func:`held_back_times`), keyed by that time: what replaces the NodeClaims a budget
    holds back now, once the window opens."""
    whatif = sim["whatif"]
    diff, drift = whatif["diff"], whatif.get("drift") or {"nodeclaims": []}
    replacements = _replacements(drift)
    provisioning = list(diff.get("nodeclaims", {}).get("added", []))
    cost = _cost(diff.get("hourly_cost"), drift, consolidated)
    # pods that would become pending: running ones the change leaves without a place, and the new
    # pods it makes (a scale, a new workload, a rollout's) that find none
    added = [p for p in diff.get("added", []) if p["after"] is None]
    pending = [*diff.get("newly_pending", []), *added]
    summary = {"drift": len(drift["nodeclaims"]), "pending": len(pending),
               "launches": len(provisioning) + len(replacements),
               "cost_per_hour": cost["change_per_hour"], "cost_per_month": cost["change_per_month"],
               "cost_percent": cost["change_percent"]}
    measured = {**summary, "cost_percent": cost["_percent"]}
    del cost["_percent"]
    judged = [t.to_dict(measured) for t in thresholds]
    doc = {
        "change": change,
        "consolidated": consolidated,
        "summary": summary,
        "cost": cost,
        "budgets": _budgets(budgets, drift, later or {}),
        "pending": [{"pod": p["pod"], "before": p["before"], "new": p in added, "reason": p["reason_after"]}
                    for p in pending],
        "launches": {"provisioning": provisioning, "replacements": replacements},
        "thresholds": judged,
        "crossed": [t["threshold"] for t in judged if t["crossed"]],
        "whatif": whatif,
    }
    warnings = list(dict.fromkeys([*sim.get("warnings", ()), *budgets.get("warnings", ())]))
    if warnings:
        doc["warnings"] = warnings
    doc["exit_status"] = EXIT_CROSSED if doc["crossed"] else 0
    return doc


def _replacements(drift: dict) -> list[dict]:
    """Every NodeClaim the commands taking drifted nodes launch, once per command."""
    seen, out = set(), []
    for item in drift["nodeclaims"]:
        d = item.get("disruption")
        if not d or d["command"] in seen:
            continue
        seen.add(d["command"])
        out += [{"command": d["command"], "method": d["method"], "replaces": _taken(drift, d["command"]), **r}
                for r in d["replacements"]]
    return out


def _taken(drift: dict, command: int) -> list[str]:
    return [i["node"] for i in drift["nodeclaims"] if (i.get("disruption") or {}).get("command") == command]


def _cost(hourly: dict | None, drift: dict, consolidated: bool) -> dict:
    """Before and after the change, and the change: the what-if's cost path (its last step), plus,
    when the run did not consolidate, what drift's own commands change (then outside that path)."""
    if not hourly:
        return {"before": None, "after": None, "drift_change": None, "change_per_hour": None,
                "change_per_month": None, "change_percent": None, "estimated": False, "_percent": 0.0}
    before, after = Cost.from_dict(hourly["cost_before"]), Cost.from_dict(hourly["cost_after"])
    drifted = drift.get("hourly_cost_change")
    extra = Cost.from_dict(drifted) if drifted and drift["nodeclaims"] and not consolidated else None
    change = round(after.hourly - before.hourly + (extra.hourly if extra else 0.0), 6)
    percent = (change / before.hourly * 100 if before.hourly else
               (math.inf if change > 0 else -math.inf if change < 0 else 0.0))
    return {"before": before.to_dict(), "after": after.to_dict(),
            "drift_change": extra.to_dict() if extra else None,
            "change_per_hour": round(change, 4), "change_per_month": round(change * HOURS_PER_MONTH, 2),
            "change_percent": None if math.isinf(percent) else round(percent, 2),
            "estimated": before.estimated or after.estimated or bool(extra and extra.estimated),
            "_percent": percent}


def held_back_times(doc: dict) -> list[str]:
    """The times, later than the review's, at which budgets first let drift take NodeClaims they
    hold back now: the caller simulates the change again at each (``check_document``'s ``later``)."""
    at = doc["budgets"]["at"]
    return sorted({w["drift_can_start"] for w in doc["budgets"]["windows"]
                   if w["held_back"] and w["drift_can_start"] and w["drift_can_start"] != at})


def _when_open(window: dict, later: Mapping[str, dict]) -> dict | None:
    """What drift does with the held-back NodeClaims once the window opens, from the simulation at
    that time: each one's command (or what still blocks it), the cluster otherwise as captured."""
    sim = later.get(window["drift_can_start"] or "")
    if not window["held_back"] or sim is None:
        return None
    items = {i["node"]: i for i in (sim["whatif"].get("drift") or {"nodeclaims": []})["nodeclaims"]}
    return {"at": window["drift_can_start"],
            "nodeclaims": [{"node": node, "disruption": (items.get(node) or {}).get("disruption"),
                            "blocked": (items.get(node) or {}).get("blocked")} for node in window["held_back"]]}


def _budgets(budgets: dict, drift: dict, later: Mapping[str, dict]) -> dict:
    """When the NodePools' budgets for reason Drifted let Karpenter take the drifted NodeClaims:
    now, at the first change that allows one, or not within the hours asked; and, where a budget
    holds some back, what drift does with them then."""
    drifting: dict[str, list[str]] = {}
    for item in drift["nodeclaims"]:
        if any(r["certain"] for r in item["reasons"]):
            drifting.setdefault(item["nodepool"], []).append(item["node"])
    pools = [p for p in budgets.get("nodepools", []) if p["name"] in drifting]
    # the order drift takes them: its commands' (empty NodeClaims first, then by when each drifted,
    # one NodeClaim a command, as Karpenter's drift method), the ones no command takes last
    order = {i["node"]: (i.get("disruption") or {}).get("command") or math.inf for i in drift["nodeclaims"]}
    windows = []
    for pool in pools:
        row = next(r for r in pool["reasons"] if r["reason"] == DRIFTED)
        allowed = row["allowed"]
        taken = sorted(drifting[pool["name"]], key=lambda node: (order.get(node, math.inf), node))
        start = budgets["at"] if allowed is None or allowed > 0 else next(
            (c["at"] for c in row["changes"] if c["allowed"] is None or c["allowed"] > 0), None)
        windows.append({"nodepool": pool["name"], "drifting": len(drifting[pool["name"]]), "allowed_now": allowed,
                        "held_back": [] if allowed is None else taken[allowed:], "binding_budgets": row["binding_budgets"],
                        "drift_can_start": start, "changes": row["changes"],
                        "budgets": [_budget_words(b) for b in pool["budgets"] if not b["reasons"]
                                    or DRIFTED in b["reasons"]]})
        windows[-1]["when_open"] = _when_open(windows[-1], later)
    return {"at": budgets.get("at"), "at_known": budgets.get("at_known"), "hours": budgets.get("hours"),
            "windows": windows, "nodepools": pools}


def _budget_words(budget: dict) -> str:
    """``nodes 0 at 0 9 * * 1-5 for 8h (Drifted)``: a budget as written."""
    when = f" at {budget['schedule']} for {budget['duration']}" if budget["schedule"] else ""
    reasons = f" ({', '.join(budget['reasons'])})" if budget["reasons"] else ""
    return f"nodes {budget['nodes']}{when}{reasons}"


# ---------------------------------------------------------------- layout


@dataclass(frozen=True)
class Section:
    """A titled table of the review: the same rows for the terminal and for markdown."""

    title: str
    headers: tuple[str, ...]
    rows: tuple[tuple[str, ...], ...]
    empty: str = ""
    note: str = ""   # said under the table: what its figures count


def _money(doc: dict | None) -> str:
    return Cost.from_dict(doc).text() if doc else "not priced"


def _change(doc: dict) -> str:
    """A change of cost: ``~-$0.110/h (~-$80/mo)``."""
    cost = Cost.from_dict(doc)
    mark = "~" if cost.estimated else ""
    return f"{mark}{signed(cost.hourly)}/h ({mark}{signed(cost.monthly, 0)}/mo)"


def change_words(doc: dict) -> str:
    """``+$0.012/h (+$9/mo, +3.1%)``, ``~`` first when a figure in it is estimated."""
    cost = doc["cost"]
    if cost["change_per_hour"] is None:
        return "not priced (no NodePools)"
    mark = "~" if cost["estimated"] else ""
    percent = cost["change_percent"]
    share = (f", {mark}{'+' if percent >= 0 else ''}{percent:.1f}%" if percent is not None
             else ", from $0" if cost["change_per_hour"] else "")
    return (f"{mark}{signed(cost['change_per_hour'])}/h ({mark}{signed(cost['change_per_month'], 0)}/mo{share})")


def summary_line(doc: dict) -> str:
    s = doc["summary"]
    return (f"{_count(s['drift'], 'NodeClaim')} would drift, {_count(s['pending'], 'pod')} would become pending, "
            f"{_count(s['launches'], 'NodeClaim')} launched, cost {change_words(doc)}")


def verdict_line(doc: dict) -> str:
    if doc["crossed"]:
        return "threshold crossed: " + ", ".join(doc["crossed"])
    return "no threshold crossed" if doc["thresholds"] else "no thresholds given (--fail-on)"


def _count(n: int, word: str) -> str:
    return f"{n} {word}{'' if n == 1 else 's'}"


def check_sections(doc: dict) -> list[Section]:
    drift = doc["whatif"].get("drift") or {"nodeclaims": []}
    claims = {i["node"]: i["nodeclaim"] for i in drift["nodeclaims"]}
    opens = {w["nodepool"]: w["drift_can_start"] for w in doc["budgets"]["windows"]
             if w["drift_can_start"] and w["drift_can_start"] != doc["budgets"]["at"]}
    then = {i["node"]: (w["when_open"]["at"], i) for w in doc["budgets"]["windows"] if w.get("when_open")
            for i in w["when_open"]["nodeclaims"]}
    sections = [Section("NodeClaims that would drift", ("NodeClaim", "node", "NodePool", "why", "then", "costs now"),
                        tuple(_drift_row(i, opens.get(i["nodepool"]), then.get(i["node"])) for i in drift["nodeclaims"]),
                        "none")]
    sections.append(Section(f"when budgets let drift happen (reason {DRIFTED}, from {doc['budgets']['at']}, "
                            f"next {doc['budgets']['hours']} h)",
                            ("NodePool", "drifting", "allowed now", "drift can start", "budgets"),
                            tuple(_window_row(w, doc["budgets"]["at"], claims) for w in doc["budgets"]["windows"]),
                            "nothing drifts"))
    sections.append(Section("pods that would become pending", ("pod", "was on", "reason"),
                            tuple((p["pod"], "(new pod)" if p["new"] else p["before"] or "", p["reason"] or "")
                                  for p in doc["pending"]),
                            "none"))
    launches = [("provisioning", words, "") for words in doc["launches"]["provisioning"]]
    launches += [(f"drift replacement (#{r['command']})",
                  f"{r['nodepool']}: {r['instance_type']} {r['capacity_type']} in {r['zone']}"
                  if r["instance_type"] else f"{r['nodepool']}: no offering fits",
                  r["price_text"]) for r in doc["launches"]["replacements"]]
    sections.append(Section("NodeClaims launched", ("for", "NodeClaim", "price"), tuple(launches), "none"))
    cost = doc["cost"]
    rows = [("before the change", _money(cost["before"])), ("after the change", _money(cost["after"]))]
    if cost["drift_change"]:
        rows.append(("drift's commands (not in after)", _change(cost["drift_change"])))
    rows.append(("change", change_words(doc)))
    then = (" and consolidated (--consolidate), drift's commands included." if doc["consolidated"] else
            ". Drift's commands, replacing the drifted NodeClaims, come after; their row is what they change.")
    sections.append(Section("cost", ("", "per hour (per month)"), tuple(rows), note=(
        f"Before and after: the nodes' prices once Karpenter has launched NodeClaims for the pending pods{then}")))
    if doc["thresholds"]:
        sections.append(Section("thresholds (--fail-on)", ("threshold", "value", "crossed"),
                                tuple((t["threshold"], _value(t), "yes" if t["crossed"] else "no")
                                      for t in doc["thresholds"])))
    return sections


def _command_words(d: dict) -> str:
    said = ", ".join(f"{r['instance_type']} {r['capacity_type']} in {r['zone']} ({r['nodepool']}) {r['price_text']}"
                     if r["instance_type"] else f"no offering fits ({r['nodepool']})" for r in d["replacements"])
    return f"#{d['command']} {d['action']}" + (f" by {said}" if said else "")


def _drift_row(item: dict, opens: str | None = None, later: tuple[str, dict] | None = None) -> tuple[str, ...]:
    """One drifting NodeClaim; ``opens``: when its NodePool's budgets first let drift start, if
    later than the review's time (a NodeClaim a budget holds is then said to wait for it);
    ``later``: that time and what drift does with it then (``when_open``)."""
    why = "; ".join(f"{'maybe ' if not r['certain'] else ''}{r['reason']}: {r['detail']}" for r in item["reasons"])
    d, blocked = item.get("disruption"), item.get("blocked")
    if d:
        then = _command_words(d)
    elif blocked:
        then = f"stays: {blocked['reason']}"
        if blocked.get("kind") == "budget" and later:
            at, step = later
            then += f" -- budgets let drift start at {at}: then " + (
                _command_words(step["disruption"]) if step["disruption"] else
                f"still stays: {step['blocked']['reason']}" if step["blocked"] else "no drift command takes it")
        elif blocked.get("kind") == "budget" and opens:
            then += f" -- budgets let drift start at {opens}"
    else:
        then = "not marked (depends on what AWS resolves)" if not any(r["certain"] for r in item["reasons"]) else ""
    cost = Cost.from_dict(item["hourly_cost"]).rate_text() if item.get("hourly_cost") else ""
    already = " (already drifted)" if item["already_drifted"] else ""
    return (item["nodeclaim"] + already, item["node"], item["nodepool"], why, then, cost)


def _window_row(w: dict, at: str, claims: dict[str, str]) -> tuple[str, ...]:
    allowed = "no limit" if w["allowed_now"] is None else str(w["allowed_now"])
    held = (f" (held back: {', '.join(claims.get(n, n) for n in w['held_back'])})" if len(w["held_back"]) <= 5
            else f" ({len(w['held_back'])} held back)")  if w["held_back"] else ""
    start = w["drift_can_start"] or "not within the hours shown"
    if start == at:
        start = f"now ({at})"
    return (w["nodepool"], str(w["drifting"]), allowed + held, start, "; ".join(w["budgets"]))


def _value(t: dict) -> str:
    if t["value"] is None:
        return "no cost before (any rise is infinite %)"
    unit = {"%": "%", "/h": "/h", "/mo": "/mo"}.get(t["unit"] or "", "")
    return f"{t['value']:g}{unit}"


# ---------------------------------------------------------------- markdown


_MD_SPECIAL = {"\\": "\\\\", "|": "\\|", "*": "\\*", "_": "\\_", "`": "\\`", "[": "\\[", "]": "\\]",
               "~": "\\~", "#": "\\#", "<": "&lt;", ">": "&gt;", "&": "&amp;", "@": "&#64;", "$": "\\$", "\t": " "}


def md(text: object) -> str:
    """Text from the cluster (or any input) as literal markdown: no emphasis, code, links, HTML,
    table cells broken by ``|`` or @-mentions; control characters written as escapes, one line."""
    return "".join(_MD_SPECIAL.get(ch, ch) for ch in visible(text))


def _md_table(headers: Iterable[str], rows: Iterable[Iterable[str]]) -> list[str]:
    heads = list(headers)
    out = ["| " + " | ".join(md(h) for h in heads) + " |", "|" + "---|" * len(heads)]
    out += ["| " + " | ".join(md(c) for c in row) + " |" for row in rows]
    return out


def check_markdown(doc: dict, title: str = "karptui check") -> str:
    """The review as a pull-request comment: a heading, the summary and verdict, the tables, notes."""
    lines = [f"### {md(title)}: {md(doc['change']['name'])}", "",
             f"**{md(summary_line(doc))}**", "", md(verdict_line(doc))]
    for section in check_sections(doc):
        lines += ["", f"#### {md(section.title)}", ""]
        lines += _md_table(section.headers, section.rows) if section.rows else [f"_{md(section.empty)}_"]
        if section.note:
            lines += ["", md(section.note)]
    notes = list(doc["change"].get("notes", [])) + list(doc["whatif"].get("notes", [])) + list(doc.get("warnings", []))
    if notes:
        lines += ["", "#### notes", ""] + [f"- {md(n)}" for n in notes]
    return "\n".join(lines) + "\n"
