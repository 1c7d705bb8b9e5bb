"""The kinds karptui reads, where they live in the API, and which Karpenter versions a
cluster serves.

Built-in kinds are listed through the typed client (CoreV1Api.list_node, ...);
Karpenter's are custom resources whose versions differ by era (v1alpha5
Provisioner/Machine, v1beta1 and v1 NodePool/NodeClaim), so they are discovered.
"""

from __future__ import annotations

import functools
import json
import queue
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from kubernetes import client
from kubernetes.client.rest import ApiException

from .. import limits
from ..sources import fast_json
from ..sources.collector import collector_paused
from .connect import TIMEOUT
from .guard import ServerFault, bounded


@dataclass(frozen=True)
class Resource:
    group: str          # "" for the core group
    version: str
    plural: str
    kind: str
    namespaced: bool
    # list and watch only what this selects (``metadata.name=...``): one object of a kind with many
    field_selector: str = ""

    @property
    def api_version(self) -> str:
        return f"{self.group}/{self.version}" if self.group else self.version

    @property
    def name(self) -> str:
        """How notes and tests name it: ``pods``, ``nodepools.karpenter.sh``."""
        return f"{self.plural}.{self.group}" if self.group else self.plural

    def lister(self, api: client.ApiClient, namespace: str | None) -> Callable:
        """The client function that lists (and, with watch=True, watches) this kind; its
        ``what`` says so in messages ("listing pods")."""
        lister = functools.partial(self._lister(api, namespace))
        if self.field_selector:
            lister = functools.partial(lister, field_selector=self.field_selector)
        lister.what = f"listing {self.name}"  # type: ignore[attr-defined]
        return lister

    def _lister(self, api: client.ApiClient, namespace: str | None) -> Callable:
        if (self.group, self.version) in TYPED:
            cls, base = TYPED[(self.group, self.version)], self.plural_method
            typed = cls(api)
            if self.namespaced and namespace:
                return lambda **kw: getattr(typed, f"list_namespaced_{base}")(namespace, **kw)
            suffix = "_for_all_namespaces" if self.namespaced else ""
            return getattr(typed, f"list_{base}{suffix}")
        custom = client.CustomObjectsApi(api)
        if self.namespaced and namespace:
            return lambda **kw: custom.list_namespaced_custom_object(self.group, self.version, namespace,
                                                                     self.plural, **kw)
        if self.namespaced:
            return lambda **kw: custom.list_custom_object_for_all_namespaces(self.group, self.version,
                                                                            self.plural, **kw)
        return lambda **kw: custom.list_cluster_custom_object(self.group, self.version, self.plural, **kw)

    def read(self, api: client.ApiClient, namespace: str, name: str) -> dict:
        """One object as the API server has it now (a GET, bounded like a list page), for ``y``
        on kinds the model keeps no manifest of."""
        what = f"reading {self.kind} {namespace + '/' if namespace else ''}{name}"
        kwargs: dict[str, Any] = {"_preload_content": False, "_request_timeout": TIMEOUT}
        if (self.group, self.version) in TYPED:
            typed = TYPED[(self.group, self.version)](api)
            if self.namespaced:
                call = lambda: getattr(typed, f"read_namespaced_{self.plural_method}")(name, namespace, **kwargs)  # noqa: E731
            else:
                call = lambda: getattr(typed, f"read_{self.plural_method}")(name, **kwargs)  # noqa: E731
        else:
            custom = client.CustomObjectsApi(api)
            if self.namespaced:
                call = lambda: custom.get_namespaced_custom_object(self.group, self.version, namespace,  # noqa: E731
                                                                   self.plural, name, **kwargs)
            else:
                call = lambda: custom.get_cluster_custom_object(self.group, self.version, self.plural, name,  # noqa: E731
                                                                **kwargs)
        with bounded(what, limits.REQUEST_DEADLINE, limits.MAX_OBJECT_BYTES):
            body = call().data
        try:
            found = fast_json.loads(body)
        except ValueError:
            raise ServerFault(f"{what}: the API server answered with something that is not JSON text") from None
        if not isinstance(found, dict):
            raise ServerFault(f"{what}: the API server answered with JSON that is not an object")
        return self.typed(found)

    @property
    def plural_method(self) -> str:
        return SINGULAR.get(self.plural, self.plural.rstrip("s"))

    def typed(self, item: dict) -> dict:
        """``item`` with kind and apiVersion, which the API leaves off the items of a list."""
        item.setdefault("kind", self.kind)
        item.setdefault("apiVersion", self.api_version)
        return item


def list_pages(lister: Callable[..., Any], page: int, timeout, what: str | None = None) -> Iterator[dict]:
    """A paged list as raw JSON pages (``_preload_content=False``: no client models); the last
    page's ``metadata.resourceVersion`` is the list's. An expired continue token raises the
    client's ApiException 410. Each page has its own deadline and byte cap (guard.LimitExceeded),
    and is decoded once, from the bytes as they came (sources.fast_json)."""
    what = what or getattr(lister, "what", "listing")
    token: str | None = None
    while True:
        kwargs: dict[str, Any] = {"limit": page, "_preload_content": False, "_request_timeout": timeout}
        if token:
            kwargs["_continue"] = token
        with bounded(what, limits.REQUEST_DEADLINE, limits.MAX_LIST_PAGE_BYTES):
            body = lister(**kwargs).data
        try:
            with collector_paused():  # a page decodes into thousands of objects and no cycles
                listing = fast_json.loads(body)
        except ValueError:  # not JSON, or not UTF-8: a proxy's error page, say
            raise ServerFault(f"{what}: the API server answered with something that is not JSON text") from None
        if not isinstance(listing, dict):
            raise ServerFault(f"{what}: the API server answered with JSON that is not a list")
        yield listing
        token = (listing.get("metadata") or {}).get("continue")
        if not token:
            return


def read_ahead(pages: Iterator[dict], name: str = "list") -> Iterator[dict]:
    """``pages`` (:func:`list_pages`) with the next page requested while the caller builds this one.

    The API server's time to answer a page and the building of the one before overlap, instead of
    adding up: a helper thread reads (and decodes) one page ahead. The requests are the same list
    calls with the same continue tokens, deadlines and caps (list_pages' own, in the helper's
    thread); a page's error is raised here, where that page would have come. At most one page
    waits; when the caller stops early, the helper stops at its next page."""
    handoff: queue.Queue = queue.Queue(maxsize=1)
    stop = threading.Event()

    def hand(item: tuple) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=0.5)
                return True
            except queue.Full:
                continue
        return False

    def read() -> None:
        try:
            for page in pages:
                if not hand((page, None)):
                    return
            hand((_END, None))
        except BaseException as exc:  # noqa: BLE001 - handed to the caller, raised there
            hand((None, exc))

    threading.Thread(target=read, name=f"read-ahead-{name}", daemon=True).start()
    try:
        while True:
            page, exc = handoff.get()
            if exc is not None:
                raise exc
            if page is _END:
                return
            yield page
    finally:
        stop.set()


_END = object()


TYPED = {("", "v1"): client.CoreV1Api, ("apps", "v1"): client.AppsV1Api, ("batch", "v1"): client.BatchV1Api,
         ("policy", "v1"): client.PolicyV1Api,
         ("storage.k8s.io", "v1"): client.StorageV1Api, ("scheduling.k8s.io", "v1"): client.SchedulingV1Api,
         ("apiextensions.k8s.io", "v1"): client.ApiextensionsV1Api}
# the typed client's method names say the kind in snake case
SINGULAR = {"nodes": "node", "pods": "pod", "events": "event", "namespaces": "namespace",
            "persistentvolumes": "persistent_volume", "persistentvolumeclaims": "persistent_volume_claim",
            "podtemplates": "pod_template",
            "deployments": "deployment", "replicasets": "replica_set", "statefulsets": "stateful_set",
            "daemonsets": "daemon_set", "jobs": "job", "poddisruptionbudgets": "pod_disruption_budget",
            "storageclasses": "storage_class", "priorityclasses": "priority_class", "csinodes": "csi_node",
            "customresourcedefinitions": "custom_resource_definition"}

BUILTIN = (
    Resource("", "v1", "nodes", "Node", False),
    Resource("", "v1", "pods", "Pod", True),
    Resource("", "v1", "events", "Event", True),
    Resource("", "v1", "namespaces", "Namespace", False),
    Resource("", "v1", "persistentvolumes", "PersistentVolume", False),
    Resource("", "v1", "persistentvolumeclaims", "PersistentVolumeClaim", True),
    Resource("", "v1", "podtemplates", "PodTemplate", True),
    Resource("apps", "v1", "deployments", "Deployment", True),
    Resource("apps", "v1", "replicasets", "ReplicaSet", True),
    Resource("apps", "v1", "statefulsets", "StatefulSet", True),
    Resource("apps", "v1", "daemonsets", "DaemonSet", True),
    Resource("batch", "v1", "jobs", "Job", True),
    Resource("policy", "v1", "poddisruptionbudgets", "PodDisruptionBudget", True),
    Resource("storage.k8s.io", "v1", "storageclasses", "StorageClass", False),
    Resource("storage.k8s.io", "v1", "csinodes", "CSINode", False),
    Resource("scheduling.k8s.io", "v1", "priorityclasses", "PriorityClass", False),
)

#: Karpenter's NodePool CRD, and only it (a cluster may hold thousands of CRDs, each a large schema):
#: when no controller image is visible, its served versions and schema bound the Karpenter release
#: (karptui.sim.karpenter.versions). Karpenter's charts put no release label on their CRDs (only
#: controller-gen's own version, which patch releases of older lines bump too), so the schema is
#: what tells. The ClusterRole may grant this one name: a list with a ``metadata.name`` field selector
#: is authorized by ``resourceNames``.
NODEPOOL_CRD = "nodepools.karpenter.sh"
KARPENTER_CRD = Resource("apiextensions.k8s.io", "v1", "customresourcedefinitions", "CustomResourceDefinition", False,
                         field_selector=f"metadata.name={NODEPOOL_CRD}")

# Karpenter's kinds, by group; of the versions a cluster serves for a kind, the
# group's preferred one wins (the API lists it first).
KARPENTER_GROUPS = ("karpenter.sh", "karpenter.k8s.aws", "autoscaling.x-k8s.io")
KARPENTER_KINDS = {"NodePool", "Provisioner", "NodeClaim", "Machine", "NodeOverlay", "EC2NodeClass", "AWSNodeTemplate",
                   "CapacityBuffer"}


def _document(call: Callable[..., Any], what: str, *args: Any) -> dict:
    """A discovery document as plain JSON: the client's models refuse one without every field
    they know (a resource without ``singularName``, say), which aggregated APIs and older
    servers leave out. Only the fields used here are read."""
    with bounded(what, limits.REQUEST_DEADLINE, limits.MAX_OBJECT_BYTES):
        body = call(*args, _preload_content=False, _request_timeout=TIMEOUT).data
    try:
        doc = json.loads(body)
    except ValueError:
        raise ValueError(f"{what}: the API server answered with something that is not JSON text") from None
    return doc if isinstance(doc, dict) else {}


def _maps(value: Any) -> list[dict]:
    return [v for v in value if isinstance(v, dict)] if isinstance(value, list) else []


def discover(api: client.ApiClient) -> tuple[list[Resource], list[str]]:
    """Karpenter's kinds this cluster serves, and notes on what could not be found out."""
    notes: list[str] = []
    try:
        groups = _maps(_document(client.ApisApi(api).get_api_versions, "reading API groups (/apis)").get("groups"))
    except ApiException as exc:
        return [], [f"API discovery failed ({exc.status} {exc.reason}): Karpenter objects not shown"]
    except ValueError as exc:
        return [], [f"API discovery failed ({exc}): Karpenter objects not shown"]
    found: dict[str, Resource] = {}
    for group in groups:
        name = group.get("name")
        if name not in KARPENTER_GROUPS:
            continue
        versions = [v["version"] for v in _maps(group.get("versions")) if isinstance(v.get("version"), str)]
        preferred = (group.get("preferredVersion") or {}).get("version") \
            if isinstance(group.get("preferredVersion"), dict) else None
        for version in sorted(versions, key=lambda v: v != preferred):
            try:
                listing = _document(client.CustomObjectsApi(api).get_api_resources,
                                    f"reading API resources of {name}/{version}", name, version)
            except ApiException as exc:
                notes.append(f"{name}/{version}: discovery failed ({exc.status} {exc.reason})")
                continue
            except ValueError as exc:
                notes.append(f"{name}/{version}: discovery failed ({exc})")
                continue
            for res in _maps(listing.get("resources")):
                plural, kind = res.get("name"), res.get("kind")
                if kind in KARPENTER_KINDS and isinstance(plural, str) and plural and "/" not in plural \
                        and kind not in found:
                    found[kind] = Resource(name, version, plural, kind, res.get("namespaced") is True)
    if not any(k in found for k in ("NodePool", "Provisioner")):
        notes.append("no Karpenter NodePool or Provisioner API is served here (is Karpenter installed?)")
    return list(found.values()), notes
