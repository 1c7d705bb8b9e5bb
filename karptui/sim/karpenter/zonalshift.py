"""Zones under an ARC zonal shift, as a snapshot shows them: Karpenter launches nothing there.

With ``ENABLE_ZONAL_SHIFT`` (AWS provider, off by default, since v1.12) Karpenter asks ARC about
the EKS cluster's zonal shifts and reports every offering in a shifted zone unavailable, reserved
ones too (aws ``pkg/providers/instancetype/offering/base_resolver.go``, aws#9094). ARC's state is
no Kubernetes object, so a snapshot cannot hold it; what it can hold are the NodePool events the
provider emits from v1.14.0 (aws#9282, ``pkg/cloudprovider/events/events.go``):
``Warning ZonalShiftActive`` "Zonal shift detected: offerings in zone ZONE (ZONE-ID) are
unavailable for this NodePool" and ``Normal ZonalShiftCleared`` "... are restored ...". A zone
whose latest such event is ``ZonalShiftActive`` is taken as shifted for every NodePool (the
shift is the cluster's; each NodePool gets the event only for the zones it can use).

Events expire (the API server keeps them an hour by default), so a shift older than that no
longer shows, and one cleared after the capture still does: the notes name the event read.
"""

from __future__ import annotations

import re
from datetime import datetime, timezone

from .versions import V1_14, karpenter_version

ACTIVE, CLEARED = "ZonalShiftActive", "ZonalShiftCleared"
_ZONE = re.compile(r"offerings in zone (\S+) \(([^)]*)\)")
_EPOCH = datetime.min.replace(tzinfo=timezone.utc)


def shifted_zones(snapshot) -> dict[str, str]:
    """Zone -> the event that says it is shifted away from (for a note); empty before v1.14, whose
    provider emits no such event (and v1.9 has no zonal shift at all)."""
    if karpenter_version(snapshot) < V1_14:
        return {}
    latest: dict[str, tuple] = {}
    for event in snapshot.events:
        if event.involved_kind != "NodePool" or event.reason not in (ACTIVE, CLEARED):
            continue
        match = _ZONE.search(event.message)
        if match is None:
            continue
        when = event.last_seen or event.first_seen or _EPOCH
        zone = match.group(1)
        if zone not in latest or when >= latest[zone][0]:
            latest[zone] = (when, event)
    return {zone: f"event {ACTIVE} on NodePool {event.involved_name}"
            for zone, (_, event) in sorted(latest.items()) if event.reason == ACTIVE}
