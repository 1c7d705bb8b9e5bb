"""The Balanced consolidation policy (Karpenter v1.14 ``consolidationPolicy: Balanced``).

A Balanced NodePool consolidates only moves worth their disruption. A move's
score is its savings fraction (what it saves over what the NodePool's nodes
cost) divided by its disruption fraction (the candidates' disruption cost over
the NodePool's: every node counts 1 plus its non-DaemonSet pods' eviction
costs). It is approved when ``score >= 1/k``; Karpenter fixes ``k = 2``
(``BalancedK``), so a move must save at least half as large a share of the
pool's cost as the share of its disruption it causes. What a move saves is
Karpenter's estimate (:mod:`.savings`: a delete saves the whole node, a replace
the node's price less the cheapest counted offering of the replacement's first
instance type; which offerings count depends on the release). A move over
several NodePools is scored per Balanced pool, each given the share of the
savings its candidates' prices make up, and every Balanced pool must approve.
Other policies are not scored.

Single-node consolidation first asks whether a candidate's best case (deleting
it) could pass at all, and skips it otherwise (``CanPassThreshold``); then it
scores the move it found. Multi-node consolidation scores every prefix it tries.
Follows ``pkg/controllers/disruption/balanced.go``.

The policy came in v1.14.0 (kubernetes-sigs/karpenter#2962): before it the CRD's enum refuses
``Balanced``, and the older controllers' consolidation takes any policy other than
``WhenEmptyOrUnderutilized`` as non-empty consolidation disabled (``consolidation.go``'s
``ShouldDisrupt`` at v1.9.1) while emptiness still deletes empty nodes. :func:`policy_known`
says which: a NodePool with ``Balanced`` simulated as v1.9 consolidates only when empty, unscored,
and its nodes' verdicts say why.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from ....catalog.pricing import node_price
from ....model.nodepool import BALANCED
from .candidates import NODE_BASE_COST, Candidate, eviction_cost
from .command import DELETE, Command
from .savings import estimated_savings
from ..versions import V1_14, karpenter_version

BALANCED_K = 2


@dataclass(frozen=True, slots=True)
class Score:
    """One Balanced NodePool's verdict on one move (Karpenter's ScoreResult, with the sums it came from)."""

    nodes: tuple[str, ...]
    nodepool: str
    decision: str                   # delete or replace
    savings: float                  # $/h this pool's share of the move saves
    disruption_cost: float          # the move's candidates in this pool
    nodepool_cost: float            # $/h of all the pool's nodes
    nodepool_disruption_cost: float
    k: int = BALANCED_K

    @property
    def savings_fraction(self) -> float:
        return self.savings / self.nodepool_cost if self.nodepool_cost > 0 and self.nodepool_disruption_cost > 0 \
            else 0.0

    @property
    def disruption_fraction(self) -> float:
        return self.disruption_cost / self.nodepool_disruption_cost \
            if self.nodepool_cost > 0 and self.nodepool_disruption_cost > 0 else 0.0

    @property
    def score(self) -> float:
        if self.savings_fraction <= 0:
            return 0.0
        if self.disruption_fraction == 0:
            return math.inf
        return self.savings_fraction / self.disruption_fraction

    @property
    def threshold(self) -> float:
        return 1.0 / self.k

    @property
    def approved(self) -> bool:
        return self.score >= self.threshold

    def text(self) -> str:
        """``score 0.42 < threshold 0.50 (Balanced, k=2)``."""
        sign = ">=" if self.approved else "<"
        score = "inf" if math.isinf(self.score) else f"{self.score:.2f}"
        return f"score {score} {sign} threshold {self.threshold:.2f} (Balanced, k={self.k})"

    def to_dict(self) -> dict:
        return {"nodes": list(self.nodes), "nodepool": self.nodepool, "decision": self.decision,
                "score": None if math.isinf(self.score) else round(self.score, 6), "threshold": self.threshold,
                "k": self.k, "approved": self.approved, "savings_fraction": round(self.savings_fraction, 6),
                "disruption_fraction": round(self.disruption_fraction, 6), "savings_per_hour": round(self.savings, 6),
                "disruption_cost": round(self.disruption_cost, 6),
                "nodepool_cost_per_hour": round(self.nodepool_cost, 6),
                "nodepool_disruption_cost": round(self.nodepool_disruption_cost, 6), "text": self.text()}


def policy_known(snapshot) -> bool:
    """Whether the Karpenter simulated has the Balanced policy (from v1.14.0)."""
    return karpenter_version(snapshot) >= V1_14


def unknown_words(pool_name: str) -> str:
    """Why a Balanced NodePool consolidates only empty nodes in a Karpenter older than v1.14."""
    return (f'consolidationPolicy of NodePool "{pool_name}" is Balanced, which Karpenter before v1.14 does not have '
            "(the API server refuses such a NodePool; its consolidation reads any policy but "
            "WhenEmptyOrUnderutilized as non-empty consolidation disabled)")


def is_balanced(ctx, candidate: Candidate) -> bool:
    return candidate.pool.consolidation_policy == BALANCED and policy_known(ctx.snapshot)


def pool_totals(ctx, pool: str) -> tuple[float, float]:
    """The NodePool's hourly cost and disruption cost over all its nodes as the cluster now stands."""
    state = ctx.state
    cost = disruption = 0.0
    for i, node in enumerate(state.nodes):
        if state.excluded[i] or node.nodepool != pool:
            continue
        cost += node_price(node, ctx.catalog) or 0.0
        disruption += NODE_BASE_COST + sum(
            max(0.0, eviction_cost(p)) for p in state.pods[i]
            if not p.is_daemonset_pod and not p.is_terminal and p.deleted is None)
    return cost, disruption


def best_case(ctx, candidate: Candidate) -> Score | None:
    """Deleting the candidate, scored (``CanPassThreshold``); None for a pool that is not Balanced."""
    if not is_balanced(ctx, candidate):
        return None
    cost, disruption = pool_totals(ctx, candidate.pool.name)
    if cost <= 0:
        return None  # nothing to weigh savings against (unpriced nodes): Karpenter lets the move be tried
    return Score((candidate.name,), candidate.pool.name, DELETE, candidate.price, candidate.reschedule_cost,
                 cost, disruption)


def score_command(ctx, command: Command) -> list[Score]:
    """Each Balanced NodePool's score of the move (``EvaluateBalancedMove``)."""
    by_pool: dict[str, list[Candidate]] = {}
    for c in command.candidates:
        by_pool.setdefault(c.pool.name, []).append(c)
    source = sum(c.price for c in command.candidates)
    savings = estimated_savings(ctx.types, source, [(r.rows, r.reqs) for r in command.replacements],
                                karpenter_version(ctx.snapshot))
    out = []
    for pool, members in by_pool.items():
        if not is_balanced(ctx, members[0]):
            continue
        share = savings * (sum(c.price for c in members) / source) if source > 0 and len(by_pool) > 1 else savings
        cost, disruption = pool_totals(ctx, pool)
        out.append(Score(tuple(c.name for c in members), pool, command.decision, share,
                         sum(c.reschedule_cost for c in members), cost, disruption))
    return out
