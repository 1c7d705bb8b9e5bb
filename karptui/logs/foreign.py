"""Lines another program wrote, told by their shape: they give no record, not even ``other``.

A paste often holds more than Karpenter's output: a controller built on Karpenter's core (the
gpu-provisioner of Azure's KAITO, the Azure provider) beside a controller of its own (KAITO's
workspace controller), in one code block. Karpenter's own lines, and its core's inside another
binary, keep the shapes its logger gives them; the other program's lines are told apart by what
Karpenter's logging never writes:

- **klog lines from a file that is not client-go's.** Karpenter itself never logs through klog
  (from v0.32 it even routes klog into its zap logger); the klog lines in its older output are
  client-go's own (leader election, client-side throttling, reflectors, warnings). A klog line
  from ``main.go:122`` or ``workspace_controller.go:132`` is the other controller's.
- **JSON whose level is under ``severity``** (knative's default encoder, with ``timestamp``):
  Karpenter's encoder names the level ``level`` in every era (its config-logging and, from v0.32,
  its built-in zap config: ``level``, ``time``, ``message``).
- **A console line whose own time has no fraction of a second** (``2024-04-23T15:15:17Z  INFO``,
  controller-runtime's RFC 3339 encoder): Karpenter's console encoder was ISO 8601 with
  milliseconds in every era that wrote console lines (``2022-03-04T13:14:47.767Z``).

Some lines come from a library both write: knative's ``fallback`` logger (``"ts": 1713885315.54``,
``"msg": "Starting informers..."``) is in Karpenter's v0.1x-v0.3x output and in any knative-based
controller's. Such a line right after another program's line is that program's; anywhere else it
is Karpenter's process's (``other``).

Sources: kubernetes-sigs/karpenter ``pkg/operator/logging/logging.go`` (v0.32, v1.x) and
``pkg/operator/operator.go`` (``klog.SetLogger``); aws/karpenter-provider-aws
``charts/karpenter/templates/*logging*.yaml`` (v0.5-v0.31 ``encoderConfig``).
"""

from __future__ import annotations

import json
import re

# Files of client-go, apimachinery and k8s.io/utils that write klog lines into the output of a
# process using them (Karpenter's before it routed klog into zap).
CLIENT_GO_FILES = frozenset({
    "leaderelection.go",     # tools/leaderelection: attempting to acquire / successfully acquired lease
    "request.go",            # rest: "Waited for ... due to client-side throttling"
    "reflector.go",          # tools/cache: watch ended, failed to list
    "shared_informer.go",    # tools/cache
    "warnings.go",           # rest: the API server's deprecation warnings
    "round_trippers.go",     # transport: request tracing
    "cert_rotation.go",      # transport
    "trace.go",              # k8s.io/utils/trace: slow calls
    "runtime.go",            # apimachinery util/runtime: HandleError, observed panics
})

# RFC 3339 with a "T" and whole seconds: "2024-04-23T15:15:17Z", "2024-04-23T15:15:17+02:00"
_WHOLE_SECOND = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:Z|[+-]\d\d:?\d\d)?$")


def foreign_klog(caller: str) -> bool:
    """Whether a klog line whose caller is ``caller`` (``file.go:123``) is another program's."""
    return caller.rpartition(":")[0].rpartition("/")[2] not in CLIENT_GO_FILES


def foreign_json(data: dict) -> bool:
    """Whether a JSON log record is another program's: its level under knative's ``severity`` key, or
    Go's ``log/slog`` JSON handler's record (keys opening ``time``, ``level``, ``msg``; the Azure SDK's
    request log in the Azure provider's output), which no zap encoder of Karpenter's writes: zap puts
    ``level`` first and names the text ``message`` (knative's and controller-runtime's ``msg`` come
    after ``level`` too)."""
    if "severity" in data and "level" not in data:
        return True
    return "msg" in data and "message" not in data and next(iter(data)) == "time"


def foreign_console_time(when: str) -> bool:
    """Whether a console line's own time (the column before its level) was written by another
    program's encoder: whole seconds, where Karpenter's writes milliseconds."""
    return bool(when) and _WHOLE_SECOND.match(when) is not None


# knative's fallback logger (controller-runtime's zap JSON: ``ts``, ``msg``): Karpenter's process writes
# these lines (knative injection's "Starting informers...") and so does any other knative-based controller
_SHARED = re.compile(r'"logger":\s*"fallback"')
_KLOG_HEAD = re.compile(r"\s*[IWEF]\d{4} \d\d:\d\d:\d\d\.\d+\s+\d+ ([^\]\s]+)\] ")
_CONSOLE_HEAD = re.compile(r"\s*(\S+)\s+(?:DEBUG|INFO|WARN|ERROR)\s")


def shared_library_line(text: str) -> bool:
    """Whether a line is of a shape Karpenter's process and other controllers both write (knative's
    fallback logger): whose it is, only the lines around it say."""
    return '"ts":' in text and _SHARED.search(text) is not None


def foreign_line(text: str) -> bool:
    """Whether a physical line is another program's by the rules above (read from its text alone)."""
    match = _KLOG_HEAD.match(text)
    if match:
        return foreign_klog(match.group(1))
    stripped = text.strip()
    if stripped.startswith("{") and '"severity"' in stripped:
        try:
            data = json.loads(stripped)
        except ValueError:
            return False
        return type(data) is dict and foreign_json(data)
    match = _CONSOLE_HEAD.match(text)
    return match is not None and foreign_console_time(match.group(1))
