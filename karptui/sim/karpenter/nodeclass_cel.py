"""EC2NodeClass kubelet CEL expressions (v1.15, ``NodeClassCEL``): maxPods and reservations per instance type.

From v1.15 the AWS provider lets ``spec.kubelet.maxPods`` be a CEL expression and a ``kubeReserved`` /
``systemReserved`` value be one (aws#9326), evaluated for each instance type with the variables
``vcpus``, ``memory_mib``, ``default_enis``, ``ips_per_eni``, ``max_pods`` and ``instance_type`` and the
functions ``max`` / ``min`` over int and double (aws ``pkg/cel/environment.go`` on main). Only with the
AWS feature gate ``NodeClassCEL`` on (off by default); with it off the validation controller refuses
such an EC2NodeClass. What the provider does with the result (aws ``pkg/providers/instancetype/types.go``):

- ``maxPods`` becomes the type's pod capacity (``max_pods`` is then the type's default, ENI-based);
  a result outside [0, 2^31-1] is an error;
- a reservation's result is in the field's own unit: cpu millicores rounded up to 10m, memory MiB
  rounded up to 16Mi, ephemeral-storage GiB; it replaces the default kube-reserved for that resource
  (memory ``11 * maxPods + 255`` MiB, cpu 6% / 1% / 0.5% / 0.25% of the core ranges), or adds to
  system-reserved (none by default). ``max_pods`` there is the resolved maxPods.

karptui evaluates the expressions with a CEL library (common-expression-language), never by hand,
and changes the catalog's pods and allocatable by the difference from the defaults. The catalog
has no ENI figures, so an expression reading ``default_enis`` or ``ips_per_eni`` is not evaluated
(a note says so). karptui prices one catalog for every NodePool: the expressions apply when every
NodePool that can launch uses the same kubelet settings, else a note says they were not applied.
"""

from __future__ import annotations

import math
from dataclasses import replace

from ...model import labels as L
from ...model.resources import CPU, EPHEMERAL_STORAGE, MEMORY, PODS, Resources
from .versions import V1_15, karpenter_version

MIB, GIB = 2**20, 2**30
INT32_MAX = 2**31 - 1
UNKNOWN_HERE = ("default_enis", "ips_per_eni")   # not in karptui's catalogs


class ExpressionError(ValueError):
    """An expression that does not compile, does not evaluate, or gives no usable number."""


def _max(a, b):
    return a if a > b else b


def _min(a, b):
    return a if a < b else b


def evaluate(expression: str, variables: dict) -> int:
    """The expression's value for one instance type, as the provider takes it: an int, or a finite
    double truncated to an int."""
    import cel  # common-expression-language; loaded only for a snapshot that has expressions

    context = cel.Context()
    context.add_function("max", _max)
    context.add_function("min", _min)
    for name, value in variables.items():
        context.add_variable(name, value)
    try:
        result = cel.evaluate(expression, context)
    except Exception as exc:  # the library's parse, type and runtime errors alike
        text = " ".join(str(exc).split())
        raise ExpressionError(f"{expression!r}: {text[:200]}") from None
    if isinstance(result, bool) or not isinstance(result, (int, float)):
        raise ExpressionError(f"{expression!r}: must return int or double, returned {type(result).__name__}")
    if isinstance(result, float):
        if math.isinf(result) or math.isnan(result):
            raise ExpressionError(f"{expression!r}: returned a non-finite value")
        result = int(result)
    return result


def default_kube_reserved(cpu_millis: int, pods: int) -> Resources:
    """The AWS provider's kube-reserved when the EC2NodeClass sets none (memory, cpu)."""
    cpu = 0
    for start, end, share in ((0, 1000, 0.06), (1000, 2000, 0.01), (2000, 4000, 0.005), (4000, 1 << 31, 0.0025)):
        if cpu_millis >= start:
            cpu += int((min(cpu_millis, end) - start) * share)
    return Resources({MEMORY: (11 * pods + 255) * MIB, CPU: cpu})


def _round_up(value: int, step: int) -> int:
    return value if value <= 0 or value % step == 0 else (value // step + 1) * step


def reserved_amount(resource: str, result: int) -> int:
    """An expression's result for a reservation, in karptui's units (millicores, bytes)."""
    if resource == CPU:
        return _round_up(result, 10)
    if resource == MEMORY:
        return _round_up(result, 16) * MIB
    if resource == EPHEMERAL_STORAGE:
        return result * GIB
    return result


def variables(itype, max_pods: int) -> dict:
    cpu = itype.labels.get("karpenter.k8s.aws/instance-cpu")
    memory = itype.labels.get("karpenter.k8s.aws/instance-memory")
    return {"vcpus": int(cpu) if cpu and cpu.isdigit() else itype.capacity.get(CPU, 0) // 1000,
            "memory_mib": int(memory) if memory and memory.isdigit() else itype.capacity.get(MEMORY, 0) // MIB,
            "max_pods": max_pods, "instance_type": itype.name}


def _resolve_type(itype, kubelet):
    """The type with the expressions applied; ExpressionError if one cannot be."""
    default_pods = itype.allocatable.get(PODS, 0)
    pods = default_pods
    if kubelet.max_pods_expression:
        pods = evaluate(kubelet.max_pods_expression, variables(itype, default_pods))
        if not 0 <= pods <= INT32_MAX:
            raise ExpressionError(f"maxPods {kubelet.max_pods_expression!r} gave {pods} for {itype.name}, "
                                  f"outside [0, {INT32_MAX}]")
    values = variables(itype, pods)
    before = default_kube_reserved(itype.capacity.get(CPU, 0), default_pods)
    after = default_kube_reserved(itype.capacity.get(CPU, 0), pods)
    delta: dict[str, int] = {k: before.get(k, 0) - after.get(k, 0) for k in (CPU, MEMORY)}
    for resource, expression in kubelet.kube_reserved_expressions.items():
        result = evaluate(expression, values)
        if result < 0:
            raise ExpressionError(f"kubeReserved.{resource} {expression!r} gave {result} for {itype.name}")
        delta[resource] = before.get(resource, 0) - reserved_amount(resource, result)
    for resource, expression in kubelet.system_reserved_expressions.items():
        result = evaluate(expression, values)
        if result < 0:
            raise ExpressionError(f"systemReserved.{resource} {expression!r} gave {result} for {itype.name}")
        delta[resource] = delta.get(resource, 0) - reserved_amount(resource, result)
    allocatable = dict(itype.allocatable)
    for resource, change in delta.items():
        if resource in allocatable and change:
            allocatable[resource] = max(0, allocatable[resource] + change)
    capacity = dict(itype.capacity)
    if kubelet.max_pods_expression:
        allocatable[PODS] = capacity[PODS] = pods
    return replace(itype, allocatable=Resources(allocatable), capacity=Resources(capacity))


def with_expressions(snapshot, catalog, pools, cel_gate: bool):
    """The catalog with the NodePools' EC2NodeClass kubelet expressions applied, and notes."""
    classes = {(c.kind, c.name): c for c in snapshot.nodeclasses}
    used = {}
    for pool in pools:
        ref = pool.node_class_ref
        found = classes.get((ref.kind, ref.name)) if ref is not None else None
        used[pool.name] = found
    with_cel = sorted({c.name for c in used.values() if c is not None and c.kubelet and c.kubelet.has_expressions})
    if not with_cel:
        return catalog, []
    names = ", ".join(with_cel)
    if karpenter_version(snapshot) < V1_15:
        return catalog, [f"EC2NodeClass {names}: kubelet CEL expressions are read from Karpenter v1.15 "
                         f"(NodeClassCEL); Karpenter {karpenter_version(snapshot)} has none, not applied"]
    if not cel_gate:
        return catalog, [f"EC2NodeClass {names}: kubelet CEL expressions need the AWS feature gate NodeClassCEL "
                         "(off: Karpenter refuses the EC2NodeClass, ValidationSucceeded=False), not applied"]
    configs: list = []
    for found in used.values():
        kubelet = found.kubelet if found is not None else None
        if kubelet not in configs:
            configs.append(kubelet)
    if len(configs) != 1:
        return catalog, [f"EC2NodeClass {names}: kubelet CEL expressions not applied: NodePools use different "
                         "kubelet settings, and karptui prices one catalog for every NodePool"]
    (kubelet,) = configs
    written = " ".join(filter(None, (kubelet.max_pods_expression, *kubelet.kube_reserved_expressions.values(),
                                     *kubelet.system_reserved_expressions.values())))
    if any(name in written for name in UNKNOWN_HERE):
        return catalog, [f"EC2NodeClass {names}: a kubelet CEL expression reads {' or '.join(UNKNOWN_HERE)}, "
                         "which karptui's catalog does not carry, not applied"]
    try:
        types = tuple(_resolve_type(t, kubelet) for t in catalog)
    except ExpressionError as exc:
        return catalog, [f"EC2NodeClass {names}: kubelet CEL expression not applied: {exc}"]
    return replace(catalog, types=types), [f"EC2NodeClass {names}: kubelet CEL expressions applied per instance type "
                                           "(NodeClassCEL)"]
