"""JSON is decoded item by item; the objects and the errors must be what json.loads gives."""

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.errors import InputError
from karptui.sources.file_window import FileWindow
from karptui.sources.json_stream import json_objects, list_from_file
from karptui.sources.lists import flatten


def streamed(text):
    return list(json_objects(text, "f.json"))


def read_forward(text, chunk=64, window=None):
    """What a large file read forward gives (a small window, so it is read chunk by chunk); None where it
    is read as text."""
    window = window or FileWindow(io.BytesIO(text.encode("utf-8", "surrogateescape")), chunk)
    found = list_from_file(window, "f.json")
    return None if found is None else list(found)


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
    forward = read_forward(text)
    assert forward is None or repr(forward) == repr(got)
    lists = [v for v in values if "items" in v and str(v.get("kind", "")).endswith("List")]
    if len(lists) == len([v for v in values if "items" in v]):
        assert sorted(map(repr, got)) == sorted(map(repr, expected))
    else:  # a non-list object with an items array: its items are opened too, never lost
        assert all(o in got for o in expected if not (isinstance(o, dict) and "items" in o))


# ---- items decoded where the layout shows their ends (orjson), the stdlib as the judge ----------

def _one_a_line(items, head='{"apiVersion":"v1","items":[\n', tail='\n],"kind":"List"}'):
    """The generator's and many tools' layout: one item per line."""
    return head + ",\n".join(json.dumps(i, separators=(",", ":")) for i in items) + tail


PODS = [{"kind": "Pod", "apiVersion": "v1", "metadata": {"name": f"p{i}", "annotations": {"a": "},\\n{"}},
         "spec": {"containers": [{"name": "c", "env": [{"name": "X", "value": "1"}, {"name": "Y"}]}]}}
        for i in range(4)]


@pytest.mark.parametrize("text", [
    _one_a_line(PODS),
    json.dumps({"kind": "List", "apiVersion": "v1", "items": PODS}, indent=4),   # kubectl get -o json
    json.dumps({"kind": "List", "apiVersion": "v1", "items": PODS}, indent=2),
    # an integer orjson would round, NaN (orjson refuses it) and a lone surrogate: the stdlib's items
    _one_a_line([PODS[0], {"kind": "Pod", "v": 123456789012345678901}, {"kind": "Pod", "v": float("nan")},
                 {"kind": "Pod", "s": "\ud800"}, PODS[1]]),
    # nested objects laid out like items: the first cut is inside an item, the stdlib takes over
    '{"kind":"List","items":[\n{"kind":"Pod","a":[{"x":1},\n{"y":2}]},\n{"kind":"Pod"},\n{"kind":"Node"}]}',
    # an item whose end is not where the layout says: the next cut spans two items
    '{"kind":"List","items":[\n{"kind":"Pod","n":1},{"kind":"Pod","n":2},\n{"kind":"Node"},\n{"kind":"Pod","n":3}]}',
    # a typed list whose items carry no kind, the kind after the items
    '{"items":[\n{"metadata":{"name":"a"}},\n{"metadata":{"name":"b"}}\n],"kind":"PodList","apiVersion":"v1"}',
])
def test_items_decoded_by_layout_are_the_stdlibs(text):
    assert repr(streamed(text)) == repr(whole(text))
    assert repr(read_forward(text)) == repr(whole(text))   # each of these is read forward too


@pytest.mark.parametrize("text", [
    json.dumps({"kind": "List", "apiVersion": "v1", "items": PODS + [{"kind": "Pod", "n": "\u00e9\u4e2d"}]},
               indent=4, ensure_ascii=False),   # UTF-8 in the items, ASCII before them
    "\ufeff" + json.dumps({"apiVersion": "v1", "items": PODS, "kind": "List"}, indent=4),   # a byte order mark
    json.dumps({"items": PODS}, indent=4) + "\n" + json.dumps({"kind": "Node", "apiVersion": "v1"}),  # a later document
])
def test_a_list_read_forward_gives_what_its_text_gives(text):
    assert repr(read_forward(text)) == repr(streamed(text.lstrip("\ufeff")))


@pytest.mark.parametrize("text", [
    '[{"kind": "Pod"}]',                                  # not an object
    '{"kind": "List", "items": [{"kind": "Pod"}]}',        # items on the same line: no layout to cut by
    '{"metadata": {"name": "\u00e9"}, "items": [\n{"kind": "Pod"}\n]}',   # not ASCII before the items
    "kind: List\nitems: []\n",                            # YAML
])
def test_a_file_laid_out_otherwise_is_read_as_text(text):
    assert read_forward(text) is None


def test_a_file_read_forward_holds_a_window_not_the_file(monkeypatch):
    from karptui.sources import json_stream

    monkeypatch.setattr(json_stream, "HEAD_BYTES", 4096)   # the List's start is read ahead (1 MiB)
    text = json.dumps({"kind": "List", "items": PODS * 50}, indent=4)
    window = FileWindow(io.BytesIO(text.encode()), 512)
    assert repr(read_forward(text, window=window)) == repr(whole(text))
    assert window.most < len(text) // 10


@pytest.mark.parametrize("text", [
    '{"kind":"List","items":[\n{"kind":"Pod"},\n{"kind":"Pod","a":tru},\n{"kind":"Pod"}]}',
    '{"kind":"List","items":[\n{"kind":"Pod"},\n{"kind":"Pod"}\n{"kind":"Pod"}]}',
])
def test_errors_in_layout_items_name_the_stdlibs_position(text):
    with pytest.raises(json.JSONDecodeError) as refused:
        json.loads(text)
    where = f"line {refused.value.lineno}, column {refused.value.colno}"
    with pytest.raises(InputError, match=f"invalid JSON at {where}"):
        streamed(text)
    with pytest.raises(InputError, match=f"invalid JSON at {where}"):
        read_forward(text)


@pytest.mark.parametrize("text,message", [
    ('{"kind":"List","items":[\n{"kind":"Pod"},\n{"kind":"Pod","a":"\x00"},\n{"kind":"Pod"}]}', "not a text file"),
    ('{"kind":"List","items":[\n{"kind":"Pod"},\n{"kind":"Pod","a":"\udcff"},\n{"kind":"Pod"}]}', "not UTF-8 text"),
])
def test_a_file_read_forward_refuses_bad_bytes_as_its_text_would(text, message):
    with pytest.raises(InputError, match=message):
        read_forward(text)
