"""kubectl-layout YAML is parsed item by item; the result must equal PyYAML's own."""

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from karptui.sources.yaml_stream import _kubectl_list_documents
from tests.conftest import FIXTURES, REPO

FILES = sorted((REPO / "snapshots").glob("*.yaml")) + sorted((FIXTURES / "dumps").glob("*.yaml"))


def general(text):
    return list(yaml.load_all(text, Loader=yaml.SafeLoader))


@pytest.mark.parametrize("path", FILES, ids=[p.name for p in FILES])
def test_same_objects_as_the_general_parser(path):
    text = path.read_text()
    fast = _kubectl_list_documents(text)
    assert fast is not None
    assert fast == general(text)


scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=12) | st.sampled_from(
    ["- x", "items:", "---", "# not a comment", "a: b", "|", "2024-05-01T10:00:00Z", "0x1F", "yes", "1e3"])
values = st.recursive(scalars, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(
    st.text(min_size=1, max_size=6), inner, max_size=3), max_leaves=12)


@settings(max_examples=200)
@given(st.lists(st.dictionaries(st.text(min_size=1, max_size=6), values, min_size=1, max_size=4), max_size=5),
       st.booleans())
def test_any_kubectl_style_dump_round_trips(items, with_meta):
    listing = {"apiVersion": "v1", "items": items, "kind": "List", "metadata": {"resourceVersion": ""}}
    text = yaml.safe_dump(listing, default_flow_style=False)
    if with_meta:
        text = yaml.safe_dump({"kind": "KarptuiSnapshot", "logs": {"text": "a\n- b\n---\n"}}) + "---\n" + text
    fast = _kubectl_list_documents(text)
    assert fast == general(text)
