"""Shared test helpers: builders for raw Kubernetes objects and a CLI runner."""

from __future__ import annotations

import html
import json
import pickle
import re
from pathlib import Path

import pytest
from hypothesis import settings

from karptui.cli import main

# Wall-clock deadlines make property tests flaky on a busy 2-core CI machine.
settings.register_profile("karptui", deadline=None)
settings.load_profile("karptui")

REPO = Path(__file__).resolve().parent.parent
FIXTURES = Path(__file__).resolve().parent / "fixtures"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """A snapshot that does not match says in the test's own report which rows of text differ.

    pytest-textual-snapshot shows the two screens in an HTML report, which a CI log only names:
    a mismatch seen once under load (and never again on a quiet machine) could not be read."""
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or not report.failed or "snap_compare" not in getattr(item, "fixturenames", ()):
        return
    try:
        from pytest_textual_snapshot import node_to_report_path

        data = pickle.loads(node_to_report_path(item).read_bytes())
        expected, actual = _svg_rows(str(data[1])), _svg_rows(str(data[2]))
    except Exception as exc:  # noqa: BLE001 -- a diagnosis must never hide the failure itself
        report.sections.append(("snapshot rows", f"(could not read the screens: {exc})"))
        return
    lines = [f"row {n:2}: expected {want!r}\n        actual   {got!r}"
             for n, (want, got) in enumerate(zip(expected, actual)) if want != got]
    if len(expected) != len(actual):
        lines.append(f"{len(expected)} rows expected, {len(actual)} drawn")
    report.sections.append(("snapshot rows that differ",
                            "\n".join(lines) or "every row's text is the same: the difference is colour or style"))


def _svg_rows(svg: str) -> list[str]:
    """The text of a Textual SVG screenshot, one string per terminal row (its y position)."""
    rows: dict[float, list[str]] = {}
    for y, text in re.findall(r'<text[^>]*\by="([\d.]+)"[^>]*>(.*?)</text>', svg, flags=re.S):
        rows.setdefault(float(y), []).append(html.unescape(re.sub(r"<[^>]+>", "", text)).replace("\xa0", " "))
    return ["".join(parts).rstrip() for _, parts in sorted(rows.items())]


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    """Every test gets its own empty KARPTUI_CONFIG_DIR, never the real user's themes."""
    monkeypatch.setenv("KARPTUI_CONFIG_DIR", str(tmp_path / "config"))
    return tmp_path / "config"


def node_obj(name: str, zone: str = "us-east-1a", cpu: str = "3920m", memory: str = "15Gi",
             pods: str = "58", labels: dict | None = None, **spec) -> dict:
    """A Node as the API returns it, with EKS's usual labels."""
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": f"uid-{name}", "creationTimestamp": "2024-05-01T10:00:00Z",
                     "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone,
                                "topology.kubernetes.io/region": zone[:-1], **(labels or {})}},
        "spec": spec,
        "status": {"allocatable": {"cpu": cpu, "memory": memory, "pods": pods},
                   "capacity": {"cpu": "4", "memory": "16Gi", "pods": pods},
                   "conditions": [{"type": "Ready", "status": "True"}]},
    }


def pod_obj(name: str, namespace: str = "default", node: str | None = None, cpu: str = "100m",
            memory: str = "128Mi", labels: dict | None = None, **spec) -> dict:
    """A Pod as the API returns it; pending unless ``node`` is given."""
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{namespace}-{name}",
                     "creationTimestamp": "2024-05-01T11:00:00Z", "labels": labels or {}},
        "spec": {"containers": [{"name": "app", "image": "app:1",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}}}],
                 **({"nodeName": node} if node else {}), **spec},
        "status": {"phase": "Running" if node else "Pending"},
    }


def kube_list(*items: dict) -> dict:
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": list(items)}


@pytest.fixture(scope="session")
def seed():
    """The bundled consolidation seed and its region's catalog (immutable: shared by every test)."""
    from karptui.catalog import catalog_from_snapshot_region
    from karptui.sources import bundled_snapshot, load_snapshot

    snapshot = load_snapshot(bundled_snapshot("consolidation"))
    return snapshot, catalog_from_snapshot_region(snapshot)


@pytest.fixture
def write(tmp_path):
    """Write text, bytes or an object (as JSON) to a file under tmp_path."""

    def _write(name: str, content) -> Path:
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content)
        else:
            path.write_text(json.dumps(content))
        return path

    return _write


@pytest.fixture
def cli(capsys):
    """Run ``karptui ARGS`` in-process: (exit code, stdout, stderr)."""

    def _run(*args: str) -> tuple[int, str, str]:
        try:
            code = main([str(a) for a in args])
        except SystemExit as exc:  # argparse usage errors and --help
            code = exc.code
        out = capsys.readouterr()
        return code, out.out, out.err

    return _run


@pytest.fixture
def kubeconfig(api, tmp_path):
    """A kubeconfig pointing at the module's fake API server (its ``api`` fixture)."""
    return api.kubeconfig(tmp_path / "kubeconfig")


def settled(*keys):
    """A snapshot test's ``run_before``: wait for the app's workers (the simulation), then press
    ``keys`` one by one, letting each redraw."""
    async def run_before(pilot):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()
        for key in keys:
            await pilot.press(key)
            await pilot.pause()
    return run_before
