"""What ``karptui mcp``'s tools answer, as documents: each one the command line's own JSON for the same
question, from the same function (``snapshot info``, ``simulate``, ``budgets``), narrowed to what
was asked. Nothing here speaks MCP; :mod:`.server` does.

One cluster picture per server: the snapshot (or the live cluster, read once as ``snapshot save``
reads it) is loaded on the first call and every later call reuses it, with each simulation run
once: a client asking about ten pods pays for one ``simulate --explain``.

Bad input (an unknown pod, a bad what-if, a time that is not one) is an :class:`InputError`: one
line, as the command line says it, which the server returns as a tool error.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Mapping

from ..errors import InputError
from ..model import Snapshot

#: The longest ``namespace/name`` a pod or node name can be: a namespace is a DNS label (63), a
#: pod's and a node's name a DNS subdomain (253). Longer is not a name: refused before any lookup.
MAX_NAME = 63 + 1 + 253
#: How many names an "unknown pod/node" error offers as examples.
EXAMPLES = 10
#: The keys of ``simulate -o json`` that say how the run was made, kept in every narrowed answer.
RUN_KEYS = ("karpenter_version", "karpenter_settings", "feature_gates", "namespace", "notes", "warnings")


class Answers:
    """The tools' answers over one cluster picture, loaded by ``load`` on first use."""

    def __init__(self, load: Callable[[], Snapshot], *, gates, instance_types: str | None = None,
                 discounts: str | None = None, namespace: str | None = None) -> None:
        self._load = load
        self.gates = gates
        self.instance_types = instance_types
        self.discounts = discounts
        self.namespace = namespace
        self._lock = threading.RLock()
        self._snapshot: Snapshot | None = None
        self._catalogs: dict[bool, object] = {}
        self._runs: dict[tuple[bool, bool], dict] = {}
        self._observed: dict[str, object] | None = None
        self._timeline = None   # the snapshot's history (karptui history), read once

    # --- the one picture, and what is computed from it once ------------------------------------

    @property
    def snapshot(self) -> Snapshot:
        with self._lock:
            if self._snapshot is None:
                from ..sources.collector import settle_for_simulation

                self._snapshot = self._load()
                settle_for_simulation()  # the picture stays to the end of the server, as simulate's does
            return self._snapshot

    def catalog(self, discounted: bool = True):
        """``simulate``'s catalog (discounted as ``--discounts`` says), or ``budgets``' (list prices)."""
        with self._lock:
            if discounted not in self._catalogs:
                from ..catalog import snapshot_catalog
                from ..cli.simulate import simulation_catalog

                self._catalogs[discounted] = (
                    simulation_catalog(self.snapshot, self.instance_types, self.discounts) if discounted
                    else snapshot_catalog(self.snapshot, self.instance_types))
            return self._catalogs[discounted]

    def simulation(self, *, explain: bool, consolidate: bool) -> dict:
        """``simulate [--explain] [--consolidate] -o json``'s document, run once per server."""
        from ..cli.simulate import simulation_document

        with self._lock:
            key = (explain, consolidate)
            if key not in self._runs:
                self._runs[key], _ = simulation_document(
                    self.snapshot, self.catalog(), gates=self.gates, consolidate=consolidate, explain=explain,
                    edits_catalog=bool(self.instance_types), namespace=self.namespace)
            return self._runs[key]

    def _observed_rows(self) -> dict[str, object]:
        """Each pending pod's reasons as the cluster gave them (the Pending pane's rows)."""
        from ..views.pending import pending_rows

        with self._lock:
            if self._observed is None:
                self._observed = {row.key: row for row in pending_rows(self.snapshot)}
            return self._observed

    # --- the tools --------------------------------------------------------------------------------

    def summary(self) -> dict:
        """``snapshot info -o json``."""
        from ..views.info import snapshot_info

        return snapshot_info(self.snapshot)

    def pending(self, pod: str) -> dict:
        """One pending pod: its entry of ``simulate --explain -o json`` (kube-scheduler's FitError,
        the simulator's verdict, the NodePool table) and what the cluster said (the pod's
        PodScheduled condition or FailedScheduling event, and Karpenter's newest logged reason)."""
        key = self._pod_key(pod)
        snapshot = self.snapshot
        found = snapshot.pod_by_key.get(key)
        if found is None:
            raise InputError("pod", f"{key} not found in the snapshot{_examples(p.key for p in snapshot.pending_pods)}")
        if not found.is_pending:
            where = f"bound to node {found.node_name}" if found.node_name else f"phase {found.phase}"
            raise InputError("pod", f"{key} is not pending ({where})")
        doc = self.simulation(explain=True, consolidate=False)
        entry = next((p for p in doc["pods"] if p["pod"] == key), None)
        if entry is None:  # another scheduler's, being deleted, or outside -n: the run's notes say which
            why = "; ".join(doc.get("notes", ())) or f"outside namespace {self.namespace}"
            raise InputError("pod", f"{key} is pending but was not simulated ({why})")
        row = self._observed_rows().get(key)
        observed = {"kube_scheduler": getattr(row, "reason", "") or None,
                    "karpenter": getattr(row, "karpenter", "") or None,
                    "karpenter_time": getattr(row, "karpenter_time", "") or None}
        return {"pod": entry, "observed": observed, **_run_keys(doc)}

    def launches(self) -> dict:
        """``simulate -o json``'s NodeClaims (what Karpenter would launch) and its summary."""
        doc = self._karpenter(self.simulation(explain=False, consolidate=False))
        return {"nodeclaims": doc["nodeclaims"], "summary": doc["summary"], **_run_keys(doc)}

    def consolidation(self, node: str | None = None) -> dict:
        """``simulate --consolidate --explain -o json``'s disruption answers: every Karpenter node's
        verdicts, or one node's (the commands that take it, what blocks it)."""
        doc = self._karpenter(self.simulation(explain=True, consolidate=True))
        keys = ("disruptions", "blocked", "unconsolidatable", "consolidation_scores", "nodes")
        answer = {key: doc.get(key, []) for key in keys}
        if node is None:
            return {**answer, "summary": doc["summary"], **_run_keys(doc)}
        name = self._name(node, "node")
        if name not in self.snapshot.node_by_name:
            raise InputError("node", f"{name} not found in the snapshot"
                                     f"{_examples(n['node'] for n in answer['nodes'])}")
        mine = [n for n in answer["nodes"] if n["node"] == name]
        if not mine:
            raise InputError("node", f"{name} is not a Karpenter node (no NodePool of the snapshot owns it): "
                                     "Karpenter's disruption methods do not consider it")
        return {"disruptions": [d for d in answer["disruptions"] if name in d["nodes"]],
                "blocked": [b for b in answer["blocked"] if b["node"] == name],
                "unconsolidatable": [b for b in answer["unconsolidatable"] if b["node"] == name],
                "consolidation_scores": [s for s in answer["consolidation_scores"] if name in s["nodes"]],
                "nodes": mine, **_run_keys(doc)}

    def budgets(self, at: str | None = None, hours: int = 24, whatif: str | Mapping | None = None) -> dict:
        """``budgets -o json [--at TIME] [--hours N] [--whatif FILE]``."""
        from ..cli.budgets import budgets_answer, budgets_document, check_hours, parse_at

        with _named({"--at": "at", "--hours": "hours"}):
            hours = check_hours(hours)
            moment = parse_at(_bounded(at, "at", 64)) if at else None
        loaded = None if whatif is None else _loaded(whatif)
        with self._lock:
            view, warnings = budgets_answer(self.snapshot, self.catalog(discounted=False), at=moment, hours=hours,
                                            whatif=loaded, gates=self.gates)
        return budgets_document(view, warnings)

    def whatif(self, whatif: str | Mapping, *, consolidate: bool = False, explain: bool = False) -> dict:
        """``simulate --whatif FILE -o json``, the what-if given as its file's text or as the object
        itself (read as the same YAML, so the same caps and the same one-line errors apply)."""
        from ..cli.simulate import simulation_document

        loaded = _loaded(whatif)
        with self._lock:  # one simulation at a time: the picture is shared
            doc, _ = simulation_document(self.snapshot, self.catalog(), gates=self.gates, consolidate=consolidate,
                                         explain=explain, whatif=loaded, whatif_file="whatif",
                                         edits_catalog=bool(self.instance_types), namespace=self.namespace)
        return doc

    def node_history(self, node: str) -> dict:
        """``karptui history LOG --node X -o json`` on the log the snapshot carries (``--logs``, or the
        one ``snapshot save`` recorded) and its events: why that NodeClaim, node or instance went."""
        from ..history.snapshot import snapshot_timeline
        from ..history.why import answer

        name = self._name(node, "node")
        with self._lock:
            if self._timeline is None:
                from ..catalog.discounts import find_discounts

                self._timeline = snapshot_timeline(self.snapshot, self.catalog(discounted=False),
                                                   find_discounts(self.discounts))
            timeline = self._timeline
        life = timeline.life(name)
        if life is None:
            if not self.snapshot.meta.logs_text and not timeline.lives:
                raise InputError("node", "the snapshot carries no Karpenter log and its events name no NodeClaim: "
                                         "start the server with --logs FILE")
            raise InputError("node", f"no NodeClaim, node or instance named {name!r} in the snapshot's log and "
                                     f"events{_examples(life.nodeclaim for life in timeline.lives)}")
        return answer(life)

    # --- helpers ----------------------------------------------------------------------------------

    def _karpenter(self, doc: dict) -> dict:
        if "nodeclaims" not in doc:
            raise InputError(None, "the snapshot has no NodePools or Provisioners: Karpenter would do nothing")
        return doc

    def _pod_key(self, pod: str) -> str:
        """``namespace/name``; a bare name is in ``-n``'s namespace, else ``default``, as kubectl reads it."""
        name = self._name(pod, "pod")
        return name if "/" in name else f"{self.namespace or 'default'}/{name}"

    @staticmethod
    def _name(value: object, what: str) -> str:
        if not isinstance(value, str) or not value.strip():
            raise InputError(what, f"expected a {what} name{' (namespace/name)' if what == 'pod' else ''}")
        return _bounded(value.strip(), what, MAX_NAME)


def _loaded(whatif: str | Mapping):
    """A tool's ``whatif`` argument (the file's YAML or JSON text, or the object) as the WhatIf a
    file of that text loads to: the same caps, the same one-line errors, named ``whatif``."""
    from ..whatif.io import whatif_from_text

    if isinstance(whatif, Mapping):
        import json

        try:
            whatif = json.dumps(whatif)
        except (TypeError, ValueError, RecursionError) as exc:
            raise InputError("whatif", f"not a JSON object: {exc}") from None
    if not isinstance(whatif, str):
        raise InputError("whatif", "expected a what-if: its YAML or JSON text, or the object")
    return whatif_from_text(whatif, "whatif")


def _bounded(value: str, what: str, most: int) -> str:
    if len(value) > most:
        raise InputError(what, f"{len(value):,} characters, longer than any Kubernetes {what} name ({most})"
                         if what in ("pod", "node") else f"{len(value):,} characters, more than {most}")
    return value


def _examples(names) -> str:
    names = list(names)
    if not names:
        return ""
    shown = ", ".join(names[:EXAMPLES])
    return f" (e.g. {shown}{', ...' if len(names) > EXAMPLES else ''})"


def _run_keys(doc: dict) -> dict:
    return {key: doc[key] for key in RUN_KEYS if key in doc}


class _named:
    """Errors about a command-line option, said with the tool argument's name instead."""

    def __init__(self, names: dict[str, str]) -> None:
        self.names = names

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind, exc, tb) -> bool:
        if isinstance(exc, InputError) and exc.path in self.names:
            raise InputError(self.names[exc.path], exc.message) from None
        return False


__all__ = ["Answers", "MAX_NAME"]
