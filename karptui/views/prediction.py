"""The batch's answer for one pending pod: what the simulation, scheduling every pending pod together as
kube-scheduler and then Karpenter's provisioner do, decided for it.

Karpenter's provisioner does not size a node for one pod: it packs the whole batch of pending pods
onto NodeClaims and launches the cheapest type that holds each NodeClaim's pods. So a pod's answer is
the NodeClaim it joined (its instance type, zone, capacity type and NodePool), the node it binds to, or
that it stays pending. The NodePool decision table asks a different question, each NodePool's verdict
for the pod on a NodeClaim of its own, which is why it can name a smaller type than the batch
launches. Several screens used to word the answer each on their own (the Pending strip, the verdict of
``simulate --explain``, the table), and on ``topology-spread`` one said t3a.xlarge where the other
said t3a.micro with nothing to tell them apart. Every surface now asks :func:`predict`, and words a
launch with :attr:`Prediction.launch_words` / :attr:`Prediction.launch_text`: one owner, one wording.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ..sim.result import Attempt, NodeClaimPlan
from .cost import launch_cost

# what the batch did with the pod
LAUNCH = "launch"          # Karpenter launches a NodeClaim with the pod on it
COMING_UP = "coming-up"    # Karpenter counts on a node (or NodeClaim) that is still coming up
FITS = "fits"              # kube-scheduler binds it to a node that exists
PENDING = "pending"        # it stays pending
SIMULATING = "simulating"  # no simulation yet


@dataclass(frozen=True)
class Prediction:
    """The batch's answer for one pod. ``node``: the node it binds to, the node coming up, or the
    NodeClaim it joins; ``nodepool``, ``launch`` (the offering as ``nodeclaims[].launch`` has it, None
    when no offering is left), ``pods`` (pods on the NodeClaim) and ``price_text`` (the price as every
    cost figure is shown: after discount, ``~`` when estimated) for a launch; ``reason``: why it stays
    pending (Karpenter's words when it tried, else kube-scheduler's)."""

    kind: str
    node: str | None = None
    nodepool: str | None = None
    launch: Mapping | None = None
    pods: int = 0
    price_text: str = ""
    reason: str = ""

    @property
    def instance_type(self) -> str | None:
        return (self.launch or {}).get("instance_type")

    @property
    def zone(self) -> str | None:
        return (self.launch or {}).get("zone")

    @property
    def capacity_type(self) -> str | None:
        return (self.launch or {}).get("capacity_type")

    @property
    def launch_words(self) -> str:
        """``t3a.xlarge on-demand in ap-northeast-2c, ~$0.1504/h``: the offering, as each surface says
        it (``no offering left`` when the NodeClaim has none)."""
        if not self.instance_type:
            return "no offering left"
        price = f", {self.price_text}" if self.price_text else ""
        return f"{self.instance_type} {self.capacity_type or ''} in {self.zone or '?'}{price}".replace("  ", " ")

    @property
    def launch_text(self) -> str:
        """``would launch t3a.xlarge on-demand in ap-northeast-2c, ~$0.1504/h (NodeClaim default-4mjh7,
        NodePool default; 2 pod(s) on it)``: the Pending strip's, the drill-in's and the NodePool table's
        words for the batch's launch. The pod count says why the type can be larger than the pod needs."""
        if self.kind != LAUNCH:
            return ""
        if self.nodepool is None:
            return f"Karpenter would launch a new node ({self.node})"
        on_it = f"; {self.pods} pod(s) on it"
        if not self.instance_type:
            return (f"would launch a node from NodePool {self.nodepool} (NodeClaim {self.node}; "
                    f"no offering priced{on_it})")
        return f"would launch {self.launch_words} (NodeClaim {self.node}, NodePool {self.nodepool}{on_it})"

    def batch_json(self, catalog=None) -> dict | None:
        """``pods[].nodepools[].batch`` on the NodePool row the batch launched from (docs/simulate-json.md):
        the NodeClaim, its offering (``price_after_discount`` added when discounted), the price and the
        words as shown."""
        if self.kind != LAUNCH or self.nodepool is None:
            return None
        launch = None
        if self.launch is not None:
            cost = launch_cost(self.launch, catalog)
            launch = {**self.launch, **({"price_after_discount": cost.hourly} if cost.discounted else {})}
        return {"nodeclaim": self.node, "nodepool": self.nodepool, "launch": launch, "price_text": self.price_text,
                "pods": self.pods, "text": self.launch_text}


def claims_by_name(nodeclaims: Iterable[NodeClaimPlan] | Mapping[str, NodeClaimPlan]) -> Mapping[str, NodeClaimPlan]:
    """The simulation's NodeClaim plans by name (a mapping is taken as it is)."""
    if isinstance(nodeclaims, Mapping):
        return nodeclaims
    return {c.name: c for c in nodeclaims}


def predict(attempt: Attempt | None, nodeclaims: Iterable[NodeClaimPlan] | Mapping[str, NodeClaimPlan] = (),
            catalog=None) -> Prediction:
    """The batch's answer for the pod of ``attempt``, read off the simulation's attempt and its NodeClaim
    plans (by name, or as the simulation returned them); ``catalog`` prices the launch (its discounts)."""
    if attempt is None:
        return Prediction(SIMULATING)
    if attempt.node is None:
        return Prediction(PENDING, reason=attempt.karpenter_reason or attempt.reason or "unschedulable")
    if not attempt.new_node:
        # a pod kube-scheduler left to Karpenter that Karpenter puts on a node: one still coming up
        return Prediction(COMING_UP if attempt.scheduler_reason is not None else FITS, node=attempt.node)
    claims = claims_by_name(nodeclaims)
    plan = claims.get(attempt.node) or next((c for c in claims.values() if attempt.pod.key in c.pods), None)
    if plan is None:
        return Prediction(LAUNCH, node=attempt.node)
    launch = plan.launch or None
    price = launch_cost(launch, catalog).rate_text() if launch and launch.get("price") is not None else ""
    return Prediction(LAUNCH, node=plan.name, nodepool=plan.nodepool, launch=launch, pods=len(plan.pods),
                      price_text=price)
