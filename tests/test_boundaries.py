"""The headless layers import neither textual nor kubernetes (README.md, "Layout").

Every karptui subpackage except the TUI, the command line and the live-cluster
package must stay headless; new packages are covered without editing this test.
"""

import json
import pkgutil
import subprocess
import sys

import pytest

import karptui

FRONTENDS = {"tui", "cli", "cluster"}
HEADLESS = sorted(
    f"karptui.{info.name}" for info in pkgutil.iter_modules(karptui.__path__)
    if info.ispkg and info.name not in FRONTENDS
)


def test_the_core_layers_are_covered():
    assert {"karptui.model", "karptui.sources", "karptui.views"} <= set(HEADLESS)


@pytest.mark.parametrize("package", HEADLESS)
def test_headless_package_imports_no_ui_or_client(package):
    code = f"""
import importlib, json, pkgutil, sys
pkg = importlib.import_module({package!r})
for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
    importlib.import_module(info.name)
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in ("textual", "kubernetes"))))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == []


def test_cli_info_does_not_import_the_tui(tmp_path):
    dump = tmp_path / "d.json"
    dump.write_text(json.dumps({"apiVersion": "v1", "kind": "List",
                                "items": [{"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n1"}}]}))
    code = f"""
import contextlib, io, sys
from karptui.cli import main
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["snapshot", "info", "--output", "json", {str(dump)!r}]) == 0
print(sorted({{m.split(".")[0] for m in sys.modules}} & {{"textual", "kubernetes"}}))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_only_the_cluster_package_imports_the_kubernetes_client():
    """The TUI and the command line reach the live cluster through karptui.cluster, lazily,
    so opening a snapshot never pays for (or needs) the client."""
    code = """
import importlib, pkgutil, sys
import karptui.cli, karptui.tui
for pkg in (karptui.cli, karptui.tui):
    for info in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + "."):
        importlib.import_module(info.name)
print(sorted(m for m in sys.modules if m.split(".")[0] == "kubernetes")[:3])
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_version_imports_neither_the_model_nor_dataclasses():
    """``karptui --version`` builds the parser and nothing else: the settings' flags come from
    their table alone (sim.karpenter.setting_names), so neither the model, the settings' rules,
    dataclasses nor orjson is loaded (issue 28: --version imports only what it uses)."""
    code = """
import contextlib, io, sys
from karptui.cli import main
with contextlib.redirect_stdout(io.StringIO()) as out:
    try:
        main(["--version"])
    except SystemExit as exc:
        assert exc.code == 0
assert out.getvalue().startswith("karptui "), out.getvalue()
heavy = {"dataclasses", "orjson", "pathlib", "karptui.model", "karptui.sim.karpenter.settings",
         "karptui.sim.karpenter.versions"}
print(sorted(heavy & set(sys.modules)))
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"
