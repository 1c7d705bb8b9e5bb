"""The log parser against real pastes (tests/log_corpus): the bar issue 13 sets.

The corpus was labelled blind from the lines and Karpenter's own templates; see
tests/log_corpus/README.md. ``python -m tests.log_corpus.score`` prints every miss.
"""

from tests.log_corpus.score import expected, parse_file, score


def test_at_least_500_real_lines_are_labelled():
    labels = expected()
    assert sum(len(v.get("events") or []) for v in labels.values()) >= 500
    assert len(labels) >= 200


def test_kinds_and_key_fields_agree_with_the_labels_99_percent():
    result = score()
    assert result.kind_rate >= 0.99, "\n".join(result.misses)
    assert result.field_rate >= 0.99, "\n".join(result.misses)


def test_every_physical_line_is_counted_once():
    for name, want in expected().items():
        parser, _ = parse_file(name)
        assert parser.stats.lines == want["lines"], name
