"""An installed (non-editable) karptui finds its bundled snapshots and themes."""

import json
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("wheel")
    done = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps", "--no-build-isolation", "-w", str(out), str(REPO)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return next(out.glob("karptui-*.whl"))


def test_wheel_ships_themes_and_snapshots(wheel):
    names = zipfile.ZipFile(wheel).namelist()
    bundled = {p.name for p in (REPO / "snapshots").iterdir() if p.is_file()}
    assert bundled and {f"karptui/_data/snapshots/{n}" for n in bundled} <= set(names)
    assert "karptui/_data/themes/karptui-dark.yaml" in names
    assert "karptui/cluster/karptui-readonly.yaml" in names  # the ClusterRole the README points at
    assert any(n.endswith("entry_points.txt") for n in names)


def test_installed_copy_runs_outside_the_checkout(wheel, tmp_path):
    target = tmp_path / "site"
    done = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(wheel)],
        capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    env = {**os.environ, "PYTHONPATH": str(target)}
    run = subprocess.run(
        [sys.executable, "-c",
         "import karptui, json, sys; from karptui.cli import main;"
         "print(karptui.__file__, file=sys.stderr);"
         "sys.exit(main(['snapshot', 'info', 'topology-spread', '--output', 'json']))"],
        capture_output=True, text=True, timeout=120, cwd=tmp_path, env=env,
    )
    assert run.returncode == 0, run.stderr
    assert run.stderr.strip().startswith(str(target))  # the installed copy, not the repo
    assert json.loads(run.stdout)["nodes"] == 9  # 7 EC2 + 2 Fargate
