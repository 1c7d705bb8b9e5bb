"""``karptui check --fail-on``: thresholds that turn a change's review into an exit status.

A small grammar, one threshold per comma-separated item (the flag may repeat)::

    THRESHOLD := METRIC OP VALUE
    METRIC    := drift | pending | launches | cost
    OP        := >  | >=
    VALUE     := a whole number                       (drift, pending, launches)
               | [+|-][$]NUMBER ( % | /h | /mo )      (cost)

``drift>10``: more than 10 NodeClaims would drift; ``pending>0``: any pod would become
pending; ``launches>=5``: Karpenter would launch 5 NodeClaims or more (for pending pods and
as drift replacements); ``cost>+5%``, ``cost>+10/h``, ``cost>+$500/mo``: the hourly cost
would rise by more than 5%, $10 an hour, $500 a month. Headless: the CLI parses and asks
here, and turns a crossed threshold into exit status 3.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from .cost import HOURS_PER_MONTH

COUNTS = ("drift", "pending", "launches")
COST = "cost"
METRICS = (*COUNTS, COST)
UNITS = ("%", "/h", "/mo")
_GRAMMAR = re.compile(r"^\s*([a-z]+)\s*(>=|>)\s*(.+?)\s*$")
_COST = re.compile(r"^([+-]?)\s*\$?\s*(\d+(?:\.\d+)?|\.\d+)\s*(%|/h|/mo)$")
EXAMPLES = "drift>10, pending>0, launches>5, cost>+5%, cost>+10/h, cost>+500/mo"


@dataclass(frozen=True)
class Threshold:
    """One ``--fail-on`` item: ``metric op limit`` (``unit`` for cost: ``%``, ``/h`` or ``/mo``)."""

    text: str
    metric: str
    op: str
    limit: float
    unit: str = ""

    def value_of(self, measured: dict) -> float:
        """The measure this threshold compares: a count, or the cost change in its unit."""
        if self.metric != COST:
            return measured[self.metric]
        if self.unit == "%":
            return measured["cost_percent"]
        return measured["cost_per_hour"] * (HOURS_PER_MONTH if self.unit == "/mo" else 1)

    def crossed(self, value: float) -> bool:
        return value >= self.limit if self.op == ">=" else value > self.limit

    def to_dict(self, measured: dict) -> dict:
        value = self.value_of(measured)
        shown = None if math.isinf(value) else round(value, 4)
        return {"threshold": self.text, "metric": self.metric, "op": self.op, "limit": self.limit,
                "unit": self.unit or None, "value": shown, "crossed": self.crossed(value)}


def parse_thresholds(texts: list[str] | None) -> tuple[Threshold, ...]:
    """Every ``--fail-on`` flag's items; ``ValueError`` with a one-line reason for a bad one."""
    out = []
    for text in texts or ():
        for item in text.split(","):
            if item.strip():
                out.append(parse_threshold(item))
    return tuple(out)


def parse_threshold(item: str) -> Threshold:
    text = item.strip()
    match = _GRAMMAR.match(text)
    if match is None:
        raise ValueError(f"{text!r} is not METRIC>VALUE (e.g. {EXAMPLES})")
    metric, op, value = match.groups()
    if metric not in METRICS:
        raise ValueError(f"{text!r}: unknown measure {metric!r} (one of {', '.join(METRICS)})")
    if metric == COST:
        found = _COST.match(value)
        if found is None:
            raise ValueError(f"{text!r}: a cost threshold is a change with its unit: +5%, +10/h, +500/mo")
        sign, number, unit = found.groups()
        return Threshold(text, metric, op, float(number) * (-1 if sign == "-" else 1), unit)
    if not value.isdigit():
        raise ValueError(f"{text!r}: {metric} takes a whole number of {_WHAT[metric]}, got {value!r}")
    return Threshold(text, metric, op, int(value))


_WHAT = {"drift": "NodeClaims", "pending": "pods", "launches": "NodeClaims"}
