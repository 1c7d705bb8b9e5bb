"""Saving snapshots: the format round-trips, and writes are atomic."""

from datetime import datetime, timezone

import pytest

from karptui.model import SnapshotMeta
from karptui.sources import load_snapshot, write_snapshot
from tests.conftest import node_obj, pod_obj

META = SnapshotMeta(name="prod", captured_at=datetime(2024, 5, 1, 12, tzinfo=timezone.utc), context="ctx",
                    cluster="prod", kubernetes_version="v1.30.4", logs_source="karpenter/k-1/controller",
                    logs_text='{"level":"INFO","message":"found provisionable pod(s)"}\n')
OBJECTS = [node_obj("n1"), pod_obj("web-1", node="n1"), pod_obj("web-2")]


@pytest.mark.parametrize("name", ["snap.yaml", "snap.json", "snap.yaml.gz", "snap.json.gz"])
def test_round_trip(tmp_path, name):
    path = tmp_path / name
    write_snapshot(path, OBJECTS, META)
    snap = load_snapshot(path)
    assert (len(snap.nodes), len(snap.pods), len(snap.pending_pods)) == (1, 2, 1)
    assert snap.meta.name == "prod" and snap.meta.captured_at == META.captured_at
    assert snap.meta.logs_text == META.logs_text and snap.meta.kubernetes_version == "v1.30.4"
    assert snap.warnings == ()
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left


def test_failed_write_keeps_the_old_file(tmp_path):
    path = tmp_path / "snap.json"
    write_snapshot(path, OBJECTS, META)
    before = path.read_bytes()
    with pytest.raises(TypeError):
        write_snapshot(path, [{"kind": "Node", "bad": object()}], META)
    assert path.read_bytes() == before
    assert [p.name for p in tmp_path.iterdir()] == ["snap.json"]
