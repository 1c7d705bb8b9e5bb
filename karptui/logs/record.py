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

from .classify import classify, known
from .foreign import foreign_console_time, foreign_json, foreign_klog
from .kube_events import (KARPENTER_SOURCES, cut_event_object, event_message, event_row, json_event,
                          otel_attributes)
from .paste import (ELIDED_CONTEXT, FRAGMENT, GO_TRACE, LEVELS, console, elided_opening, first_record, glued_context,
                    quoted_spans, salvage, split_context, unwrap)

# kubectl logs --prefix ("[pod/NAME/CONTAINER] ") and --timestamps ("TIME ", RFC 3339 with nanoseconds),
# either or both. A whole-second time is not kubectl's: the paste path reads it (another encoder's own time).
_KUBECTL_WRAP = re.compile(r"(?:\[(pod/[^\]/]+/[^\]]+)\] )?"
                           r"(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+(?:Z|[+-]\d\d:\d\d)) )?")
# client-go's leader election writes klog lines into the controller's log:
# I0520 10:58:02.046318       1 leaderelection.go:248] attempting to acquire leader lease ...
_KLOG = re.compile(r"^([IWEF])(\d{4} \d\d:\d\d:\d\d\.\d+)\s+\d+ ([^\]\s]+)\] (.*)$")
_KLOG_LEVELS = {"I": "info", "W": "warn", "E": "error", "F": "error"}
_LEVELS = {"DEBUG": "debug", "INFO": "info", "WARN": "warn", "WARNING": "warn", "ERROR": "error",
           "DPANIC": "error", "PANIC": "error", "FATAL": "error"}
_JSON_LEVELS = {**_LEVELS, **{v: v for v in _LEVELS.values()}}  # zap writes "INFO", controller-runtime "info"


@dataclass(slots=True)
class Record:
    line: int
    time: str
    level: str
    logger: str
    message: str
    fields: dict = field(default_factory=dict)
    source: str = ""   # pod/NAME/CONTAINER when kubectl --prefix was used
    preset: dict | None = None  # the event's fields when the line was a Kubernetes event, not a log line


def kubectl_wrap(text: str) -> tuple[str, str, str]:
    """(source, stamp, rest): what ``kubectl logs --prefix`` and ``--timestamps`` put in front
    of the line, each "" when absent, and the line itself."""
    match = _KUBECTL_WRAP.match(text)  # one regex for both: it fails at once on anything else
    end = match.end()
    if not end:
        return "", "", text
    source, stamp = match.groups()
    return source or "", stamp or "", text[end:]


def parse_record(number: int, text: str) -> Record | None:
    """The Karpenter log record on this line, or None if it is not one."""
    if text[0:1] == "{":  # the common case first: a bare JSON line
        found = _json_record(number, text.rstrip("\r\n"), "", "")
        return found if found is not None else _pasted(number, text)
    source, stamp, text = kubectl_wrap(text)
    return parse_body(number, text, source, stamp)


def parse_body(number: int, text: str, source: str, stamp: str) -> Record | None:
    """The record in what follows kubectl's wrappers (see :func:`kubectl_wrap`), or None."""
    text = text.rstrip("\r\n")
    found = _json_record(number, text, source, stamp) if text.startswith("{") else \
        _console_record(number, text, source, stamp)
    return found if found is not None else _pasted(number, text, source, stamp)


_DECODE = json.JSONDecoder().raw_decode
try:  # orjson decodes a Karpenter line in half the stdlib's time; the stdlib stays the judge of edge cases
    from orjson import JSONDecodeError as FastError
    from orjson import loads as fast_loads
except ImportError:  # pragma: no cover - a platform without an orjson wheel
    fast_loads, FastError = json.loads, ValueError


def json_object(text: str) -> dict | None:
    """The JSON object that is the whole of ``text`` (surrounding whitespace aside), or None."""
    try:
        data = fast_loads(text)
    except (FastError, ValueError, RecursionError):
        pass  # not one JSON document, or one orjson will not take (a 2^70 integer, NaN): ask the stdlib
    else:
        return data if type(data) is dict else None
    try:
        data, end = _DECODE(text)
    except (ValueError, RecursionError):
        return None  # truncated or not JSON
    if end != len(text) and text[end:].strip():
        return None  # trailing garbage: not one JSON object
    return data if type(data) is dict else None


def _json_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    data = json_object(text)
    return None if data is None else _from_json(number, data, source, stamp)


def zap_head(data: dict) -> tuple[str, str, str, str] | None:
    """(time, level, logger, message) of a zap JSON line -- the shape of nearly every line, so
    it is tried first and costs three lookups; None sends the line down the general path."""
    message, level, when = data.get("message"), data.get("level"), data.get("time")
    if type(message) is str and type(level) is str and type(when) is str:
        logger = data.get("logger", "")
        return (when, _JSON_LEVELS.get(level) or json_level(level), logger if type(logger) is str else str(logger),
                message)
    return None


def json_level(level: str) -> str:
    """zap writes ``INFO``, controller-runtime ``info``: every spelling as docs/logs-jsonl.md's lowercase word."""
    return _JSON_LEVELS.get(level) or _LEVELS.get(level.upper(), level.lower())


def _from_json(number: int, data: dict, source: str, stamp: str) -> Record | None:
    """zap's JSON (``level``/``time``/``message``) or controller-runtime's (``ts``/``msg``)."""
    head = zap_head(data)
    if head is not None:
        return Record(number, *head, data, source)
    message, level, when = data.get("message"), data.get("level"), data.get("time")
    inner = data.get("log")
    if isinstance(inner, str) and inner.startswith("{") and "message" not in data:
        # a log shipper's record (fluent-bit, Docker's json-file) with Karpenter's line inside
        return _json_record(number, inner.rstrip("\r\n"), source, stamp or str(data.get("time") or ""))
    if otel_attributes(data) is not None:   # an OpenTelemetry log record, of an Event
        return _event_record(number, json_event(data), source)
    if foreign_json(data):
        return None
    if not isinstance(message, str):
        message = data.get("msg")
    if message is None and isinstance(data.get("error"), str) and "controller" in data and isinstance(level, str):
        # an author's copy of a controller's error record that dropped its message: controller-runtime
        # logs a reconciler's returned error (with its controller's keys) as "Reconciler error"
        message = "Reconciler error"
    if not isinstance(message, str) or not isinstance(level, str):
        if "involvedObject" in data or "regarding" in data:
            return _event_record(number, json_event(data), source)
        if not isinstance(message, str):
            return None
        if not ("commit" in data or "controller" in data or "logger" in data):
            # an author's shortened copy, {"message": ..., and a few of its keys}: kept when the message is
            # one of Karpenter's templates, as a bare message is; any other program's JSON stays noise
            shortened = Record(number, str(data.get("time") or stamp), "", "", message, data, source)
            return shortened if known(classify(shortened)) else None
        level = ""  # a log store kept the message and dropped the level
    when = when or data.get("ts") or stamp
    if isinstance(when, (int, float)) and not isinstance(when, bool):
        when = _epoch(when)
    return Record(number, when if isinstance(when, str) else stamp, _LEVELS.get(level.upper(), level.lower()),
                  str(data.get("logger", "")), message, data, source)


def _event_record(number: int, found: dict | None, source: str) -> Record | None:
    if found is None:
        return None
    return Record(number, found.pop("time", "") or "", "", "event", found.get("message", ""), {}, source, found)


def _epoch(seconds: float) -> str:
    """zap's epoch-float ``ts`` (controller-runtime's fallback logger) as RFC 3339."""
    import datetime as dt

    try:
        return dt.datetime.fromtimestamp(seconds, dt.timezone.utc).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return ""


def _klog_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    match = _KLOG.match(text)
    if match is None:
        return None
    letter, when, logger, message = match.groups()
    if foreign_klog(logger):
        return None
    return Record(number, stamp or when, _KLOG_LEVELS[letter], logger, message, {}, source)


def _console_record(number: int, text: str, source: str, stamp: str) -> Record | None:
    if text[:1] in _KLOG_LEVELS and text[1:2].isdigit():
        return _klog_record(number, text, source, stamp)
    head = zap_console(text)
    return None if head is None else Record(number, *head, source)


def zap_console(text: str) -> tuple[str, str, str, str, dict] | None:
    """(time, level, logger, message, context) of a whole zap console line,
    ``TIME<TAB>LEVEL<TAB>LOGGER<TAB>MESSAGE[<TAB>{json context}]``; None for any other line."""
    parts = text.split("\t", 4)
    if len(parts) < 4 or parts[1] not in _LEVELS:
        return None
    when, level, logger, message = parts[0], parts[1], parts[2], parts[3]
    if not when[:1].isdigit() or ".go:" in message[-8:] or foreign_console_time(when):
        return None  # no time, or zap's caller column: the paste path reads those (another program's: none)
    context: dict = {}
    glued = glued_context(message) if len(parts) == 4 and message[-1:] == "}" else None
    if glued is not None:
        message, rest = glued
        parts.append(rest)
    elif len(parts) == 4 and ("..." in message or "…" in message):
        elided = elided_opening(message)
        if elided is not None:
            return when, _LEVELS[level], logger, elided[0], elided[1]
    if len(parts) == 5:
        try:
            loaded = fast_loads(parts[4])
        except (FastError, ValueError, RecursionError):
            rest = first_record(parts[4])  # another record glued on after this one's context
            try:
                loaded = json.loads(rest)
            except (ValueError, RecursionError):
                loaded = salvage(rest)
                if not loaded and not ELIDED_CONTEXT.match("\t" + rest):  # "{...}": the author left it out
                    message = f"{message}\t{parts[4]}"
        context = loaded if isinstance(loaded, dict) else {}
    return when, _LEVELS[level], logger, message, context


def _pasted(number: int, text: str, source: str = "", stamp: str = "", quoted: bool = False) -> Record | None:
    """A line the fast paths did not take: peel the paste's wrappers and try again (at last, what a
    prose line quotes; ``quoted`` when this is such a quote already)."""
    if GO_TRACE.match(text):
        return None
    got = unwrap(text)
    body, source, stamp = got.body, got.source or source, got.stamp or stamp
    if not body:
        return None
    if body.startswith("{"):
        return _pasted_json(number, body, source, stamp)
    if body[:1] == '"' and FRAGMENT.match(body):
        return _fragment(number, body, source, stamp)
    if body[:1] in _KLOG_LEVELS and body[1:2].isdigit():
        return _klog_record(number, body, source, stamp)
    if "\t" in body and body is not text:  # a whole TAB console line once its wrappers are off
        head = zap_console(body)
        if head is not None:
            return Record(number, *head, source)
    found = console(body, stamp)
    if found is not None and not (found.time or found.level) and found.logger in KARPENTER_SOURCES:
        row = event_row(body)   # not a logger-first line but a describe row cut to FROM and MESSAGE
        if row is not None:
            return _event_record(number, row, source)
    if found is None:
        row = event_row(body)
        if row is not None:
            return _event_record(number, row, source)
        found = _bare_message(number, body, source, stamp)
        if found is not None or quoted:
            return found
        # a markdown table row's cells or prose: the code spans as the author wrote them (the wrappers
        # peeled above take a cell's opening backtick with the row's pipe, which would pair the rest wrongly)
        return _quoted(number, _ROW_LEAD.sub("", text, count=1) if "`" in text else body, source, stamp)
    context: dict = {}
    message = found.message
    if found.context:
        try:
            loaded = json.loads(found.context)
            context = loaded if isinstance(loaded, dict) else {}
        except (ValueError, RecursionError):
            context = salvage(found.context)
    elif "..." in message or "…" in message:
        elided = elided_opening(message)
        if elided is not None:
            message, context = elided
    return Record(number, found.time, found.level, found.logger, message, context, source)


# a log store's time column (or an author's time of day alone; a viewer may draw a "│" after it), an event's type in brackets (a notebook
# server's spawn progress: "[Warning] Failed to schedule pod, ..."), zap's caller column, before the message
# (or an author's timeline entry, a list item's 12-hour time of day and a dash: "- 9:54:25.295 pm - created nodeclaim")
_BARE_COLUMNS = re.compile(r"(?:(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)|\d\d:\d\d:\d\d\.\d+)\s+(?:│\s+)?"
                           r"|(?:[-*] )?\d{1,2}:\d\d(?::\d\d(?:\.\d+)?)? ?[AaPp][Mm]\s+[-–]\s+)?"
                           r"(?:\[(?:Normal|Warning)\]\s+)?(?:[\w./-]+\.go:\d+\s+)?(?=\S)")


_AUTHOR_PAIRS = re.compile(r"^[A-Za-z][\w.-]*: \S+(?:, [A-Za-z][\w.-]*: \S+)*")
# an author's level word before the message, with a colon: "INFO: launched nodeclaim, provider-id: ..."
_AUTHOR_LEVEL = re.compile("(" + "|".join(LEVELS) + r"):\s+(?=\S)")
_ROW_LEAD = re.compile(r"^[\s>|│┃]*")
_QUOTED = re.compile(r'"((?:[^"\\]|\\.)*)"(?=[\s,.:;!?)]|$)')
_PAIRS_KEPT = re.compile(r'\s*(?:\.{3}|…)\s*(?="[\w.\-/ ]+"\s*:)')


def _bare_message(number: int, body: str, source: str, stamp: str) -> Record | None:
    """Only the message column survived (a log viewer's copy, a CSV export, an author's shortened
    copy that kept the message and its context): keep it when it is one of Karpenter's own
    templates — an ordinary sentence stays prose."""
    text = body.strip()
    column = _BARE_COLUMNS.match(text)
    if column:  # a log store's time column, or zap's caller column, before the message
        stamp = stamp or (column.group(1) or "")
        text = text[column.end():]
    level = ""
    said = _AUTHOR_LEVEL.match(text)
    if said:
        level, text = LEVELS[said.group(1)], text[said.end():]
    fields: dict = {}
    if text[:1] == '"':  # a JSON string value pasted alone ("incompatible with nodepool \"a\", ..."), or a quote
        whole = _QUOTED.match(text)  # closed, then prose ("...got 1". Expected ...)
        kept = _PAIRS_KEPT.match(text, whole.end()) if whole else None
        rest = text[whole.end():].strip() if whole and not kept else ""
        if kept:  # the message, the author's "...", and the pairs they kept: "launched nodeclaim"..."zone":"a"
            fields = salvage("{" + text[kept.end():])
        text = (whole.group(1) if whole else text.strip('",')).replace('\\"', '"')
        if rest and _AUTHOR_PAIRS.match(rest):   # then a few of its fields in the author's words: "key: value, ..."
            fields = author_pairs(rest.split(", "))
        elif rest and " " not in rest and any(c.isdigit() or c in ".-" for c in rest):
            text = f"{text} {rest}"   # then the object's name alone: "deleted node"   ip-192-168-1-2.ec2.internal
    if not fields and ("..." in text or "…" in text):  # the message, the author's "...", the pairs they kept
        kept = elided_opening(text)
        if kept is not None:
            text, fields = kept
    elided = ELIDED_CONTEXT.search(text) if text[-1:] == "}" else None
    if elided is not None:  # the author's "{...}" for the context
        text = text[:elided.start()].rstrip()
    at = text.find('{"commit"')
    if at > 0 and text[at - 1] in " \t":  # v0.x's console context, which always opens with the commit
        message, context = split_context(text)
        if context.startswith('{"commit"'):
            try:
                loaded = json.loads(context)
            except (ValueError, RecursionError):
                loaded = salvage(context)
            if isinstance(loaded, dict) and loaded:
                text, fields = message, loaded
    record = Record(number, stamp, level, "", text, fields, source)
    if source == "karpenter":  # an export's own source column says so
        record.source = ""
        return record
    if known(classify(record)):
        return record
    if not fields and ", " in text:   # the message, then a few of its fields in the author's words: "MESSAGE, key: value"
        message, _, rest = text.partition(", ")
        if _AUTHOR_PAIRS.fullmatch(rest):
            shorthand = Record(number, stamp, level, "", message, author_pairs(rest.split(", ")), source)
            if known(classify(shorthand)):
                return shorthand
    told = event_message(text)  # or one of Karpenter's event messages, the MESSAGE column alone
    return None if told is None else _event_record(number, told, source)


def _quoted(number: int, body: str, source: str, stamp: str) -> Record | None:
    """A prose line that quotes Karpenter: a code span holding one of its lines, event rows or template
    messages (the span may run to the end of a cut paste), or one of its event messages in double quotes
    ("... due to "SpotToSpotConsolidation requires 15 cheaper instance type options ..."."), also as
    ``REASON: MESSAGE`` (``had "Unconsolidatable: not all pods would schedule"``). An event row
    in a span counts only with its TYPE column (``Normal``/``Warning``), as copied from a table: a row
    written from its REASON on (`Nominated  karpenter  Pod should schedule on: ...`) is the author naming
    what one would see. A quoted word or sentence that is not one of Karpenter's stays prose."""
    for mark, span in quoted_spans(body):
        # one of Karpenter's event messages, whole (with a name elided, the author names a kind of event); as
        # "REASON: MESSAGE" only in double quotes: in a code span that is the author's shorthand (j-023)
        told = None if "..." in span or "…" in span else \
            event_message(span) or (event_row(span) if mark == '"' and _REASON_COLON.match(span) else None)
        if told is not None:
            return _event_record(number, told, source)
        if mark == '"':
            continue
        found = _pasted(number, span, source, stamp, quoted=True)
        if found is None:
            continue
        parts = _parts_after(body, mark, span) if found.preset is None and not found.fields else None
        if parts is not None:  # the line written by its parts: the message, then its pairs (or its taint)
            found.fields = author_pairs(parts)
            if known(classify(found)):
                return found
        head = found.level or "." in found.logger   # a line's own columns before its message: the line pasted
        if found.preset is None and not (found.fields or found.time or head) and _naming(body, span, found):
            continue   # the author naming a message in a sentence ("stuck with the `waiting on cluster sync` logs")
        if found.preset is not None and _ROW_TYPE.search(span) or \
                found.preset is None and (known(classify(found)) or head and found.message):
            return found
    return None


_REASON_COLON = re.compile(r"[A-Z][A-Za-z]+: \S")


def _naming(body: str, span: str, found: Record) -> bool:
    """A code span in the middle of a sentence holding only a message with no kind of its own (no time, level,
    logger nor context with it): the author names the message (prose), as a row written from its REASON on inside prose is; a span that is the
    whole line, or ends it, is the line pasted."""
    if classify(found)["kind"] != "other":
        return False
    at = body.find(span)
    after = body[at + len(span):].strip(" `.:;,") if at >= 0 else ""
    return at >= 0 and bool(body[:at].strip(" `>")) and bool(after)


_ROW_TYPE = re.compile(r"(?:^|\s)(?:Normal|Warning)\s")
# the code spans that follow a message's span with only spaces between: ``log: `tainted node` `key: value` ``
_NEXT_SPAN = re.compile(r"[ \t]+(`+)([^`]+)\1")
_PAIR_KEY = re.compile(r"[A-Za-z][\w.\-/]*")


def author_pairs(parts) -> dict:
    """A line's fields as an author wrote them out, ``key: value`` each (``decision: delete``); a part that
    is no such pair (a taint, a sentence) is left out."""
    return {k: v for k, _, v in (part.partition(": ") for part in parts) if v and _PAIR_KEY.fullmatch(k)}


def _parts_after(body: str, mark: str, span: str) -> list[str] | None:
    """The spans an author wrote right after a message's span, when they wrote a log line by its parts
    (`` `disrupting node(s)` `controller: disruption` `decision: delete` `` in a timeline table): the message
    span is then the line, not a message named in a sentence. None when no span follows it."""
    if mark[:1] != "`":
        return None
    at = body.find(mark + span + mark)
    if at < 0:
        return None
    at += len(span) + 2 * len(mark)
    parts = []
    while (following := _NEXT_SPAN.match(body, at)) is not None:
        parts.append(following.group(2))
        at = following.end()
    return parts or None


def _fragment(number: int, body: str, source: str, stamp: str) -> Record | None:
    """A record shortened to some of its pairs without its braces: read as the object they make,
    and kept when its message is one of Karpenter's templates (as a bare message is), or when it
    still has zap's head -- a level word, a time and a message, as every line Karpenter writes
    does. A whole record or event object that lost only its opening brace (it still ends with its
    closing one) is read as it would be with it."""
    if body.rstrip().endswith("}"):
        whole = json_object("{" + body)
        if whole is not None:
            return _from_json(number, whole, source, stamp)
    text = "{" + body.rstrip().rstrip(",") + "}"
    try:
        data, _ = _DECODE(text)
    except (ValueError, RecursionError):
        data = salvage(text[:-1])
    if not isinstance(data, dict):
        return None
    message = data.get("message", data.get("msg"))
    level = data.get("level")
    if type(message) is not str:
        return None
    record = Record(number, str(data.get("time") or stamp), json_level(level) if type(level) is str else "",
                    str(data.get("logger", "")), message, data, source)
    if type(level) is str and level in _JSON_LEVELS and ("time" in data or "ts" in data):
        if "time" not in data and isinstance(data.get("ts"), (int, float)):
            record.time = _epoch(data["ts"])
        return record
    return record if known(classify(record)) else None


def _pasted_json(number: int, body: str, source: str, stamp: str) -> Record | None:
    """A JSON payload: whole, escaped inside another record (``{\\"level\\": ...}``), or cut off."""
    if body.startswith('{\\"'):
        body = body.replace('\\"', '"')
    try:
        data, _ = _DECODE(body)
    except (ValueError, RecursionError):
        data = salvage(body)
        if not data:
            return None
        return _from_json(number, data, source, stamp) or _cut_head(number, data, body, source, stamp) \
            or _event_record(number, cut_event_object(data, body), source)
    if not isinstance(data, dict):
        return None
    return _from_json(number, data, source, stamp)


# zap's head cut inside the name of its second key: {"level":"DEBUG","time
_CUT_AT_KEY = re.compile(r'\{\s*"level"\s*:\s*"\w+"\s*,\s*"(?:time|ts|logger)(?:"\s*:?\s*)?$')


def _cut_head(number: int, data: dict, body: str, source: str, stamp: str) -> Record | None:
    """A zap JSON record cut off before its message (inside ``time``, or just after it, or even inside
    that key's name): zap writes ``level`` first and then ``time``/``logger``, so a whole level word with one of those is a
    Karpenter line, though nothing more can be said of it than its level (``other``). A value the
    cut went through is not kept: half a time is no time."""
    level = data.get("level")
    if foreign_json(data) or type(level) is not str or level not in _JSON_LEVELS or \
            not ({"time", "ts", "logger"} & data.keys() or _CUT_AT_KEY.match(body)):
        return None
    when = data.get("time")
    when = when if type(when) is str and f'"{when}"' in body else stamp
    return Record(number, when, _JSON_LEVELS[level], "", "", {}, source)
