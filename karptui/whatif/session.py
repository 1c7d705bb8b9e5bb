"""One what-if session: the edits, the baseline simulation kept across runs, and runs that stop when cancelled.

``karptui simulate --whatif FILE`` and the TUI's what-if panel both run through a
:class:`WhatIfSession`, so the same file gives the same answer in both. The session is
headless (no textual): the panel calls :meth:`WhatIfSession.run` from a worker thread and
shows the :class:`RunResult` it returns.

Why it keeps a baseline: the unedited cluster simulates the same every run, so it is
simulated once (per consolidation setting) and each what-if starts from a copy of its
cluster state instead of accounting every bound pod again.

Why consolidation is opt-in: Karpenter's consolidation simulates taking away every node
of the cluster, one candidate at a time -- minutes on thousands of nodes, and most
what-ifs ask about scheduling. A run consolidates only when asked (``consolidate=True``),
and the baseline's consolidation is then kept like the rest of the baseline.

Why cancellation is a flag checked inside the work: a cancelled run must stop its CPU
work, not just stop being shown. The flag is read after every pod kube-scheduler or
Karpenter places and before every consolidation simulation, through the simulator's
progress callback, and between phases; once set the run unwinds with :class:`Cancelled`
and returns a ``cancelled`` result.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from ..errors import InputError
from ..model import Snapshot
from ..sim import SimResult, simulate
from ..sim.karpenter.disruption.drift import drift_preview, mark_drifted
from ..sim.scheduler_pass import SchedulerPass
from ..sim.state import ClusterState
from .apply import Applied, apply_whatif
from .controllers.deployment import Rollout
from .diff import WhatIfDiff, diff, launch_words, prepare_baseline
from .edits import WhatIf
from .stack import DEFAULT_NAME, EditStack

DONE, ERROR, CANCELLED = "done", "error", "cancelled"

Progress = Callable[[str, int, int], None]
"""``progress(phase, done, total)``: the phase says which run (``baseline, kube-scheduler``)."""

_SAME = object()


class Cancelled(Exception):
    """Raised inside a run once its cancel flag is set; :meth:`WhatIfSession.run` returns ``cancelled``."""


@dataclass(frozen=True)
class Baseline:
    """The unedited cluster's simulation, and its cluster before any placement (warmed with the
    counters the run used): each what-if starts from a copy instead of accounting every pod."""

    result: SimResult
    start: ClusterState
    consolidated: bool = False
    scheduler_pass: SchedulerPass | None = None   # kube-scheduler's pass as it ended (what adds-only edits go on from)


@dataclass(frozen=True)
class RolloutPeak:
    """A rollout's peak simulated: the NodeClaims Karpenter launches while old and new pods both
    hold room, how many of them the end state does not need, and the pods left pending then."""

    rollout: Rollout
    nodeclaims: tuple[str, ...]
    beyond_end: int
    pending: int

    def to_dict(self) -> dict:
        return {"nodeclaims": list(self.nodeclaims), "nodeclaims_beyond_end": self.beyond_end,
                "pending": self.pending}


@dataclass(frozen=True)
class RunResult:
    """What one run gave: ``status`` is ``done``, ``error`` (a bad edit, said in ``error``) or
    ``cancelled``; a done run has the applied edits, both simulations and their diff."""

    name: str
    status: str
    error: str = ""
    applied: Applied | None = None
    baseline: SimResult | None = None
    result: SimResult | None = None
    diff: WhatIfDiff | None = None
    consolidated: bool = False
    edits: int = 0
    drifting: tuple = ()   # the NodeClaims the edits drift (sim.karpenter.disruption.drift.Drifting)
    peaks: tuple[RolloutPeak, ...] = ()   # each rollout's peak, simulated

    def rollouts_json(self) -> list[dict]:
        """``whatif.rollouts`` (docs/simulate-json.md): each rollout's steps and its peak as simulated."""
        peaks = {id(p.rollout): p for p in self.peaks}
        out = []
        for rollout in self.applied.rollouts if self.applied else ():
            doc = rollout.to_dict()
            found = peaks.get(id(rollout))
            if found is not None:
                doc["peak"].update(found.to_dict())
            out.append(doc)
        return out

    @property
    def done(self) -> bool:
        return self.status == DONE


class WhatIfSession:
    """The edit stack, the kept baselines and the run, for one snapshot and instance catalog.

    ``catalog`` (None: kube-scheduler only) is what Karpenter launches from; ``edits_catalog``
    is what ``addNodes`` edits make nodes from (default: the same; None: the bundled one in the
    snapshot's region, as ``simulate --whatif`` without ``--instance-types``).
    """

    def __init__(self, snapshot: Snapshot, catalog: Any = None, *, edits_catalog: Any = _SAME,
                 spot_to_spot: bool = False, name: str = DEFAULT_NAME, gates: Any = None) -> None:
        self.snapshot, self.catalog = snapshot, catalog
        self.edits_catalog = catalog if edits_catalog is _SAME else edits_catalog
        self.spot_to_spot = spot_to_spot
        self.gates = gates  # Karpenter's feature gates (None: the controller Deployment's FEATURE_GATES, else the defaults); a featureGates edit overrides
        self.name = name
        self.stack = EditStack()
        self._baselines: dict[bool, Baseline] = {}

    @property
    def can_consolidate(self) -> bool:
        """Consolidation needs an instance catalog and NodePools (or Provisioners) to act for."""
        return self.catalog is not None and bool(self.snapshot.nodepools)

    def whatif(self) -> WhatIf:
        """The edits so far, as a what-if (what :meth:`run` runs by default, what the panel saves)."""
        return self.stack.as_whatif(self.name)

    def kept_baseline(self, consolidate: bool = False) -> Baseline | None:
        """The baseline already simulated for this consolidation setting, if any."""
        return self._baselines.get(consolidate and self.can_consolidate)

    def baseline(self, consolidate: bool = False, *, progress: Progress | None = None,
                 cancelled: Callable[[], bool] | None = None) -> Baseline:
        """The unedited cluster simulated, once per consolidation setting (raises :class:`Cancelled`)."""
        consolidate = consolidate and self.can_consolidate
        kept = self._baselines.get(consolidate)
        if kept is None:
            start = ClusterState(self.snapshot)
            used = start.copy()
            passes: list[SchedulerPass] = []
            result = simulate(self.snapshot, catalog=self.catalog, consolidate=consolidate,
                              spot_to_spot=self.spot_to_spot, gates=self.gates, state=used,
                              progress=_watched("baseline", progress, cancelled), keep_pass=passes.append)
            start.warm_like(used)
            for kept_pass in passes:   # Karpenter's indexes of the nodes, built after the pass ended
                kept_pass.state.warm_like(used)
            prepare_baseline(result)
            kept = self._baselines[consolidate] = Baseline(result, start, consolidate, passes[0] if passes else None)
        return kept

    def run(self, whatif: WhatIf | None = None, *, consolidate: bool = False, explain: bool = False,
            cancelled: Callable[[], bool] | None = None, progress: Progress | None = None) -> RunResult:
        """Apply ``whatif`` (default: the stack's edits), simulate it, compare it with the baseline.

        Blocking (the panel calls it from a thread). Never raises for a bad edit (the result
        says ``error``) nor for a cancel (``cancelled``).
        """
        whatif = whatif if whatif is not None else self.whatif()
        consolidate = consolidate and self.can_consolidate
        if progress is not None:  # a word at once: the first pod is placed only after the edits and the state
            progress(f"what-if, applying {len(whatif.edits)} edit(s)", 0, 0)
        try:
            applied, drifting = apply_drifting(self.snapshot, whatif, catalog=self.edits_catalog)
        except (InputError, ValueError) as exc:
            return RunResult(whatif.name, ERROR, str(exc), edits=len(whatif.edits))
        try:
            _check(cancelled)
            kept = self.baseline(consolidate, progress=progress, cancelled=cancelled)
            _check(cancelled)
            # an edit that only adds pods goes on from the baseline's kube-scheduler pass (the same
            # answer, see sim.scheduler_pass); any other starts from the baseline's cluster
            after = kept.scheduler_pass
            if after is not None and (explain or not after.holds_for(applied.snapshot)):
                after = None
            result = simulate(applied.snapshot, explain=explain, catalog=self.catalog, consolidate=consolidate,
                              spot_to_spot=self.spot_to_spot, gates=self.gates,
                              state=None if after is not None else kept.start.rebound(applied.snapshot),
                              progress=_watched("what-if", progress, cancelled), after=after)
            _check(cancelled)
            peaks = tuple(self._peak(r, kept, result, progress, cancelled) for r in applied.rollouts if r.peak)
        except Cancelled:
            return RunResult(whatif.name, CANCELLED, edits=len(whatif.edits))
        return RunResult(whatif.name, DONE, "", applied, kept.result, result, diff(kept.result, result),
                         consolidate, len(whatif.edits), drifting, peaks)

    def _peak(self, rollout: Rollout, kept: Baseline, end: SimResult, progress: Progress | None,
              cancelled: Callable[[], bool] | None) -> RolloutPeak:
        """The rollout's peak cluster scheduled and provisioned for (no consolidation: it lasts until
        the rollout moves on), against the end state's launches."""
        assert rollout.peak is not None
        result = simulate(rollout.peak, catalog=self.catalog, spot_to_spot=self.spot_to_spot, gates=self.gates,
                          state=kept.start.rebound(rollout.peak),
                          progress=_watched(f"{rollout.workload} peak", progress, cancelled))
        claims = tuple(launch_words(c) for c in result.nodeclaims)
        return RolloutPeak(rollout, claims, max(0, len(result.nodeclaims) - len(end.nodeclaims)), result.pending)


def apply_drifting(snapshot: Snapshot, whatif: WhatIf, *, catalog: Any = None) -> tuple[Applied, tuple]:
    """``whatif`` applied, with the NodeClaims its edits drift marked Drifted, and those NodeClaims.

    An edited NodePool or NodeClass drifts NodeClaims: Karpenter marks them Drifted, and its drift
    method replaces them, consolidating or not (drift is its own disruption method). The session's
    run and ``budgets --whatif`` (whose reason Drifted then counts them) both apply a what-if here.
    Raises :class:`InputError` for a bad edit, as :func:`apply_whatif`."""
    applied = apply_whatif(snapshot, whatif, catalog=catalog)
    drifting = tuple(drift_preview(snapshot, applied.snapshot))
    return replace(applied, snapshot=mark_drifted(applied.snapshot, list(drifting))), drifting


def _check(cancelled: Callable[[], bool] | None) -> None:
    if cancelled is not None and cancelled():
        raise Cancelled


def _watched(run: str, progress: Progress | None, cancelled: Callable[[], bool] | None) -> Progress | None:
    """The simulator's progress callback: checks the cancel flag, then passes the news on, named by run."""
    if progress is None and cancelled is None:
        return None

    def told(phase: str, done: int, total: int) -> None:
        if cancelled is not None and cancelled():
            raise Cancelled
        if progress is not None:
            progress(f"{run}, {phase}", done, total)

    return told
