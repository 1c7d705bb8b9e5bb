"""JSON is decoded item by item; the objects and the errors must be what json.loads gives."""

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.errors import InputError
from karptui.sources.json_stream import json_objects
from karptui.sources.lists import flatten


def streamed(text):
    return list(json_objects(text, "f.json"))


def whole(text):
    decoder, pos, out, number = json.JSONDecoder(), 0, [], 0
    while pos < len(text.rstrip()):
        value, pos = decoder.raw_decode(text, pos)
        number += 1
        out += list(flatten(value, "f.json", number))
        while pos < len(text) and text[pos].isspace():
            pos += 1
    return out


POD = {"metadata": {"name": "p", "namespace": "d"}, "spec": {"containers": []}}


def test_typed_list_with_kind_after_items():
    text = json.dumps({"items": [POD, {"kind": "Node", "apiVersion": "v1"}], "kind": "PodList", "apiVersion": "v1"})
    kinds = [o["kind"] for o in streamed(text)]
    assert sorted(kinds) == ["Node", "Pod"]


def test_object_with_items_but_no_kind_yields_its_items_only():
    assert streamed(json.dumps({"items": [{"kind": "Pod", "apiVersion": "v1"}]})) == [{"kind": "Pod", "apiVersion": "v1"}]


@pytest.mark.parametrize(
    "text,where",
    [
        ('{"kind": "List", "items": [{"a": 1} {"b": 2}]}', "line 1, column 37"),
        ('{"kind": "List",\n "items": [\n  {"a": 1},\n  {"b": ', "line 4"),
        ('{"kind" "List"}', "line 1, column 9"),
        ('{"kind": "List" "items": []}', "line 1, column 17"),
        ("{kind: 1}", "line 1, column 2"),
        ('{"items": [1, 2,]}', "line 1, column 17"),
        ('{"a": 1}\n{"b": 2} x', "line 2, column 10"),
    ],
)
def test_errors_name_the_position(text, where):
    with pytest.raises(InputError, match=f"invalid JSON at {where}"):
        streamed(text)
    with pytest.raises(json.JSONDecodeError):
        whole(text)


objs = st.fixed_dictionaries(
    {"metadata": st.fixed_dictionaries({"name": st.text(max_size=4)})},
    optional={"kind": st.sampled_from(["Pod", "Node", "List"]), "apiVersion": st.just("v1"),
              "items": st.lists(st.dictionaries(st.sampled_from(["kind", "x"]), st.text(max_size=3)), max_size=2)},
)
tops = st.fixed_dictionaries(
    {"items": st.lists(objs | st.integers() | st.none(), max_size=5)},
    optional={"kind": st.sampled_from(["List", "PodList", "NodeList", "Pod", "Thing"]), "apiVersion": st.just("v1"),
              "metadata": st.dictionaries(st.text(max_size=3), st.text(max_size=3), max_size=2)},
)


@settings(max_examples=300)
@given(st.lists(tops | objs, min_size=1, max_size=3), st.sampled_from([None, 2, 4]), st.randoms())
def test_same_objects_as_decoding_whole(values, indent, rnd):
    parts = []
    for value in values:
        keys = list(value)
        rnd.shuffle(keys)  # key order varies between kubectl, the raw API and other tools
        parts.append(json.dumps({k: value[k] for k in keys}, indent=indent))
    text = "\n".join(parts)
    got, expected = streamed(text), whole(text)
    lists = [v for v in values if "items" in v and str(v.get("kind", "")).endswith("List")]
    if len(lists) == len([v for v in values if "items" in v]):
        assert sorted(map(repr, got)) == sorted(map(repr, expected))
    else:  # a non-list object with an items array: its items are opened too, never lost
        assert all(o in got for o in expected if not (isinstance(o, dict) and "items" in o))
