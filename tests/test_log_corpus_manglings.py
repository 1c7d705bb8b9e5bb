"""The manglings operators' pastes showed (issue 30, held-out sets e and f), applied to every
labelled line of the corpus: the reader must still give the label's kind. The corpus says which
shapes exist; this says a rule for one shape holds on every line of every era, not just on the
line that showed it -- the way the next held-out set will test it.

Each mangling is what a paste does to a line, never what the reader does: an author's elisions
(``{...}`` for a context, ``...`` for the columns before the logger, ``... `` for pairs in the
middle of a record, a message cut after its first words), records glued onto one line, a record
that lost its opening brace, a shortened copy (message and keys, no head), a markdown quote, CRLF;
and (held-out sets y and z) a log store's ` | ` columns and stern's `POD CONTAINER ` prefix before a whole line.
"""

from __future__ import annotations

import json
import re

import pytest

from karptui.logs import LogParser
from tests.log_corpus.score import HERE, expected

_CONSOLE = re.compile(r"^(\d{4}-\d\d-\d\dT[\d:.]+Z?)(\s+)([A-Z]+)(\s+)(\S+)(\s+)(.*?)(\t|\s{2,}|\s)(\{\"commit\".*\})$")


def _labelled_lines():
    """(file, line, kind, text) of every one-line labelled event."""
    out = []
    for name, want in sorted(expected().items()):
        lines = (HERE / name).read_text(encoding="utf-8", errors="replace").split("\n")
        for entry in want.get("events") or []:
            if not entry.get("continues"):
                out.append((name, entry["line"], entry["kind"], lines[entry["line"] - 1].strip().rstrip("\r")))
    return out


# Labelled lines the reader reads wrong even whole (``python -m tests.log_corpus.score`` lists them): their
# manglings prove nothing. q-032:17 is an error text pasted bare in a fence, labelled other; d-030 labels the same
# kind of text, quoted in a list of "common errors", as no line, and the reader keeps to d-030. r-024:17 is the word
# "Drained" alone on a line of an author's list of event messages (a NodeClaim condition's reason): a lone word is
# read as no one's.
KNOWN_MISSES = {("q-032.log", 17), ("r-024.log", 17), ("u-022.log", 5)}
LINES = [entry for entry in _labelled_lines() if entry[:2] not in KNOWN_MISSES]


def _record(text: str) -> dict | None:
    if not (text.startswith("{") and text.endswith("}")):
        return None
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("message", data.get("msg")), str) else None


def _manglings(kind: str, text: str) -> dict[str, str]:
    out = {"markdown quote": "> " + text, "CRLF": text + "\r"}
    data = _record(text)
    if data is not None:
        out["lost its opening brace"] = text[1:]
        out["two records glued with '... '"] = text + "... " + text
        keys = list(data)
        at = keys.index("message" if "message" in data else "msg")
        if len(keys) > at + 3:
            head = json.dumps({k: data[k] for k in keys[:at + 1]}, separators=(",", ":"))[:-1]
            tail = json.dumps({k: data[k] for k in keys[-2:]}, separators=(",", ":"))[1:]
            out["pairs elided with ' ... '"] = head + " ... " + tail
        if kind != "other":
            out["shortened copy"] = json.dumps({k: v for k, v in data.items()
                                                if k not in ("level", "time", "ts", "logger", "commit", "caller")})
    console = _CONSOLE.match(text)
    if data is not None or console:   # a whole line, as a log store or a log tailer shows it
        out["a log store's ' | ' columns"] = "Jun 23 07:41:12.708 | karpenter-7c2e5b9d41-k8vrm | " + text
        out["stern's POD CONTAINER prefix"] = "karpenter-7c2e5b9d41-k8vrm controller " + text
    if console:
        when, s1, level, s2, logger, s3, message, s4, context = console.groups()
        if logger != "controller.events":  # v0.1x's logged events: the whole event is in the context
            out["context elided as {...}"] = text[:console.start(9)] + "{...}"
            if kind != "other":
                out["message and context alone"] = message + s4 + context
        out["glued with '... '"] = text + "... " + text
        out["glued with a space"] = text + " " + text
        out["time and level elided as '...'"] = "... " + text[console.start(5):]
        words = message.split(" ")
        if len(words) > 4:
            out["message cut after three words"] = text[:console.start(7)] + " ".join(words[:3]) + " ..."
    return out


CASES = [(name, line, kind, mangling, mangled)
         for name, line, kind, text in LINES for mangling, mangled in _manglings(kind, text).items()]


def test_the_manglings_reach_every_era():
    assert len(CASES) > 4000
    assert {m for *_, m, _ in CASES} >= {"lost its opening brace", "context elided as {...}",
                                         "message cut after three words", "shortened copy"}


@pytest.mark.parametrize("mangling", sorted({c[3] for c in CASES}))
def test_a_mangled_line_keeps_its_labelled_kind(mangling):
    wrong = []
    for name, line, kind, _, mangled in (c for c in CASES if c[3] == mangling):
        found = list(LogParser().parse([mangled]))
        got = found[0]["kind"] if found else None
        if got != kind:
            wrong.append(f"{name}:{line}: {kind}, read {got}: {mangled[:120]}")
    assert not wrong, "\n".join(wrong)
