"""docs/karpenter-spec.md's table of the ported Karpenter suite is the one tools/spec_counts.py prints.

The counts per upstream file (ported, divergent, derived, skipped by kind) are a promise the docs make;
porting or skipping a test without regenerating the table breaks it.
"""

from __future__ import annotations

import subprocess
import sys

from tests.conftest import REPO


def test_the_docs_table_is_what_the_counting_tool_prints():
    printed = subprocess.run([sys.executable, str(REPO / "tools" / "spec_counts.py"), "--markdown"],
                             capture_output=True, text=True, check=True, cwd=REPO).stdout
    docs = (REPO / "docs" / "karpenter-spec.md").read_text()
    assert printed.strip() in docs, "regenerate the table: python tools/spec_counts.py --markdown"


def test_every_folder_and_list_names_its_upstream_file():
    printed = subprocess.run([sys.executable, str(REPO / "tools" / "spec_counts.py")],
                             capture_output=True, text=True, check=True, cwd=REPO).stdout
    rows = [line for line in printed.splitlines()[1:-1] if line.strip()]
    assert rows and all(line.rstrip().endswith("_test.go") for line in rows), printed
