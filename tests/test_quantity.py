from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from karptui.model.errors import ModelError
from karptui.model.quantity import format_bytes, format_millis, parse_quantity, to_millis, to_units
from karptui.model.resources import Resources


@pytest.mark.parametrize(
    "text,millis",
    [("100m", 100), ("1", 1000), ("1.5", 1500), ("0.1", 100), ("2e3", 2_000_000), ("1E2", 100_000),
     ("1.25m", 2), ("250u", 1), ("1n", 1), (".5", 500), ("+2", 2000), (3, 3000), (0.5, 500), ("0", 0)],
)
def test_cpu_to_millicores_rounds_up(text, millis):
    assert to_millis(text) == millis


@pytest.mark.parametrize(
    "text,units",
    [("512Ki", 512 * 1024), ("1Mi", 2**20), ("1.5Gi", 3 * 2**29), ("2Ti", 2 * 2**40), ("1Pi", 2**50),
     ("1Ei", 2**60), ("1k", 1000), ("1M", 10**6), ("256M", 256 * 10**6), ("1G", 10**9), ("1T", 10**12),
     ("1P", 10**15), ("1E", 10**18), ("129e6", 129 * 10**6), ("100m", 1), ("58", 58), ("1.1", 2)],
)
def test_units(text, units):
    assert to_units(text) == units


def test_exact_value():
    assert parse_quantity("1.5Gi") == Fraction(3 * 2**29)
    assert parse_quantity("-1") == -1


@pytest.mark.parametrize("bad", ["", "1x", "Mi", "1.2.3", "1 Gi", "0x10", "--1", "1e", [], None, True, float("nan")])
def test_rejects_what_kubernetes_rejects(bad):
    with pytest.raises(ModelError):
        to_millis(bad)


def test_surrounding_whitespace_is_tolerated_as_in_yaml_scalars():
    assert to_units(" 1Gi ") == 2**30


def test_resources_parse_and_arithmetic():
    r = Resources.parse({"cpu": "1500m", "memory": "1Gi", "nvidia.com/gpu": "1"})
    assert r["cpu"] == 1500 and r["memory"] == 2**30 and r["nvidia.com/gpu"] == 1
    total = r + Resources.parse({"cpu": "500m", "pods": "1"})
    assert total["cpu"] == 2000 and total["pods"] == 1
    assert (total - r)["cpu"] == 500
    assert r.exceeding(Resources.parse({"cpu": "1", "memory": "2Gi"})) == ["cpu", "nvidia.com/gpu"]
    assert r.to_quantities() == {"cpu": "1500m", "memory": "1Gi", "nvidia.com/gpu": "1"}


def test_resources_errors_name_the_field():
    with pytest.raises(ModelError, match=r"requests\.cpu: '1x' is not a quantity"):
        Resources.parse({"cpu": "1x"}, "requests")


@given(st.integers(min_value=0, max_value=10**15))
def test_millis_round_trip(millis):
    assert to_millis(format_millis(millis)) == millis


@given(st.integers(min_value=0, max_value=2**62))
def test_bytes_round_trip(count):
    assert to_units(format_bytes(count)) == count


@given(
    st.integers(min_value=0, max_value=10**6),
    st.integers(min_value=0, max_value=999),
    st.sampled_from(["", "m", "k", "M", "G", "Ki", "Mi", "Gi", "Ti"]),
)
def test_any_well_formed_quantity_parses_to_the_exact_value(whole, frac, suffix):
    text = f"{whole}.{frac:03d}{suffix}"
    scale = {"": 1, "m": Fraction(1, 1000), "k": 1000, "M": 10**6, "G": 10**9,
             "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40}[suffix]
    assert parse_quantity(text) == (whole + Fraction(frac, 1000)) * scale


@given(st.text(max_size=12))
def test_arbitrary_text_never_raises_anything_but_model_error(text):
    try:
        to_millis(text)
    except ModelError:
        pass
