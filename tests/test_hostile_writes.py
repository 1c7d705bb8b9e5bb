"""Writing files in a hostile world (issue 12): what ``snapshot save`` leaves out, and how
karptui's one writer treats links, crashes, permissions, read-only targets and the open file.

Everything is checked where the user meets it: the saved file's text, the file system
afterwards, the command's exit status and stderr, the TUI through Pilot.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest
import yaml
from textual.app import App
from textual.screen import ModalScreen
from textual.widgets import Input, Static

from karptui.cluster.redact import REDACTED, redact
from karptui.errors import InputError
from karptui.model import SnapshotMeta
from karptui.sources import load_snapshot, write_snapshot
from karptui.sources.logs import attach_logs
from karptui.tui.screens.whatif import WhatIfScreen
from karptui.whatif import WhatIf, save_whatif
from karptui.whatif.io import dump_whatif
from tests.conftest import REPO, node_obj, pod_obj
from tests.fakeapi import FakeAPI
from tests.test_live import nodepool, only_gets

META = SnapshotMeta(name="t", context="ctx")


# ---------------------------------------------------------------- finding 3: what a snapshot keeps out

SECRETS: list[str] = []


def secret(where: str) -> str:
    """A string that must not reach the file, remembered so the test can look for every one."""
    value = f"s3cr3t-{where}"
    SECRETS.append(value)
    return value


def spec_copies(where: str) -> dict:
    """The annotations tools write with a copy of the object, plus one ordinary annotation."""
    return {"kubectl.kubernetes.io/last-applied-configuration": json.dumps({"password": secret(f"{where}-kubectl")}),
            "kapp.k14s.io/original": json.dumps({"password": secret(f"{where}-kapp")}),
            "objectset.rio.cattle.io/applied": secret(f"{where}-rio"),
            "example.com/team": "payments"}


def container(where: str) -> dict:
    return {"name": "c", "image": "app:1",
            "command": ["/bin/sh", "-c", f"serve --token={secret(f'{where}-command')}"],
            "args": [f"--db-password={secret(f'{where}-args')}"],
            "env": [{"name": "DB", "value": secret(f"{where}-env")},
                    {"name": "KEY", "valueFrom": {"secretKeyRef": {"name": "db", "key": "key"}}}],
            "resources": {"requests": {"cpu": "100m", "memory": "64Mi"}},
            "livenessProbe": {"exec": {"command": ["check", secret(f"{where}-probe")]}},
            "readinessProbe": {"httpGet": {"path": "/", "port": 80, "httpHeaders": [
                {"name": "Authorization", "value": f"Bearer {secret(f'{where}-header')}"}]}},
            "lifecycle": {"preStop": {"exec": {"command": ["drain", secret(f"{where}-hook")]}}}}


def pod_spec(where: str) -> dict:
    return {"containers": [container(where)], "initContainers": [container(f"{where}-init")]}


def managed(where: str) -> list:
    return [{"manager": "kubectl", "operation": "Update", "fieldsV1": {f"f:{secret(f'{where}-managed')}": {}}}]


def workload(kind: str, api_version: str) -> dict:
    name = kind.lower()
    obj = {"apiVersion": api_version, "kind": kind,
           "metadata": {"name": name, "namespace": "default", "uid": f"uid-{name}", "labels": {"app": name},
                        "annotations": spec_copies(kind), "managedFields": managed(kind)},
           "spec": {"selector": {"matchLabels": {"app": name}},
                    "template": {"metadata": {"labels": {"app": name}, "annotations": spec_copies(f"{kind}-template")},
                                 "spec": pod_spec(f"{kind}-template")}}}
    if kind != "Job":
        obj["spec"]["replicas"] = 1
    return obj


def hostile_cluster(api: FakeAPI) -> None:
    api.add(node_obj("node-0"))
    pod = pod_obj("web-0", node="node-0")
    pod["metadata"].update(annotations=spec_copies("Pod"), managedFields=managed("Pod"))
    pod["spec"].update(pod_spec("Pod"))
    pod["spec"]["ephemeralContainers"] = [container("Pod-ephemeral")]
    api.add(pod)
    for kind, version in (("Deployment", "apps/v1"), ("ReplicaSet", "apps/v1"), ("StatefulSet", "apps/v1"),
                          ("DaemonSet", "apps/v1"), ("Job", "batch/v1")):
        api.add(workload(kind, version))
    api.add(nodepool("default"))
    api.add({"apiVersion": "karpenter.k8s.aws/v1", "kind": "EC2NodeClass",
             "metadata": {"name": "default", "annotations": spec_copies("EC2NodeClass")},
             "spec": {"role": "KarpenterNodeRole", "amiSelectorTerms": [{"alias": "al2023@latest"}],
                      "userData": f"#!/bin/bash\nexport JOIN_TOKEN={secret('userData')}\n"}})


def test_snapshot_save_keeps_no_copy_of_a_secret(tmp_path, cli):
    SECRETS.clear()
    with FakeAPI() as api:
        hostile_cluster(api)
        out = tmp_path / "cluster.yaml"
        code, stdout, err = cli("snapshot", "save", out, "--kubeconfig", api.kubeconfig(tmp_path / "k"),
                                "--logs-since", "0")
        only_gets(api)
    assert code == 0 and stdout.startswith("saved 9 objects"), err
    raw = out.read_text()
    assert len(SECRETS) > 60
    assert [s for s in SECRETS if s in raw] == []
    assert "s3cr3t" not in raw  # nothing partial either
    assert "managedFields" not in raw and "last-applied-configuration" not in raw
    assert "kapp.k14s.io/original" not in raw and "objectset.rio.cattle.io/applied" not in raw
    snapshot = load_snapshot(out)
    assert sorted(w.kind for w in snapshot.workloads) == ["DaemonSet", "Deployment", "Job", "ReplicaSet",
                                                          "StatefulSet"]
    # What is kept, and how a redaction looks: the field is still there.
    docs = list(yaml.safe_load_all(raw))
    objects = {(o["kind"], o["metadata"]["name"]): o for o in docs[1]["items"]}
    deployment = objects[("Deployment", "deployment")]
    # only the annotations karptui reads are saved (an ordinary one of a team's is not)
    assert "annotations" not in deployment["metadata"] or deployment["metadata"]["annotations"] == {}
    template = deployment["spec"]["template"]
    assert template["metadata"] == {"labels": {"app": "deployment"}, "annotations": {}}
    app = template["spec"]["containers"][0]
    assert app["command"] == [REDACTED] and app["args"] == [REDACTED]
    assert app["env"] == []   # neither literal values nor Secret references: only Karpenter's settings
    assert "livenessProbe" not in app and "readinessProbe" not in app and "lifecycle" not in app
    assert app["resources"] == {"requests": {"cpu": "100m", "memory": "64Mi"}} and app["image"] == "app:1"
    pod = objects[("Pod", "web-0")]
    assert "ephemeralContainers" not in pod["spec"]   # karptui reads none
    node_class = objects[("EC2NodeClass", "default")]
    assert node_class["spec"]["userData"] == REDACTED
    assert node_class["spec"]["amiSelectorTerms"] == [{"alias": "al2023@latest"}]


def test_an_aws_node_template_loses_its_user_data_too():
    template = {"apiVersion": "karpenter.k8s.aws/v1alpha1", "kind": "AWSNodeTemplate", "metadata": {"name": "a"},
                "spec": {"userData": "password=hunter2", "amiFamily": "AL2"}}
    assert redact(template)["spec"] == {"userData": REDACTED, "amiFamily": "AL2"}


# ---------------------------------------------------------------- finding 15: links, crashes, modes, read-only

OBJECTS = [node_obj("n1"), pod_obj("web-1", node="n1")]


def hidden(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.mark.parametrize("absolute", [True, False])
def test_saving_through_a_symlink_keeps_the_link_and_replaces_its_target(tmp_path, absolute):
    real = tmp_path / "real"
    real.mkdir()
    target = real / "snap.json"
    target.write_text("old")
    link = tmp_path / "snap.json"
    link.symlink_to(target if absolute else Path("real") / "snap.json")
    write_snapshot(link, OBJECTS, META)
    assert link.is_symlink() and os.readlink(link) == str(target if absolute else Path("real") / "snap.json")
    assert len(load_snapshot(target).nodes) == 1
    assert hidden(tmp_path) == [] and hidden(real) == []


def test_a_link_to_a_link_to_a_new_file_creates_the_file(tmp_path):
    (tmp_path / "b").symlink_to("c.json")
    (tmp_path / "a").symlink_to("b")
    save_whatif(tmp_path / "a", WhatIf("w", ()))
    assert (tmp_path / "a").is_symlink() and (tmp_path / "b").is_symlink()
    assert (tmp_path / "c.json").read_text() == dump_whatif(WhatIf("w", ()))


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to make a link owned by someone else")
def test_a_link_someone_else_planted_in_a_shared_directory_is_not_followed(tmp_path):
    shared = tmp_path / "shared"
    shared.mkdir()
    shared.chmod(0o1777)  # like /tmp
    precious = tmp_path / "precious"
    precious.write_text("keep")
    link = shared / "out.json"
    link.symlink_to(precious)
    os.lchown(link, 65534, 65534)  # planted by another user
    with pytest.raises(InputError) as caught:
        write_snapshot(link, OBJECTS, META)
    assert "not followed" in str(caught.value) and "\n" not in str(caught.value)
    assert precious.read_text() == "keep" and link.is_symlink()


KILLED_WRITER = """
import os, sys, time
os.fsync = lambda fd: (open(sys.argv[2], "w").close(), time.sleep(60))  # hangs in fsync, as on a slow disk
from karptui.model import SnapshotMeta
from karptui.sources import write_snapshot
write_snapshot(sys.argv[1], [{"kind": "Node", "metadata": {"name": "n" * 1000}}] * 100, SnapshotMeta(name="x"))
"""


def test_a_writer_killed_during_fsync_leaves_a_temp_file_the_next_save_removes(tmp_path):
    out, started = tmp_path / "snap.json", tmp_path / "in-fsync"
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    writer = subprocess.Popen([sys.executable, "-c", KILLED_WRITER, str(out), str(started)], env=env)
    try:
        deadline = time.monotonic() + 30
        while not started.exists():
            assert writer.poll() is None and time.monotonic() < deadline
            time.sleep(0.05)
    finally:
        writer.kill()
        writer.wait()
    started.unlink()
    left = hidden(tmp_path)
    assert len(left) == 1 and left[0].startswith(f".snap.json.karptui-{writer.pid}-") and left[0].endswith(".tmp")
    assert (tmp_path / left[0]).stat().st_size > 100_000  # the whole snapshot, hidden
    alive = tmp_path / f".other.json.karptui-{os.getppid()}-0123abcd.tmp"  # a writer still at work
    alive.write_text("x")
    foreign = tmp_path / ".snap.json.tmp"  # not karptui's: left alone
    foreign.write_text("x")
    write_snapshot(out, OBJECTS, META)
    assert hidden(tmp_path) == sorted([alive.name, foreign.name])
    assert len(load_snapshot(out).nodes) == 1


@pytest.fixture
def umask():
    """Set the process umask for one test, and put the old one back."""
    old = os.umask(0o022)
    yield os.umask
    os.umask(old)


@pytest.mark.parametrize("mask, mode", [(0o022, 0o644), (0o002, 0o664), (0o077, 0o600)])
def test_a_new_snapshot_follows_the_umask(tmp_path, umask, mask, mode):
    umask(mask)
    write_snapshot(tmp_path / "snap.json.gz", OBJECTS, META)
    assert stat.S_IMODE((tmp_path / "snap.json.gz").stat().st_mode) == mode


def test_a_new_whatif_follows_the_umask_and_a_replaced_file_keeps_its_mode(tmp_path, umask):
    umask(0o022)
    path = tmp_path / "w.yaml"
    save_whatif(path, WhatIf("w", ()))
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
    path.chmod(0o640)
    save_whatif(path, WhatIf("w2", ()))
    assert stat.S_IMODE(path.stat().st_mode) == 0o640 and "w2" in path.read_text()


def as_an_ordinary_user() -> list[str]:
    """A command prefix under which file permissions bind: root loses its override of them."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.skip("running as root without setpriv: no way to make a file read-only for this test")
    return [setpriv, "--bounding-set", "-dac_override,-dac_read_search"]


def save_in_a_process(out: Path, kubeconfig: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    return subprocess.run([*as_an_ordinary_user(), sys.executable, "-m", "karptui", "snapshot", "save", str(out),
                           "--kubeconfig", kubeconfig], env=env, capture_output=True, text=True, timeout=120,
                          check=False)


def test_a_read_only_directory_fails_before_the_cluster_is_asked_anything(tmp_path):
    folder = tmp_path / "ro"
    folder.mkdir()
    folder.chmod(0o555)
    with FakeAPI() as api:
        api.add(node_obj("n1"))
        done = save_in_a_process(folder / "snap.json", api.kubeconfig(tmp_path / "k"))
        assert api.requests == []
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == f"karptui: {folder / 'snap.json'}: directory {folder} is not writable\n"
    assert list(folder.iterdir()) == []


def test_a_read_only_snapshot_is_not_replaced_and_the_cluster_is_not_asked(tmp_path):
    out = tmp_path / "snap.json"
    out.write_text("keep")
    out.chmod(0o444)
    with FakeAPI() as api:
        api.add(node_obj("n1"))
        done = save_in_a_process(out, api.kubeconfig(tmp_path / "k"))
        assert api.requests == []
    assert done.returncode == 2
    assert done.stderr == f"karptui: {out}: is read-only; not replaced\n"
    assert out.read_text() == "keep" and hidden(tmp_path) == []


# ---------------------------------------------------------------- finding 14: the TUI asks before it overwrites

class Host(App):
    def __init__(self, snapshot) -> None:
        super().__init__()
        self.whatif = WhatIfScreen(snapshot, None)

    def on_mount(self) -> None:
        self.push_screen(self.whatif)


async def save_as(pilot, path) -> None:
    await pilot.press("ctrl+s")
    pilot.app.whatif.query_one("#path", Input).value = str(path)
    await pilot.press("enter")
    await pilot.pause()


def error(pilot) -> str:
    return str(pilot.app.whatif.query_one("#error", Static).content)


@pytest.fixture
def opened(tmp_path):
    """A snapshot file, as opened in the TUI (its path is the snapshot's source)."""
    path = tmp_path / "open.json"
    write_snapshot(path, OBJECTS, META)
    return load_snapshot(path)


async def test_saving_over_an_existing_file_asks_first_and_no_is_the_default(tmp_path, opened):
    existing = tmp_path / "w.yaml"
    existing.write_text("keep me")
    async with Host(opened).run_test(size=(160, 50)) as pilot:
        await save_as(pilot, existing)
        assert isinstance(pilot.app.screen, ModalScreen)
        question = " ".join(str(s.content) for s in pilot.app.screen.query(Static))
        assert str(existing) in question and "overwrite" in question.lower()
        await pilot.press("enter")                          # the default answer: no
        await pilot.pause()
        assert pilot.app.screen is pilot.app.whatif and existing.read_text() == "keep me"
        assert "not saved" in error(pilot)
        await save_as(pilot, existing)
        await pilot.press("escape")                         # escape is no too
        await pilot.pause()
        assert pilot.app.screen is pilot.app.whatif and existing.read_text() == "keep me"
        await save_as(pilot, existing)
        await pilot.press("y")                              # yes, overwrite
        await pilot.pause()
        assert pilot.app.screen is pilot.app.whatif and error(pilot) == ""
    assert existing.read_text() == dump_whatif(WhatIf("tui-whatif", ()))


async def test_a_new_file_is_saved_without_a_question(tmp_path, opened):
    async with Host(opened).run_test(size=(160, 50)) as pilot:
        await save_as(pilot, tmp_path / "new.yaml")
        assert pilot.app.screen is pilot.app.whatif and error(pilot) == ""
    assert (tmp_path / "new.yaml").read_text() == dump_whatif(WhatIf("tui-whatif", ()))


async def test_the_open_snapshot_is_never_overwritten(tmp_path, opened):
    source = Path(opened.meta.source)
    before = source.read_bytes()
    (tmp_path / "link.json").symlink_to(source)
    async with Host(opened).run_test(size=(160, 50)) as pilot:
        for spelling in (source, tmp_path / "link.json", f"{tmp_path}/./open.json"):
            await save_as(pilot, spelling)
            assert pilot.app.screen is pilot.app.whatif     # refused outright, no question
            assert error(pilot) == f"{spelling}: is the snapshot open in this session; not overwritten"
    assert source.read_bytes() == before


async def test_nor_a_file_of_an_open_snapshot_directory_or_the_open_log_file(tmp_path):
    folder = tmp_path / "dump"
    folder.mkdir()
    write_snapshot(folder / "nodes.json", OBJECTS, META)
    log = tmp_path / "karpenter.log"
    log.write_text('{"level":"INFO","message":"x"}\n')
    opened = attach_logs(load_snapshot(folder), log)
    async with Host(opened).run_test(size=(160, 50)) as pilot:
        await save_as(pilot, folder / "nodes.json")
        assert error(pilot) == f"{folder / 'nodes.json'}: is the snapshot open in this session; not overwritten"
        await save_as(pilot, log)
        assert error(pilot) == f"{log}: is the log file open in this session; not overwritten"
        assert pilot.app.screen is pilot.app.whatif
    assert len(load_snapshot(folder / "nodes.json").nodes) == 1 and log.read_text().startswith('{"level"')
