"""Opening Kubernetes lists: ``kind: List``, typed lists, and bare arrays."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

from ..errors import InputError


def is_list_kind(kind: object) -> bool:
    return isinstance(kind, str) and kind.endswith("List")


def with_list_kind(item: object, list_kind: object, list_api_version: object) -> object:
    """A typed list's item (``PodList`` -> ``Pod``) given the kind the API left out."""
    if (
        (type(item) is dict or isinstance(item, Mapping)) and "kind" not in item
        and is_list_kind(list_kind) and list_kind != "List"
    ):
        return {**item, "kind": list_kind.removesuffix("List"),
                "apiVersion": item.get("apiVersion") or list_api_version}
    return item


def flatten(doc: object, origin: str, number: int) -> Iterator[object]:
    """Objects from one document: lists are opened, typed-list items get their kind.

    A stray scalar inside a list is passed on (the builder skips it with a
    warning); a scalar document is not a snapshot at all.
    """
    if doc is None:
        return
    if isinstance(doc, list):
        for item in doc:
            yield from _flatten_item(item, origin, number)
        return
    if type(doc) is not dict and not isinstance(doc, Mapping):  # type() first: skips the ABC check for JSON's
        raise InputError(origin, f"document {number} is a {type(doc).__name__}, not a Kubernetes object or list")
    kind = doc.get("kind")
    if not (is_list_kind(kind) and "items" in doc):
        yield doc
        return
    items = doc.get("items") or []
    if not isinstance(items, list):
        raise InputError(origin, f"document {number}: {kind}.items is not a list")
    for index, item in enumerate(items):
        items[index] = None  # drop our reference as we go: peak memory is the model, not model + raw
        yield from _flatten_item(with_list_kind(item, kind, doc.get("apiVersion")), origin, number)


def _flatten_item(item: object, origin: str, number: int) -> Iterator[object]:
    if isinstance(item, (list, Mapping)):
        yield from flatten(item, origin, number)
    else:
        yield item
