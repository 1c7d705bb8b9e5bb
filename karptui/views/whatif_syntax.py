"""The what-if form's text syntax: the one-line forms an operator types for lists of labels,
taints, tolerations, requirements and affinity terms, parsed into manifests and printed back.

The same as kubectl's where it has one; every parser checks its result with the model's own
parser, so a value the API server would reject is a one-line ``ValueError`` here:

* labels / nodeSelector: ``key=value, key2=value2``
* tolerations: ``key=value:Effect``, ``key:Effect`` or ``key`` (Exists), ``*``
  (tolerate everything), separated by commas
* taints: ``key=value:Effect`` or ``key:Effect``, separated by commas
* requirements: ``key In a,b; key2 Exists; key3 Gt 4``, separated by ``;``
* required node affinity: requirements as above, terms (ORed) separated by ``|``; a
  ``field:`` prefix makes a requirement a matchFields one (``field:metadata.name In n1``)
* required pod (anti-)affinity: ``app=web, tier In (a b) @ topologyKey``, terms separated by ``|``
* preferred terms: the same, each led by its weight: ``50: key In a,b`` or ``50: app=web @ key``
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from ..model.affinity import parse_affinity
from ..model.quantity import parse_quantity
from ..model.selectors import parse_requirements
from ..model.taints import parse_taints, parse_tolerations

_EFFECT = re.compile(r"^(NoSchedule|PreferNoSchedule|NoExecute)$")

def split_items(text: str, sep: str = ",") -> list[str]:
    return [part.strip() for part in (text or "").split(sep) if part.strip()]


def parse_labels(text: str) -> dict[str, str]:
    out = {}
    for item in split_items(text):
        key, sep, value = item.partition("=")
        if not sep or not key.strip() or " " in key.strip():
            raise ValueError(f"{item!r} is not key=value")
        out[key.strip()] = value.strip()
    return out


def format_labels(labels: Mapping[str, str]) -> str:
    return ", ".join(f"{k}={v}" for k, v in labels.items())


def parse_taint_text(text: str) -> list[dict]:
    """``key=value:Effect`` items, as ``kubectl taint`` writes them."""
    out = []
    for item in split_items(text):
        head, sep, effect = item.rpartition(":")
        if not sep or not _EFFECT.match(effect):
            raise ValueError(f"taint {item!r} is not key=value:Effect (NoSchedule, PreferNoSchedule, NoExecute)")
        key, _, value = head.partition("=")
        out.append({"key": key, "effect": effect, **({"value": value} if value else {})})
    checked(parse_taints, out, "taints")
    return out


def format_taints(taints: Sequence[Mapping]) -> str:
    return ", ".join(f"{t.get('key', '')}{'=' + t['value'] if t.get('value') else ''}:{t.get('effect', '')}"
                     for t in taints)


def parse_toleration_text(text: str) -> list[dict]:
    out = []
    for item in split_items(text):
        head, effect = item, ""
        if ":" in item:
            head, _, effect = item.rpartition(":")
            if not _EFFECT.match(effect):
                raise ValueError(f"toleration {item!r}: {effect!r} is not NoSchedule, PreferNoSchedule or NoExecute")
        key, sep, value = head.partition("=")
        tol: dict = {"operator": "Equal" if sep else "Exists"}
        if key and key != "*":
            tol["key"] = key
        if sep:
            tol["value"] = value
        if effect:
            tol["effect"] = effect
        out.append(tol)
    checked(parse_tolerations, out, "tolerations")
    return out


def format_tolerations(tolerations: Sequence[Mapping]) -> str:
    parts = []
    for t in tolerations:
        text = t.get("key") or "*"
        if t.get("operator", "Equal") == "Equal":
            text += f"={t.get('value', '')}"
        parts.append(text + (f":{t['effect']}" if t.get("effect") else ""))
    return ", ".join(parts)


def parse_requirement_text(text: str) -> list[dict]:
    out = []
    for item in split_items(text, ";"):
        words = item.split(None, 2)
        if len(words) < 2:
            raise ValueError(f"requirement {item!r} is not 'key Operator [v1,v2]'")
        req: dict = {"key": words[0], "operator": words[1]}
        if len(words) == 3:
            req["values"] = split_items(words[2])
            spaced = next((v for v in req["values"] if len(v.split()) > 1), None)
            if spaced is not None:   # "a In x b In y" typed without ';' read as one value "x b In y"
                raise ValueError(f"requirement {item!r}: value {spaced!r} has a space, which a label value "
                                 "cannot; separate requirements with ';'")
        out.append(req)
    checked(parse_requirements, out, "requirements")
    return out


def format_requirements(requirements: Sequence[Mapping]) -> str:
    return "; ".join(" ".join([r.get("key", ""), r.get("operator", ""), ",".join(r.get("values") or [])]).strip()
                     for r in requirements)


REQUIRED = "requiredDuringSchedulingIgnoredDuringExecution"
PREFERRED = "preferredDuringSchedulingIgnoredDuringExecution"
_SELECTOR_ITEM = re.compile(r"\s*([^,()]+(?:\([^)]*\))?)\s*(?:,|$)")


FIELD_PREFIX = "field:"


def _node_term(text: str) -> dict:
    """One nodeSelectorTerm: label requirements (matchExpressions) and ``field:`` ones (matchFields)."""
    expressions, fields = [], []
    for part in split_items(text, ";"):
        if part.startswith(FIELD_PREFIX):
            fields += parse_requirement_text(part[len(FIELD_PREFIX):])
        else:
            expressions += parse_requirement_text(part)
    term: dict = {}
    if expressions:
        term["matchExpressions"] = expressions
    if fields:
        term["matchFields"] = fields
    return term


def _format_node_term(term: Mapping) -> str:
    parts = [format_requirements(term.get("matchExpressions") or [])]
    parts += [FIELD_PREFIX + format_requirements([f]) for f in term.get("matchFields") or []]
    return "; ".join(p for p in parts if p)


def _weighted(item: str, kind: str) -> tuple[int, str]:
    """``50: rest`` -> (50, rest): a preferred term's weight, 1-100 as the API server wants."""
    weight, colon, rest = item.partition(":")
    if not colon or not weight.strip().isdigit():
        raise ValueError(f"preferred {kind} term {item!r} does not start with a weight ('50: ...')")
    if not 1 <= int(weight) <= 100:
        raise ValueError(f"preferred {kind} term {item!r}: weight must be 1-100")
    return int(weight), rest.strip()


def parse_node_affinity_text(text: str) -> list[dict]:
    """Required node affinity: nodeSelectorTerms, ORed by ``|``; each term's requirements ANDed by ``;``."""
    terms = [_node_term(term) for term in split_items(text, "|")]
    if terms:
        checked(parse_affinity, {"nodeAffinity": {REQUIRED: {"nodeSelectorTerms": terms}}}, "affinity")
    return terms


def format_node_affinity(terms: Sequence[Mapping]) -> str:
    return " | ".join(_format_node_term(t) for t in terms)


def parse_preferred_node_affinity_text(text: str) -> list[dict]:
    """Preferred node affinity: ``weight: requirements`` terms separated by ``|``."""
    terms = []
    for item in split_items(text, "|"):
        weight, rest = _weighted(item, "node affinity")
        terms.append({"weight": weight, "preference": _node_term(rest)})
    if terms:
        checked(parse_affinity, {"nodeAffinity": {PREFERRED: terms}}, "affinity")
    return terms


def format_preferred_node_affinity(terms: Sequence[Mapping]) -> str:
    return " | ".join(f"{t.get('weight', '')}: {_format_node_term(t.get('preference') or {})}" for t in terms)


def _parse_selector_text(text: str) -> dict:
    """``app=web, tier In (a b), !legacy, canary`` -> a labelSelector (matchLabels + matchExpressions)."""
    labels: dict[str, str] = {}
    expressions: list[dict] = []
    for item in (m.group(1).strip() for m in _SELECTOR_ITEM.finditer(text) if m.group(1).strip()):
        if "(" in item:
            key, operator, rest = (item.split(None, 2) + ["", ""])[:3]
            expressions.append({"key": key, "operator": operator, "values": rest.strip("() ").split()})
        elif "=" in item:
            key, _, value = item.partition("=")
            labels[key.strip()] = value.strip()
        elif item.startswith("!"):
            expressions.append({"key": item[1:].strip(), "operator": "DoesNotExist"})
        else:
            expressions.append({"key": item, "operator": "Exists"})
    selector: dict = {}
    if labels:
        selector["matchLabels"] = labels
    if expressions:
        selector["matchExpressions"] = expressions
    return selector


def _format_selector(selector: Mapping) -> str:
    parts = [f"{k}={v}" for k, v in (selector.get("matchLabels") or {}).items()]
    for e in selector.get("matchExpressions") or []:
        op = e.get("operator", "")
        parts.append(f"!{e.get('key')}" if op == "DoesNotExist" else e.get("key", "") if op == "Exists"
                     else f"{e.get('key')} {op} ({' '.join(e.get('values') or [])})")
    return ", ".join(parts)


def _pod_term(item: str, kind: str) -> dict:
    selector, at, key = item.rpartition("@")
    if not at or not key.strip():
        raise ValueError(f"{kind} term {item!r} is not 'key=value, ... @ topologyKey'")
    return {"labelSelector": _parse_selector_text(selector), "topologyKey": key.strip()}


def parse_pod_terms_text(text: str, kind: str = "podAntiAffinity") -> list[dict]:
    """Required pod (anti-)affinity terms: ``selector @ topologyKey``, separated by ``|``."""
    terms = [_pod_term(item, kind) for item in split_items(text, "|")]
    if terms:
        checked(parse_affinity, {kind: {REQUIRED: terms}}, "affinity")
    return terms


def _format_pod_term(term: Mapping) -> str:
    return f"{_format_selector(term.get('labelSelector') or {})} @ {term.get('topologyKey', '')}"


def format_pod_terms(terms: Sequence[Mapping]) -> str:
    return " | ".join(_format_pod_term(t) for t in terms)


def parse_preferred_pod_terms_text(text: str, kind: str = "podAntiAffinity") -> list[dict]:
    """Preferred pod (anti-)affinity: ``weight: selector @ topologyKey`` terms separated by ``|``."""
    terms = []
    for item in split_items(text, "|"):
        weight, rest = _weighted(item, kind)
        terms.append({"weight": weight, "podAffinityTerm": _pod_term(rest, kind)})
    if terms:
        checked(parse_affinity, {kind: {PREFERRED: terms}}, "affinity")
    return terms


def format_preferred_pod_terms(terms: Sequence[Mapping]) -> str:
    return " | ".join(f"{t.get('weight', '')}: {_format_pod_term(t.get('podAffinityTerm') or {})}" for t in terms)


def checked(parser: Callable, raw: object, where: str) -> None:
    try:
        parser(raw, where)
    except ValueError as exc:  # ModelError is a ValueError
        raise ValueError(str(exc)) from None


def whole_number(value: object, name: str, minimum: int) -> int:
    text = str(value).strip()
    if not re.fullmatch(r"[+-]?\d+", text) or int(text) < minimum:
        raise ValueError(f"{name} must be a whole number >= {minimum}, got {text!r}")
    return int(text)


def quantity_or_none(value: object, name: str) -> str | None:
    """A quantity string, or None (delete the key) when left empty."""
    text = str(value or "").strip()
    if not text:
        return None
    try:
        if parse_quantity(text) < 0:
            raise ValueError
    except ValueError:
        raise ValueError(f"{name}: {text!r} is not a quantity such as 500m, 2 or 1Gi") from None
    return text
