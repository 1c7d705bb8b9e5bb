"""One Karpenter log line, whatever its era or wrapping, as plain fields.

kubectl may wrap a line twice: ``--prefix`` adds ``[pod/NAME/CONTAINER] ``
and ``--timestamps`` an RFC 3339 time and a space. Inside is either a JSON
object (v0.3x, v1.x) or a zap console line of the v0.2x era:
``TIME<TAB>LEVEL<TAB>LOGGER<TAB>MESSAGE<TAB>{json context}``.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

_PREFIX = re.compile(r"\[(pod/[^\]/]+/[^\]]+)\] ")
_KUBECTL_TIME = re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d) ")
# client-go's leader election writes klog lines into the controller's log:
# I0520 10:58:02.046318       1 leaderelection.go:248] attempting to acquire leader lease ...
_KLOG = re.compile(r"^([IWEF])(\d{4} \d\d:\d\d:\d\d\.\d+)\s+\d+ ([^\]\s]+)\] (.*)$")
_KLOG_LEVELS = {"I": "info", "W": "warn", "E": "error", "F": "error"}
_LEVELS = {"DEBUG": "debug", "INFO": "info", "WARN": "warn", "WARNING": "warn", "ERROR": "error",
           "DPANIC": "error", "PANIC": "error", "FATAL": "error"}


@dataclass(slots=True)
class Record:
    line: int
    time: str
    level: str
    logger: str
    message: str
    fields: dict = field(default_factory=dict)
    source: str = ""   # pod/NAME/CONTAINER when kubectl --prefix was used


def parse_record(number: int, text: str) -> Record | None:
    """The Karpenter log record on this line, or None if it is not one."""
    source = ""
    if text[0:1] == "{":  # the common case first: a bare JSON line
        return _json_record(number, text.rstrip("\r\n"), source, "")
    if text.startswith("[pod/"):
        match = _PREFIX.match(text)
        if match:
            source, text = match.group(1), text[match.end():]
    stamp = ""
    if text[:1].isdigit():
        space, tab = text.find(" "), text.find("\t")
        if 0 < space and (tab < 0 or space < tab):  # kubectl --timestamps: "TIME " before the line
            match = _KUBECTL_TIME.match(text)
            if match:
                stamp, text = match.group(0)[:-1], text[match.end():]
    text = text.rstrip("\r\n")
    if text.startswith("{"):
        return _json_record(number, text, source, stamp)
    return _console_record(number, text, source, stamp)


_DECODE = json.JSONDecoder().raw_decode


def _json_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    try:
        data, end = _DECODE(text)
    except ValueError:
        return None  # truncated or not JSON
    except RecursionError:
        return None
    if end != len(text) and text[end:].strip():
        return None  # trailing garbage: not one JSON object
    if not isinstance(data, dict):
        return None
    message, level = data.get("message"), data.get("level")
    if not isinstance(message, str) or not isinstance(level, str):
        return None
    when = data.get("time") or data.get("ts") or stamp
    return Record(number, when if isinstance(when, str) else stamp, _LEVELS.get(level.upper(), level.lower()),
                  str(data.get("logger", "")), message, data, source)


def _klog_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    match = _KLOG.match(text)
    if match is None:
        return None
    letter, when, logger, message = match.groups()
    return Record(number, stamp or when, _KLOG_LEVELS[letter], logger, message, {}, source)


def _console_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    if text[:1] in _KLOG_LEVELS and text[1:2].isdigit():
        return _klog_record(number, text, source, stamp)
    parts = text.split("\t", 4)
    if len(parts) < 4 or parts[1] not in _LEVELS:
        return None
    when, level, logger, message = parts[0], parts[1], parts[2], parts[3]
    if not when[:1].isdigit():
        return None
    context: dict = {}
    if len(parts) == 5:
        try:
            loaded = json.loads(parts[4])
            context = loaded if isinstance(loaded, dict) else {}
        except ValueError:
            message = f"{message}\t{parts[4]}"
    return Record(number, when or stamp, _LEVELS[level], logger, message, context, source)
