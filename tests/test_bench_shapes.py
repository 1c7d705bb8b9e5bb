"""The benchmark's cluster shapes (bench/gen_cluster.py --shape) and its one command
(bench/bench_commands.py): each shape is a dump ``karptui snapshot info`` reads, carrying what
real pods carry; ``classic`` stays the generator's original output for a seed; the command
refuses bad arguments in one line and measures a tiny cluster end to end."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parent.parent / "bench"
sys.path.insert(0, str(BENCH))
import all_figures  # noqa: E402
import bench_commands  # noqa: E402
import gen_cluster  # noqa: E402

# sha256 of write_json(generate(30, 300, seed=7)) by the generator as it was before shapes
# existed (commit b7c0cfa): old benchmark figures stay comparable only while this holds.
CLASSIC_30_300_SEED7 = "2e7a849666503ad764d9110e6b6f17e39b3afc00d0fc971e3fdad43df48f1bc7"


def dump(shape: str, nodes: int, pods: int, path: Path | None = None, pending: float | None = None) -> bytes:
    s = gen_cluster.SHAPES[shape]
    doc = gen_cluster.generate(nodes, pods, seed=7, pending_fraction=s.pending_fraction if pending is None else pending,
                               shape=shape)
    out = io.BytesIO()
    gen_cluster.write_json(doc, out)
    if path is not None:
        path.write_bytes(out.getvalue())
    return out.getvalue()


def test_classic_is_the_original_output_byte_for_byte(monkeypatch):
    # the generator's own instance data, not the shared data file that sits beside some checkouts
    # (CI's) and not others: the pin is of the built-in fallback
    monkeypatch.setattr(gen_cluster, "_catalog_path", lambda explicit: None)
    assert hashlib.sha256(dump("classic", 30, 300, pending=0.02)).hexdigest() == CLASSIC_30_300_SEED7
    assert gen_cluster.generate(30, 300, seed=7) == gen_cluster.generate(30, 300, seed=7, shape="classic")


def info(path: Path) -> dict:
    done = subprocess.run([sys.executable, "-m", "karptui", "snapshot", "info", str(path), "-o", "json"],
                          capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("shape", ["web", "batch"])
def test_each_shape_is_a_dump_snapshot_info_reads(shape, tmp_path):
    path = tmp_path / f"{shape}.json"
    dump(shape, 60, 60 * gen_cluster.SHAPES[shape].pods_per_node, path)
    items = json.loads(path.read_text())["items"]
    kinds = Counter(i["kind"] for i in items)
    pods = [i for i in items if i["kind"] == "Pod"]
    pending = [p for p in pods if "nodeName" not in p["spec"]]
    got = info(path)
    assert got["nodes"] == kinds["Node"] == 60
    assert got["pods"] == len(pods) and got["pending"] == len(pending) > 0
    # nodes as EKS reports them: ~40 labels, images, conditions
    node = next(i for i in items if i["kind"] == "Node" and "karpenter.sh/nodepool" in i["metadata"]["labels"])
    assert len(node["metadata"]["labels"]) >= 35 and node["status"]["images"] and node["status"]["conditions"]
    apps = [p for p in pods if p["metadata"]["namespace"] not in gen_cluster.SYSTEM_NAMESPACES]
    owners = Counter(p["metadata"]["ownerReferences"][0]["kind"] for p in apps)
    volumes = {next(k for k in v if k != "name") for p in apps for v in p["spec"]["volumes"]}
    assert {"configMap", "emptyDir", "projected"} <= volumes
    assert any(len(p["spec"]["containers"]) > 1 for p in apps)   # sidecars
    assert any("livenessProbe" in c for p in apps for c in p["spec"]["containers"])
    if shape == "web":
        assert owners["ReplicaSet"] and owners["StatefulSet"] and kinds["HorizontalPodAutoscaler"]
        assert kinds["PersistentVolumeClaim"] == kinds["PersistentVolume"] > 0 and "persistentVolumeClaim" in volumes
        # every dressed workload's pods (GPU servers and add-ons keep the classic dress)
        assert sum("managedFields" in p["metadata"] for p in apps) > 0.8 * len(apps)
        assert any("helm.sh/chart" in p["metadata"]["labels"] for p in apps)
        assert any("argocd.argoproj.io/tracking-id" in p["metadata"].get("annotations", {}) for p in apps)
        assert any("topologySpreadConstraints" in p["spec"] for p in apps)
        assert any("podAntiAffinity" in p["spec"].get("affinity", {}) for p in apps)
    else:
        assert owners["Job"] > owners["ReplicaSet"] and kinds["Job"]
        assert not any("managedFields" in p["metadata"] for p in pods)
        jobs = [p for p in apps if p["metadata"]["ownerReferences"][0]["kind"] == "Job"]
        assert all(p["spec"]["restartPolicy"] in ("Never", "OnFailure") for p in jobs)
        assert not any("livenessProbe" in c for p in jobs for c in p["spec"]["containers"])
        spot = Counter(n["metadata"]["labels"].get("karpenter.sh/capacity-type") for n in items if n["kind"] == "Node")
        assert spot["spot"] > spot["on-demand"]


def test_shape_defaults_and_a_bad_shape(tmp_path):
    out = tmp_path / "b.json"
    assert gen_cluster.main(["--shape", "batch", "--nodes", "20", "--out", str(out)]) == 0
    pods = [i for i in json.loads(out.read_text())["items"] if i["kind"] == "Pod"]
    assert len(pods) == 20 * gen_cluster.SHAPES["batch"].pods_per_node
    with pytest.raises(ValueError, match="unknown shape"):
        gen_cluster.generate(5, 10, shape="nope")


@pytest.mark.parametrize("argv, words", [
    (["--shapes", "classic,nope"], "unknown shape 'nope'"),
    (["--sizes", "10,x"], "--sizes: not a comma-separated list"),
    (["--sizes", "0"], "at least 1"),
    (["--repeat", "0"], "--repeat: must be at least 1"),
    (["--only", "info,nope"], "--only: unknown command 'nope'"),
])
def test_bench_commands_refuses_bad_arguments_in_one_line(argv, words, capsys):
    refused_in_one_line(bench_commands.parse_args, argv, words, capsys)


def test_bench_commands_check_hashes_needs_its_own_file(tmp_path, capsys):
    bad = tmp_path / "x.json"
    bad.write_text("[1, 2]")
    with pytest.raises(SystemExit) as exc:
        bench_commands.parse_args(["--check-hashes", str(bad)])
    assert exc.value.code == 2 and "not a file bench_commands.py --json wrote" in capsys.readouterr().err


def test_bench_commands_on_a_tiny_cluster(tmp_path, capsys):
    """One real round: every command ran, ratios beside the yardstick, hashes that check out."""
    out = tmp_path / "figures.json"
    argv = ["--shapes", "batch", "--sizes", "12", "--cache", str(tmp_path / "cache"), "--json", str(out)]
    assert bench_commands.main(argv) == 0
    printed = capsys.readouterr().out
    doc = json.loads(out.read_text())
    (row,) = doc["rows"]
    assert row["shape"] == "batch" and row["nodes"] == 12 and row["tree"] == "current"
    for name in ("json.load", "version", "info", "simulate", "consolidate"):
        assert row[name]["seconds"] > 0 and row[name]["peak_mib"] > 0, name
    assert row["simulate"]["pending"] > 0 and row["open_ratio"] > 0
    sha = doc["hashes"]["batch-12"]["simulate"]
    assert f"sha256 batch-12 simulate {sha}" in printed and "info/json.load (≤1.0)" in printed
    # the same answers again: unchanged; a different expected hash: exit status 1
    assert bench_commands.main(argv[:-2] + ["--check-hashes", str(out)]) == 0
    doc["hashes"]["batch-12"]["simulate"] = "0" * 64
    out.write_text(json.dumps(doc))
    assert bench_commands.main(argv[:-2] + ["--check-hashes", str(out)]) == 1
    assert "answer changed: batch-12 simulate" in capsys.readouterr().out


def test_bench_commands_only_runs_the_commands_named(tmp_path):
    """--only info: the yardstick and the open, no simulate (a 20k open without a 20k simulate)."""
    out = tmp_path / "figures.json"
    argv = ["--shapes", "classic", "--sizes", "12", "--only", "info", "--cache", str(tmp_path / "c"), "--json", str(out)]
    assert bench_commands.main(argv) == 0
    (row,) = json.loads(out.read_text())["rows"]
    assert row["info"]["seconds"] > 0 and row["json.load"]["seconds"] > 0 and row["open_ratio"] > 0
    assert "simulate" not in row and "consolidate" not in row and "version" not in row


@pytest.mark.parametrize("argv, words", [
    (["--only", "open,nope"], "--only: unknown figure 'nope'"),
    (["--shapes", "nope"], "--shapes: unknown shape 'nope'"),
    (["--sizes", "x"], "--sizes: not a comma-separated list"),
    (["--budgets", "nope=3"], "--budgets: unknown figure 'nope'"),
    (["--budgets", "simulate=x"], "--budgets: 'simulate=x' is not FIGURE=SECONDS"),
    (["--budgets", "live=0"], "--budgets: live's budget must be more than 0 seconds"),
])
def test_all_figures_refuses_bad_arguments_in_one_line(argv, words, capsys):
    refused_in_one_line(all_figures.parse_args, argv, words, capsys)


def test_all_figures_on_tiny_clusters(tmp_path, capsys):
    """Real runs at two sizes: each figure beside its yardstick per size, and the growth column."""
    out = tmp_path / "all.json"
    argv = ["--shapes", "batch", "--sizes", "24,12", "--only", "open,simulate", "--cache", str(tmp_path / "c"),
            "--json", str(out)]
    assert all_figures.main(argv) == 0
    printed = capsys.readouterr().out
    assert "### batch" in printed and "growth 12→24 (yardstick's)" in printed
    opened = next(line for line in printed.splitlines() if line.startswith("| open cpu"))
    assert opened.count(" = ") == 2  # both sizes, then the growth beside the yardstick's (maybe marked)
    assert re.search(r"= [0-9.]+ \| [0-9.]+x \([0-9.]+x\)", opened), opened
    assert "| simulate cpu (pending pods/s" in printed and "sha256 batch-24 simulate" in printed
    doc = json.loads(out.read_text())
    table = doc["tables"]["batch"]
    figure, yardstick, ratio = table["24"]["open cpu (info ÷ json.load, ≤1.0)"]
    assert ratio == pytest.approx(figure / yardstick)
    assert {r["nodes"] for r in doc["rows"]} == {12, 24}


def test_all_figures_marks_a_figure_growing_faster_than_its_yardstick():
    """Item 6: a figure whose growth passes its yardstick's (by more than 5%) is marked."""
    def row(nodes, load_cpu, info_cpu):
        fig = {"cpu": 0, "seconds": 1.0, "peak_mib": 1.0}
        return {"shape": "classic", "nodes": nodes, "load_average": "1.0 1.0 1.0",
                "json.load": dict(fig, cpu=load_cpu), "info": dict(fig, cpu=info_cpu)}
    args = all_figures.parse_args(["--shapes", "classic", "--sizes", "5000,20000", "--only", "open"])
    for info_20k, marked in ((40.0, False), (41.0, False), (44.0, True)):
        found = {"by_row": {("classic", 5000): row(5000, 10.0, 10.0), ("classic", 20000): row(20000, 40.0, info_20k)},
                 "tui": {}, "disruption": {}, "live": {}, "rows": []}
        line = next(x for x in all_figures.table("classic", args, found) if x.startswith("| open cpu"))
        assert ("faster than its yardstick" in line) is marked, line


def test_all_figures_stops_a_figure_at_its_budget_and_says_so(tmp_path, capsys):
    """A command past its time budget is stopped, gives no figure, and the report says why; the
    other figures of the run are still there."""
    argv = ["--shapes", "batch", "--sizes", "12", "--only", "open,simulate", "--budgets", "simulate=0.01",
            "--cache", str(tmp_path / "c")]
    assert all_figures.main(argv) == 0
    printed = capsys.readouterr().out
    assert "no figure: batch 12 nodes simulate: timed out after 0.01 s (its time budget)" in printed
    assert "| open cpu (info ÷ json.load" in printed and "| simulate cpu" not in printed


def test_all_figures_does_not_start_a_size_foreseen_past_its_budget():
    """Linear growth from the size before is the least a figure grows: past the budget, not started."""
    assert all_figures.foreseen(None, 1, 5000, 60) == ""
    assert all_figures.foreseen(10.0, 1000, 5000, 60) == ""
    why = all_figures.foreseen(100.0, 5000, 20000, 300)
    assert "100 s at 5,000 nodes foretells at least 400 s at 20,000" in why and "300 s budget" in why


def test_all_figures_merges_runs_made_apart(tmp_path, capsys):
    """A 24-node run made apart from the 12-node one: --merge prints them as one table, with the
    growth column between the two runs' sizes."""
    files = []
    for size in ("12", "24"):
        files.append(tmp_path / f"{size}.json")
        argv = ["--shapes", "classic", "--sizes", size, "--only", "open", "--cache", str(tmp_path / "c"),
                "--json", str(files[-1])]
        assert all_figures.main(argv) == 0
    capsys.readouterr()
    assert all_figures.main(["--merge", *map(str, files)]) == 0
    printed = capsys.readouterr().out
    opened = next(line for line in printed.splitlines() if line.startswith("| open cpu"))
    assert "growth 12→24 (yardstick's)" in printed and opened.count(" = ") == 2
    assert re.search(r"= [0-9.]+ \| [0-9.]+x \([0-9.]+x\)", opened), opened  # both sizes, then growth (yardstick's)
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    with pytest.raises(SystemExit) as exc:
        all_figures.main(["--merge", str(bad)])
    assert "not a file all_figures.py --json wrote" in str(exc.value)


def refused_in_one_line(parse_args, argv, words, capsys) -> None:
    """Bad arguments: exit 2 with one line that names what is wrong, never a traceback."""
    with pytest.raises(SystemExit) as exc:
        parse_args(argv)
    assert exc.value.code == 2
    err = capsys.readouterr().err.strip()
    assert words in err and "\n" not in err and "Traceback" not in err
