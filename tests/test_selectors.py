import pytest
from hypothesis import given
from hypothesis import strategies as st

from karptui.model.errors import ModelError
from karptui.model.selectors import (
    LABEL_OPERATORS,
    parse_label_selector,
    parse_node_selector,
    parse_requirement,
)

LABELS = {"app": "web", "tier": "front", "gen": "5"}


@pytest.mark.parametrize(
    "selector,expected",
    [
        ({}, True),  # empty selector: everything
        ({"matchLabels": {"app": "web"}}, True),
        ({"matchLabels": {"app": "db"}}, False),
        ({"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front", "back"]}]}, True),
        ({"matchExpressions": [{"key": "tier", "operator": "NotIn", "values": ["front"]}]}, False),
        ({"matchExpressions": [{"key": "absent", "operator": "NotIn", "values": ["x"]}]}, True),
        ({"matchExpressions": [{"key": "app", "operator": "Exists"}]}, True),
        ({"matchExpressions": [{"key": "app", "operator": "DoesNotExist"}]}, False),
        ({"matchExpressions": [{"key": "absent", "operator": "DoesNotExist"}]}, True),
        ({"matchLabels": {"app": "web"},
          "matchExpressions": [{"key": "tier", "operator": "In", "values": ["back"]}]}, False),
    ],
)
def test_label_selector(selector, expected):
    assert parse_label_selector(selector, "sel").matches(LABELS) is expected


def test_absent_selector_is_none():
    assert parse_label_selector(None, "sel") is None


@pytest.mark.parametrize(
    "term,name,expected",
    [
        ({"matchExpressions": [{"key": "gen", "operator": "Gt", "values": ["4"]}]}, "n1", True),
        ({"matchExpressions": [{"key": "gen", "operator": "Lt", "values": ["5"]}]}, "n1", False),
        ({"matchExpressions": [{"key": "app", "operator": "Gt", "values": ["1"]}]}, "n1", False),  # not an int
        ({"matchExpressions": [{"key": "absent", "operator": "Gt", "values": ["1"]}]}, "n1", False),
        ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}, "n1", True),
        ({"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n1"]}]}, "n2", False),
        ({"matchFields": [{"key": "metadata.name", "operator": "NotIn", "values": ["n1"]}]}, "n2", True),
        ({}, "n1", False),  # an empty term matches no node
    ],
)
def test_node_selector_term(term, name, expected):
    selector = parse_node_selector({"nodeSelectorTerms": [term]}, "ns")
    assert selector.matches(LABELS, name) is expected


def test_node_selector_terms_are_ored():
    selector = parse_node_selector(
        {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "app", "operator": "In", "values": ["db"]}]},
            {"matchExpressions": [{"key": "tier", "operator": "In", "values": ["front"]}]},
        ]},
        "ns",
    )
    assert selector.matches(LABELS, "n")
    assert not parse_node_selector({"nodeSelectorTerms": []}, "ns").matches(LABELS, "n")


@pytest.mark.parametrize(
    "raw,message",
    [
        ({"key": "a", "operator": "Like", "values": ["x"]}, "operator: 'Like'"),
        ({"key": "a", "operator": "In"}, "needs at least one value"),
        ({"key": "a", "operator": "Gt", "values": ["1", "2"]}, "exactly one integer"),
        ({"operator": "Exists"}, "key: missing"),
    ],
)
def test_bad_requirements(raw, message):
    from karptui.model.selectors import NODE_OPERATORS

    with pytest.raises(ModelError, match=message):
        parse_requirement(raw, "req", NODE_OPERATORS)


def test_matchfields_other_than_name_rejected():
    with pytest.raises(ModelError, match="metadata.name"):
        parse_node_selector({"nodeSelectorTerms": [{"matchFields": [
            {"key": "spec.unschedulable", "operator": "In", "values": ["true"]}]}]}, "ns")


keys = st.sampled_from(["a", "b", "c"])
values = st.sampled_from(["1", "2", "x"])
label_maps = st.dictionaries(keys, values, max_size=3)
expressions = st.fixed_dictionaries({
    "key": keys,
    "operator": st.sampled_from(sorted(LABEL_OPERATORS)),
    "values": st.lists(values, min_size=1, max_size=3),
})


def _reference(expr: dict, labels: dict) -> bool:
    """Kubernetes' documented semantics, written independently of the model."""
    present = expr["key"] in labels
    op = expr["operator"]
    if op == "Exists":
        return present
    if op == "DoesNotExist":
        return not present
    if op == "In":
        return present and labels[expr["key"]] in expr["values"]
    return not present or labels[expr["key"]] not in expr["values"]


@given(st.lists(expressions, max_size=3), label_maps, label_maps)
def test_selector_is_conjunction_of_its_parts(exprs, match_labels, labels):
    selector = parse_label_selector({"matchLabels": match_labels, "matchExpressions": exprs}, "s")
    expected = all(labels.get(k) == v for k, v in match_labels.items()) and all(
        _reference(e, labels) for e in exprs
    )
    assert selector.matches(labels) is expected


@given(st.lists(expressions, max_size=3), label_maps)
def test_notin_is_the_complement_of_in(exprs, labels):
    for expr in exprs:
        if expr["operator"] in ("In", "NotIn"):
            pos = parse_label_selector({"matchExpressions": [{**expr, "operator": "In"}]}, "s")
            neg = parse_label_selector({"matchExpressions": [{**expr, "operator": "NotIn"}]}, "s")
            assert pos.matches(labels) != neg.matches(labels)


@given(st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=5),
                    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
                    max_leaves=10))
def test_arbitrary_json_never_raises_anything_but_model_error(raw):
    try:
        parse_label_selector(raw, "s")
        parse_node_selector(raw, "s")
    except ModelError:
        pass
