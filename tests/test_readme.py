"""Every file and document the README and docs/ point at is in the repository."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
TOP = ("karptui/", "tests/", "docs/", "bench/", "tools/", "snapshots/", "themes/", ".ci/")


def mentioned_paths(text: str) -> set[str]:
    """Repository paths: in backticks, in markdown links, and as arguments in the examples."""
    found = set()
    for token in re.findall(r"`([^`\s]+)`", text) + re.findall(r"[\s=]([\w.][\w./-]*/[\w./-]+)", text):
        token = token.rstrip(".,;:)")
        if token.startswith(TOP) and not re.fullmatch(r"karptui/v\d\w*", token):  # an apiVersion
            found.add(token)
    return found


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_path_mentioned_exists(document):
    text = document.read_text()
    missing = [p for p in sorted(mentioned_paths(text)) if not (ROOT / p).exists()]
    assert not missing, f"{document.name} names files that are not in the repository: {missing}"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_resolves_inside_the_repository(document):
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", document.read_text()):
        assert not target.startswith(("http:", "https:")) or "github.com" not in target
        if not target.startswith(("http:", "https:")):
            assert (document.parent / target).resolve().is_relative_to(ROOT)
            assert (document.parent / target).exists(), f"{document.name} links {target}, which does not exist"


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_reference_to_a_design_document_outside_the_repository(document):
    """The contracts the README relies on are docs/'s own files, not a DESIGN.md the repository lacks."""
    assert not re.search(r"\bDESIGN\b", document.read_text())


def test_the_readme_whatif_example_runs(cli):
    example = next(line for line in (ROOT / "README.md").read_text().splitlines() if "--whatif" in line
                   and line.startswith("karptui simulate"))
    path = re.search(r"--whatif (\S+)", example)[1]
    code, _, err = cli("simulate", "topology-spread", "--whatif", ROOT / path, "-o", "json")
    assert code == 0, err
