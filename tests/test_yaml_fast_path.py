"""kubectl-layout YAML is parsed item by item; the objects must equal PyYAML's own."""

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.errors import InputError
from karptui.sources.lists import flatten
from karptui.sources.yaml_stream import _plan, yaml_objects
from tests.conftest import FIXTURES, REPO

FILES = sorted((REPO / "snapshots").glob("*.yaml")) + sorted((FIXTURES / "dumps").glob("*.yaml"))


def general(text):
    return [o for n, doc in enumerate(yaml.load_all(text, Loader=yaml.SafeLoader), 1) for o in flatten(doc, "f", n)]


def fast(text):
    return list(yaml_objects(text, "f"))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_same_objects_as_the_general_parser(path):
    text = path.read_text()
    assert _plan(text) is not None  # the fast path is really taken on kubectl output
    assert fast(text) == general(text)


def test_errors_inside_an_item_give_the_files_line():
    text = "apiVersion: v1\nitems:\n- kind: Node\n  metadata: {name: a}\n- kind: Node\n  metadata: {name: [\nkind: List\n"
    with pytest.raises(InputError, match="invalid YAML at line 7"):
        fast(text)


def test_anchors_take_the_general_path():
    text = "apiVersion: v1\nitems:\n- &n {kind: Node, apiVersion: v1, metadata: {name: a}}\n- *n\nkind: List\n"
    assert _plan(text) is None
    assert fast(text) == general(text)


scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.sampled_from(
    ["- x", "items:", "---", "# not a comment", "a: b", "|", "2024-05-01T10:00:00Z", "0x1F", "yes", "1e3", "& *"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(min_size=1, max_size=6), inner, max_size=3), max_leaves=12)


@settings(max_examples=200)
@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=6), values, min_size=1, max_size=4), max_size=5),
       st.sampled_from(["List", "PodList"]), st.booleans())
def test_any_kubectl_style_dump_gives_the_same_objects(items, kind, with_meta):
    listing = {"apiVersion": "v1", "items": items, "kind": kind, "metadata": {"resourceVersion": ""}}
    text = yaml.safe_dump(listing, default_flow_style=False)
    if with_meta:
        text = yaml.safe_dump({"kind": "KarptuiSnapshot", "logs": {"text": "a\n- b\n---\n"}}) + "---\n" + text
    assert fast(text) == general(text)
