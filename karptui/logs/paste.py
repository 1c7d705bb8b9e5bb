"""Finding the Karpenter line inside whatever an operator pasted around it.

Logs reach karptui as people copy them: from a terminal (TABs turned into runs of
spaces), from a GitHub comment (markdown quotes, code fences, backticks), behind
``kubectl logs --prefix``/``--timestamps``, stern's ``pod container``, CRI's
``TIME stdout F`` framing, a log store's own time column (Kibana's ``Mar 3, 2024 @
10:11:12.345``, Grafana/Loki's local ``2024-03-03 10:11:12.345``), k9s' box borders,
or with a literal ``\\t`` where a TAB was. This module peels those layers off and says
where the Karpenter payload starts: a JSON object, or a zap console line
``[TIME] LEVEL [LOGGER] MESSAGE [{context}]``.

It is the slow path: a bare JSON line or a clean TAB-separated console line never
comes here (record.py handles those first), so throughput stays with the common case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from .classify import BY_FIRST_WORD
from .foreign import foreign_console_time

# Markdown quotes, list bullets, code-fence leftovers, k9s borders, quotes around a line, markdown emphasis
# opened before a line's time or level (``_ERROR  controller...``), a shell comment quoting a line (``# INFO ...``).
# An author's elision ("... ", "… ", "[...] ") in place of the columns before the rest is one of these too.
# A Go or C line comment ("//   Normal  Launched ...", a table quoted in a test's source) is one too, and so is
# a diff's "+" before an added line (a review thread quoting a docs change).
_LEAD = re.compile(r"""^(?:\s|>|`+|\||│|┃|//+(?=\s)|"(?=\{|\d{4}-|[A-Z]{4,5}\b)|[_*](?=\d{4}-|(?:DEBUG|INFO|WARN|ERROR)\b)|\#(?=\s+(?:\d{4}-|(?:DEBUG|INFO|WARN|ERROR)\b))|\+(?=\d{4}-|\{|\s)|\d{10,13}\s*\||\[?(?:\.{3}|…)\]?(?=\s))*""")
_TRAIL = re.compile(r"""(?:\s|`+|\||│|┃)*$""")
_KUBECTL_PREFIX = re.compile(r"\[(pod/[^\]/]+/[^\]]+)\]\s*")
# a container runtime's framing (TIME STREAM F|P); the time may already be gone (read as kubectl's --timestamps)
_CRI = re.compile(r"(?:(\S+)\s+)?(?:stdout|stderr)\s+[FP]\s")
# A time column: RFC 3339 (T or space), zap's epoch float is not a prefix (it is inside JSON),
# Kibana "Mar 3, 2024 @ 10:11:12.345", syslog-ish "Mar 03 10:11:12".
_TIME = re.compile(
    r"(?:\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d|\s?UTC)?"
    r"|[A-Z][a-z]{2} \d{1,2}, \d{4} @ \d\d:\d\d:\d\d(?:\.\d+)?"
    r"|[A-Z][a-z]{2} +\d{1,2} \d\d:\d\d:\d\d(?:\.\d+)?)"
)
# stern / kubectl-with-pod-name prefixes: "karpenter-5f7b9d8c6d-x7k2p controller ", "ns/pod[controller]: "
# (a log store's export may set its columns apart with " | ": "Jun 23 07:41:12.708 | POD | LINE")
_STERN = re.compile(r"([a-z0-9][a-z0-9.-]*-[a-z0-9]{4,10})(?:\s+(controller|manager|webhook|karpenter))?(?:\s+\|)?\s+")
_NS_POD_CONTAINER = re.compile(r"([a-z0-9][a-z0-9.-]*/[a-z0-9][a-z0-9.-]*)\[([a-z0-9-]+)\]:\s*")
_SEP = re.compile(r"(?:\t|\\t|\s|\|(?=\s))+")
LEVELS = {"DEBUG": "debug", "INFO": "info", "WARN": "warn", "WARNING": "warn", "ERROR": "error",
          "DPANIC": "error", "PANIC": "error", "FATAL": "error"}
_LEVEL = re.compile(r"(DEBUG|INFO|WARN(?:ING)?|ERROR|DPANIC|PANIC|FATAL)(?=\t|\\t|\s|$)")
# Loggers of every era: "controller", "controller.provisioner", "webhook.DefaultingWebhook", "fallback"
_LOGGER = re.compile(r"(?:controller|webhook|fallback|karpenter|manager|leader-election|controller-runtime)"
                     r"(?:\.[\w/-]+)*(?=\t|\\t| |$)")
# A controller's logger glued to its message where the TAB between them was lost: a controller's own last
# name, then the first word of one of Karpenter's templates (classify.BY_FIRST_WORD, the words of five letters
# or more: "controller.provisionerlaunching machine, ..."); a logger that merely goes on ("controller.nodeclaim")
# is not split
_GLUED_LOGGER = re.compile(r"controller(?:\.[a-z]+)*?\.(?:provisioner|provisioning|deprovisioning|disruption|"
                           r"termination|interruption|machine|nodeclaim|lifecycle|node)"
                           r"(?=(?:" + "|".join(sorted((w for w in BY_FIRST_WORD if len(w) >= 5 and w.isalpha()),
                                                       key=len, reverse=True)) + r") )")
# zap's caller column when the logger was built with AddCaller: "scheduling/scheduler.go:190"
_CALLER = re.compile(r"[\w./-]+\.go:\d+(?:\t|\\t| +)")
# A CSV export of a log store: "TIME","""SOURCE""","MESSAGE"
_CSV = re.compile(r'^"([^"]*)","+([^"]*)"+","(.*)"$')
_QUOTE_MARKS = re.compile(r"^(?:>\s*)+")  # a markdown quote around a CSV row
# Where a Karpenter JSON record starts when junk (terminal escapes, a viewer's columns) stands before it
_JSON_START = re.compile(r'\{"(?:level|time|ts|msg|message|logger)"')


# A Go stack trace's lines (after an ERROR line or a panic): never a record, and the most
# common noise in a paste; recognised before any unwrapping is tried.
GO_TRACE = re.compile(r"\s*(?:goroutine \d+ \[|panic: |created by |(?![{\"])\S+\.go:\d+(?: \+0x[0-9a-f]+)?\s*$"
                      r"|(?:[\w.\-]+/)+[\w.\-()*]+\(.*\)\s*$)")


# An author's elision standing for a whole context object: ``{...}``, ``{…}``, ``{ ... }``
ELIDED_CONTEXT = re.compile(r"\s\{\s*(?:\.{2,}|…)\s*\}\s*$")
# A second record glued onto the line (a page flattened a code block, or a terminal lost the newlines):
# its time and level word after a space (and kubectl's --prefix), maybe after the "..." that ended the first.
_NEXT_RECORD = re.compile(r"\s*(?:\.{3}|…)?\s+(?:\[pod/[^\]\s]+\]\s+)?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?"
                          r"(?:\t|\\t|\s)+(?:DEBUG|INFO|WARN|ERROR)\b")
_TRAILING_ELISION = re.compile(r"\s*(?:\.{3}|…)$")


def first_record(body: str) -> str:
    """The first record of a line that holds several glued together (cut where the next one's
    time and level start), without the "..." the author closed it with; the line itself otherwise."""
    glued = _NEXT_RECORD.search(body, 1)
    if glued is None:
        return body
    return _TRAILING_ELISION.sub("", body[:glued.start()])


# A record shortened to some of its pairs, its braces gone (``"message":"disrupting node(s)","command":...``),
# or a record or event object that lost only its opening brace: a whole first pair (any key, a string or
# a scalar value) and the next key on the same line -- jq's layout puts one pair on a line instead
FRAGMENT = re.compile(r'^"[\w.\-/ ]+"\s*:\s*(?:"(?:[^"\\]|\\.)*"|-?\d[\d.e+-]*|true|false|null)\s*,\s*"')


# Karpenter's words quoted inside a prose line: an inline code span (`...`, ```...```; opened and never
# closed where the paste was cut) or a double-quoted sentence
_SPANS = re.compile(r'(`+)(.+?)(?:\1|$)|"([^"]{12,})"')


def quoted_spans(text: str) -> list[tuple[str, str]]:
    """The ``(mark, text)`` of each span quoted inside a line (``mark`` is the backticks or ``"``), in order."""
    if "`" not in text and '"' not in text:
        return []
    return [(m.group(1), m.group(2)) if m.group(1) else ('"', m.group(3)) for m in _SPANS.finditer(text)]


@dataclass(slots=True)
class Unwrapped:
    """The payload of a pasted line and what its wrappers said."""

    body: str
    source: str = ""   # pod/NAME/CONTAINER (kubectl --prefix) or pod container (stern)
    stamp: str = ""    # the outermost time column, when the payload has no time of its own


def unwrap(text: str) -> Unwrapped:
    """Peel paste wrappers off ``text`` until a JSON object or a console payload is in front."""
    source = stamp = ""
    csv = _CSV.match(_QUOTE_MARKS.sub("", text.strip(), count=1))
    if csv:
        stamp, text = csv.group(1), csv.group(3).replace('""', '"')
        source = "karpenter" if "karpenter" in csv.group(2) else ""
    body = _TRAIL.sub("", _LEAD.sub("", text, count=1), count=1)
    for _ in range(6):  # wrappers nest at most a few deep: CRI inside a log store inside a quote
        if body.startswith("{"):
            break
        match = _KUBECTL_PREFIX.match(body)
        if match:
            source, body = match.group(1), body[match.end():]
            continue
        match = _NS_POD_CONTAINER.match(body)
        if match:
            source, body = f"pod/{match.group(1).split('/')[-1]}/{match.group(2)}", body[match.end():]
            continue
        match = _CRI.match(body)
        if match:
            stamp = stamp or match.group(1) or ""
            body = body[match.end():]
            continue
        match = _TIME.match(body)
        if match:
            rest = _SEP.match(body, match.end())
            if rest is None:
                break
            after = body[rest.end():]
            if _LEVEL.match(after) and foreign_console_time(match.group(0)):
                return Unwrapped("", source, stamp)  # a console line's own time, another program's encoder
            if _LEVEL.match(after) or _TIME.match(after) or after.startswith(("{", "[pod/")) \
                    or _STERN.match(after) or _LOGGER.match(after):
                stamp = stamp or match.group(0)
                body = after
                continue
            break
        match = _STERN.match(body)
        if match and _looks_like_payload(body[match.end():]):
            pod, container = match.group(1), match.group(2)
            source = f"pod/{pod}/{container}" if container else f"pod/{pod}"
            body = body[match.end():]
            continue
        start = _JSON_START.search(body)
        # terminal escapes or a viewer's columns glued in front of a JSON record -- but not a record in a
        # later code span of prose or a markdown table row: the first thing the line quotes decides
        if start and "`" not in body[:start.start()]:
            body = body[start.start():]
        break
    # a log store's escaped TABs of a console line; a JSON record's (braced, or one that lost its brace) are
    # its strings' own escapes
    escaped = "\\t" in body and not body.startswith("{") and not (body[:1] == '"' and FRAGMENT.match(body))
    return Unwrapped(body.replace("\\t", "\t") if escaped else body, source, stamp)


# klog's head (client-go's leader election in Karpenter's output): "I0711 20:13:49.927612"
_KLOG_HEAD = re.compile(r"[IWEF]\d{4} \d\d:\d\d:\d\d")


def _looks_like_payload(text: str) -> bool:
    return bool(text.startswith("{") or _TIME.match(text) or _LEVEL.match(text) or _CRI.match(text)
                or _KLOG_HEAD.match(text))


@dataclass(slots=True)
class Console:
    """A zap console line's columns, whatever separated them."""

    time: str
    level: str
    logger: str
    message: str
    context: str   # the trailing JSON object's text, "" when the line has none


# a level word cut short ("I", "DEB"): what is left of a line whose paste ended inside it, after its time
_CUT_LEVELS = frozenset(word[:end] for word in ("DEBUG", "INFO", "WARN", "ERROR") for end in range(1, len(word)))


def console(body: str, stamp: str) -> Console | None:
    """``[TIME] LEVEL [LOGGER] MESSAGE [{context}]`` with TABs, runs of spaces or single spaces.

    A line may lack its time (copied from a pane), its level (a grep of one column) or
    its logger (v0.2 and before had none), but not both level and logger: a bare
    sentence is not a Karpenter line.
    """
    when = ""
    match = _TIME.match(body)
    if match:
        when, body = match.group(0), body[match.end():].lstrip(" \t")
    level = ""
    match = _LEVEL.match(body)
    if match:
        level, body = LEVELS[match.group(1)], body[match.end():].lstrip(" \t")
    elif body[:1].isupper() and body[1:5].islower():  # "Info" never starts a zap line; a sentence does
        return None
    elif (when or stamp) and body.rstrip() in _CUT_LEVELS and not foreign_console_time(when or stamp):
        return Console(when or stamp, "", "", "", "")   # the paste ended inside the level word: a line with its time alone
    logger = ""
    match = _LOGGER.match(body)
    glued = _GLUED_LOGGER.match(body) if match and level and body[match.end():match.end() + 1] == " " else None
    if glued:   # the TAB between a controller's logger and its message lost: "controller.provisionerlaunching ..."
        match = glued
    if match and (body[match.end():match.end() + 1] in ("\t", "") or "." in match.group(0)
                  or body[match.end():match.end() + 2] == "  " or level
                  or body.rstrip().endswith("}") and ' {"commit"' in body):  # v0.x's context: a log line
        logger, body = match.group(0), body[match.end():].lstrip(" \t")
    caller = _CALLER.match(body)
    if caller:
        body = body[caller.end():]
    if not level and not logger:
        return None
    if level and foreign_console_time(when):  # its own time, just before its level: another program's encoder
        return None
    if not level and not when and not body:
        return None
    message, context = split_context(first_record(body))
    return Console(when or stamp, level, logger, message, context)


def split_context(body: str) -> tuple[str, str]:
    """The message and its trailing ``{...}`` context: the last ``{"`` after a TAB, or after
    spaces when TABs were lost. The context may be cut off (the paste ended); the message
    may itself hold ``{...}`` (requests), which is why the search runs from the right."""
    tab = body.rfind("\t{")
    if tab >= 0:
        return body[:tab].rstrip(), body[tab + 1:].strip()
    if body[-1:] == "}":
        elided = ELIDED_CONTEXT.search(body)
        if elided is not None:
            return body[:elided.start()].rstrip(), ""  # the author's "{...}": no context to read
    start = len(body)
    while True:
        start = body.rfind('{"', 0, start)
        if start <= 0:
            return body.strip(), ""
        before = body[start - 1]
        if body[start:start + 9] == '{"commit"' and (before == " " or _closes(body, start)):
            return body[:start].rstrip(), body[start:].strip()  # a glued one: see glued_context
        if before == " " and (body[start - 2:start] == "  " or _closes(body, start)):
            return body[:start].rstrip(), body[start:].strip()


def glued_context(message: str) -> tuple[str, str] | None:
    """(message, context) when a console line's context object lost the TAB before it and is glued
    to the message's last word (``...us-west-2c.{"commit": ...}``). v0.x built its logger with
    ``commit`` as the first field, so the context always opens with ``{"commit"``; only an object
    that runs to the end of the line is taken."""
    start = message.rfind('{"commit"')
    if start <= 0 or not _closes(message, start):
        return None
    return message[:start].rstrip(), message[start:].strip()


# The author's "..." in place of the context's opening (its brace and first fields), the pairs they kept
# after it: ``Reconciler error ...  "error": "creating machine, ..."``
_ELIDED_OPENING = re.compile(r'\s(?:\.{3}|…)\s+(?="[\w.\-/ ]+"\s*:\s*)')
# the one pair kept, whole or cut where the paste ends (a whole one may hold a TAB a page unescaped)
_ONE_VALUE = re.compile(r'\{"([\w.\-/ ]+)"\s*:\s*"((?:[^"\\]|\\.)*)(?:\\?$|"\s*\}?\s*$)')
# or the pairs kept written as key=value, the way the author read them off a log viewer:
# ``disrupting node(s) ... decision=delete`` (what follows the pairs is the author's own note)
_ELIDED_LOGFMT = re.compile(r'\s(?:\.{3}|…)\s+(?=[A-Za-z][\w.\-/]*=\S)')
_LOGFMT_PAIR = re.compile(r'([A-Za-z][\w.\-/]*)=("(?:[^"\\]|\\.)*"|[^\s,;()]+)')


def elided_opening(message: str) -> tuple[str, dict] | None:
    """(message, context) when a console line's context was shortened by its author to ``...`` and
    the pairs they kept: the message is what stands before the ``...``, the context those pairs (the
    first of them maybe cut off where the paste ends)."""
    match = _ELIDED_OPENING.search(message)
    if match is None:
        return _elided_logfmt(message)
    rest = "{" + message[match.end():]
    found = salvage(rest)
    if not found:
        one = _ONE_VALUE.match(rest)
        if one is None:
            return None
        try:
            value = json.loads(f'"{one.group(2)}"', strict=False)
        except ValueError:
            value = one.group(2).replace('\\"', '"')
        found = {one.group(1): value}
    return message[:match.start()].rstrip(), found


def _elided_logfmt(message: str) -> tuple[str, dict] | None:
    """(message, context) when the pairs kept after the author's ``...`` are ``key=value`` ones."""
    match = _ELIDED_LOGFMT.search(message)
    if match is None:
        return None
    found: dict = {}
    at = match.end()
    while True:
        pair = _LOGFMT_PAIR.match(message, at)
        if pair is None:
            break
        value = pair.group(2)
        found[pair.group(1)] = value[1:-1].replace('\\"', '"') if value[:1] == '"' else value
        at = pair.end()
        while at < len(message) and message[at] in " ,":
            at += 1
    return message[:match.start()].rstrip(), found


def _closes(body: str, start: int) -> bool:
    """Whether ``body[start:]`` is one JSON object running to the end (then it is the context)."""
    depth, quoted, escaped = 0, False, False
    for index in range(start, len(body)):
        ch = body[index]
        if quoted:
            if escaped:
                escaped = False
            elif ch == "\\":
                escaped = True
            elif ch == '"':
                quoted = False
        elif ch == '"':
            quoted = True
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
            if depth == 0:
                return not body[index + 1:].strip()
    return False


_PAIR = re.compile(r'"([\w.\-/ ]+)"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:e[+-]?\d+)?|true|false|null|'
                   r'\{\s*"name"\s*:\s*"(?:[^"\\]|\\.)*"(?:\s*,\s*"namespace"\s*:\s*"(?:[^"\\]|\\.)*")?\s*\})')


_CUT_VALUE = re.compile(r'\s*,\s*"([\w.\-/ ]+)"\s*:\s*"((?:[^"\\]|\\.)*)\\?$')  # (maybe cut inside an escape)


def salvage(text: str) -> dict:
    """The complete ``"key": value`` pairs of a JSON object that was cut off mid-way.

    Only scalars and Karpenter's ``{"name": ..., "namespace": ...}`` references are kept;
    a nested object cut off is simply not there.
    """
    found: dict = {}
    end = 0
    for match in _PAIR.finditer(text):
        key, raw = match.groups()
        end = match.end()
        if key in found:
            continue
        try:
            found[key] = json.loads(raw)
        except ValueError:
            continue
    # the pair the paste ended in, also after a nested object ("requests":{...}), but only one of the
    # record's own: one brace open before it (a pair cut inside a nested object is not the record's)
    cut = _CUT_VALUE.search(text, end) if found else None
    if cut and text.count("{", 0, cut.start()) - text.count("}", 0, cut.start()) != 1:
        cut = None
    if cut and cut.group(1) not in found:  # the paste ended inside this string: keep what is there
        found[cut.group(1)] = cut.group(2).replace('\\"', '"')
    return found
