"""An in-flight NodeClaim: a node Karpenter would launch, narrowed by every pod packed into it."""

from __future__ import annotations

from dataclasses import dataclass, field

from ...catalog import InstanceType
from ...model import Pod
from ...model import labels as L
from ...model.resources import Resources
from .requirements import Reqs
from .templates import Template, offering_ok, resources_text, type_compatible
from .topology import TopologyError, narrow

REFUSED = "refused"  # try_add's answer when the caller does not want the reason
PLUS_ONE_POD = Resources({"pods": 1})
MAX_INSTANCE_TYPES = 60  # Karpenter passes at most this many (cheapest first) to the cloud provider


@dataclass
class NewClaim:
    name: str
    template: Template
    reqs: Reqs
    types: tuple[InstanceType, ...]
    requests: Resources
    pods: list[Pod] = field(default_factory=list)
    _offered: dict | None = field(default=None, repr=False)
    _largest: dict = field(default_factory=dict, repr=False)  # resource -> most any remaining type offers

    def _room_for(self, pod: Pod) -> bool:
        """Whether the largest remaining instance type could still take the pod's requests."""
        for name, amount in pod.requests.items():
            if name != "pods" and amount > 0 and not self._fits(name, amount):
                return False
        return self._fits("pods", pod.requests.get("pods", 0) + 1)

    def _fits(self, name: str, amount: int) -> bool:
        largest = self._largest.get(name)
        if largest is None:
            largest = self._largest[name] = max((t.allocatable.get(name, 0) for t in self.types), default=0)
        return self.requests.get(name, 0) + amount <= largest

    def offered(self) -> dict[str, frozenset[str]]:
        """Zones (and capacity types) the remaining instance types can still be bought in."""
        if self._offered is None:
            zones, kinds = set(), set()
            for t in self.types:
                for o in t.offerings:
                    if offering_ok(o, self.reqs):
                        zones.add(o.zone)
                        kinds.add(o.capacity_type)
            self._offered = {L.ZONE: frozenset(zones), L.CAPACITY_TYPE: frozenset(kinds)}
        return self._offered

    def try_add(self, pod: Pod, wanted: Reqs, claims: list[NewClaim], state, why: bool = True) -> str | None:
        """Pack ``pod`` in, or return Karpenter's reason why it cannot go on this NodeClaim.

        With ``why`` False a refusal is just ``REFUSED``: the caller tries the next
        NodeClaim and never shows the reason, so it is not worth formatting.
        """
        if not why and not self._room_for(pod):
            return REFUSED  # not even its largest remaining type has room: skip the requirement work
        refusal = self.template.tolerates(pod)
        if refusal:
            return refusal
        error = self.reqs.compatible_error(wanted, why)
        if error:
            return error
        reqs = self.reqs.plus(wanted.values())
        try:
            reqs = narrow(pod, reqs, self.pods, [c for c in claims if c is not self], state, self.offered)
        except TopologyError as exc:
            return str(exc)
        requests = self.requests + pod.requests + PLUS_ONE_POD
        changed = [k for k in reqs if reqs[k] != self.reqs.get(k)]
        types = self.types
        if changed:
            types = tuple(t for t in types if type_compatible(t, reqs, changed))
        types = tuple(t for t in types if not requests.exceeding(t.allocatable))
        if not types:
            return (f"no instance type satisfied resources {resources_text(requests)} and requirements {reqs} "
                    f"(no instance type met the scheduling requirements or had enough resources)"
                    if why else REFUSED)
        for key, req in reqs.items():
            if req.min_values and len({t.labels.get(key, t.name if key == L.INSTANCE_TYPE else None)
                                       for t in types} - {None}) < req.min_values:
                return (f'minValues requirement is not met for "{key}", requirements={reqs}, '
                        f"resources={resources_text(requests)}" if why else REFUSED)
        self.reqs, self.types, self.requests = reqs, types, requests
        self._offered = None
        self._largest = {}
        self.pods.append(pod)
        return None
