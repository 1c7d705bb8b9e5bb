import pytest

from karptui.model.taints import Taint, first_untolerated, parse_taint, parse_toleration

GPU = Taint("nvidia.com/gpu", "true", "NoSchedule")


@pytest.mark.parametrize(
    "toleration,expected",
    [
        ({"key": "nvidia.com/gpu", "operator": "Equal", "value": "true", "effect": "NoSchedule"}, True),
        ({"key": "nvidia.com/gpu", "value": "true"}, True),  # Equal is the default, any effect
        ({"key": "nvidia.com/gpu", "operator": "Exists"}, True),
        ({"operator": "Exists"}, True),  # tolerates everything
        ({"key": "nvidia.com/gpu", "value": "false"}, False),
        ({"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoExecute"}, False),
        ({"key": "other", "operator": "Exists"}, False),
    ],
)
def test_toleration_matching(toleration, expected):
    assert parse_toleration(toleration, "t").tolerates(GPU) is expected


def test_prefer_no_schedule_does_not_block():
    soft = Taint("spot", "true", "PreferNoSchedule")
    assert first_untolerated([soft, GPU], []) == GPU
    assert first_untolerated([soft], []) is None


def test_taint_text_is_kube_schedulers():
    assert str(parse_taint({"key": "eks.amazonaws.com/compute-type", "value": "fargate",
                            "effect": "NoSchedule"}, "t")) == "{eks.amazonaws.com/compute-type: fargate}"
