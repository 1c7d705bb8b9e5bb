"""Fuzzing the two readers of the operator's own configuration: themes and kubeconfigs (issue 12).

Both are YAML from a directory other tools (and other people) write to. Whatever they
hold, karptui answers with a theme or one warning line (themes), or with one line and
exit 1 or 2 (kubeconfig) — never a traceback or "internal error". The kubeconfig's
server is always a closed local port, and no mutation adds an ``exec`` section, so no
example reaches the network or runs a program.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path

import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from karptui.errors import InputError
from karptui.tui.themes import load_theme_file
from tests.test_hostile_readers import FRAGMENTS, mutated, serialise

REPO = Path(__file__).resolve().parents[1]
THEME = yaml.safe_load((REPO / "themes" / "karptui-dark.yaml").read_text())
CLOSED = "http://127.0.0.1:1"  # nothing listens there: the client is refused at once
KUBECONFIG = {
    "apiVersion": "v1", "kind": "Config", "current-context": "c",
    "clusters": [{"name": "k", "cluster": {"server": CLOSED, "insecure-skip-tls-verify": True}}],
    "users": [{"name": "u", "user": {"token": "not-a-secret"}}],
    "contexts": [{"name": "c", "context": {"cluster": "k", "user": "u", "namespace": "default"}}],
}
FUZZ = settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


def _closed_servers(doc):
    """Every ``server`` a mutation left a string points at the closed port; ``exec`` never survives."""
    if isinstance(doc, dict):
        doc.pop("exec", None)
        for key, value in list(doc.items()):
            if key == "server" and isinstance(value, str):
                doc[key] = CLOSED
            else:
                _closed_servers(value)
    elif isinstance(doc, list):
        for value in doc:
            _closed_servers(value)
    return doc


@FUZZ
@given(doc=mutated(THEME), as_json=st.booleans(), huge=st.integers(0, 9))
def test_fuzz_theme_reader(tmp_path_factory, doc, as_json, huge):
    path = tmp_path_factory.mktemp("theme") / "fuzzed.yaml"
    path.write_text(serialise(doc, as_json, huge_number=huge == 0))
    try:
        load_theme_file(path)
    except InputError as exc:
        line = str(exc)
        assert "\n" not in line and line.startswith(f"{path}: "), line


@FUZZ
@given(fragment=FRAGMENTS)
def test_fuzz_theme_fragments(tmp_path_factory, fragment):
    path = tmp_path_factory.mktemp("theme") / "fuzzed.yaml"
    path.write_text("name: x\nprimary: '#000000'\nvariables:\n  v: " + json.dumps(fragment) + "\nextra: " + fragment)
    try:
        load_theme_file(path)
    except InputError as exc:
        assert "\n" not in str(exc)


def one_line_exit_1_or_2(result) -> None:
    code, _, err = result
    assert "Traceback" not in err and "internal error" not in err, err[-3000:]
    assert code in (1, 2) and len(err.splitlines()) == 1, (code, err[-3000:])
    assert "not-a-secret" not in err


@FUZZ
@given(doc=mutated(KUBECONFIG), as_json=st.booleans())
def test_fuzz_kubeconfig_reader(cli, tmp_path_factory, doc, as_json):
    base = tmp_path_factory.mktemp("kube")
    path = base / "config"
    path.write_text(serialise(_closed_servers(doc), as_json))
    with warnings.catch_warnings():  # urllib3's "URL without a scheme" warning (an error from its v3) fails it too
        warnings.simplefilter("error", FutureWarning)
        one_line_exit_1_or_2(cli("snapshot", "save", base / "out.json.gz", "--kubeconfig", path))


@FUZZ
@given(fragment=FRAGMENTS)
def test_fuzz_kubeconfig_fragments(cli, tmp_path_factory, fragment):
    base = tmp_path_factory.mktemp("kube")
    path = base / "config"
    path.write_text(yaml.safe_dump(KUBECONFIG) + "preferences: " + fragment + "\n")
    one_line_exit_1_or_2(cli("snapshot", "save", base / "out.json.gz", "--kubeconfig", path))


def test_a_cluster_without_a_server_is_one_line_exit_2(cli, tmp_path):
    """Found by the fuzzer: with no server the client sent requests to "" (no scheme, no host)."""
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({**KUBECONFIG, "clusters": [{"name": "k", "cluster": []}]}))
    code, _, err = cli("snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", path)
    assert code == 2 and err == f"karptui: {path}: context c: its cluster names no server (clusters[].cluster.server)\n"


def test_a_kubeconfig_with_a_null_cluster_is_one_line_exit_2(cli, tmp_path):
    """Found by the fuzzer: the client walked ``clusters: [null]`` into a TypeError (internal error)."""
    path = tmp_path / "config"
    path.write_text(yaml.safe_dump({**KUBECONFIG, "clusters": [None]}))
    code, _, err = cli("snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", path)
    assert code == 2 and len(err.splitlines()) == 1 and "internal error" not in err, err
    assert err.startswith(f"karptui: {path}: not a kubeconfig the client can read"), err


def test_a_server_without_a_scheme_is_read_as_https_as_kubectl_does(cli, tmp_path):
    """Found by the fuzzer: urllib3 warns (and will refuse) a URL without a scheme; client-go
    reads ``host:port`` as https, so karptui does too, and says the server cannot be reached."""
    path = tmp_path / "config"
    clusters = [{"name": "k", "cluster": {"server": "127.0.0.1:1", "insecure-skip-tls-verify": True}}]
    path.write_text(yaml.safe_dump({**KUBECONFIG, "clusters": clusters}))
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        code, _, err = cli("snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", path)
    assert code == 1 and len(err.splitlines()) == 1 and "https://127.0.0.1:1" in err, err


def test_the_clients_kubeconfig_errors_never_quote_a_token(cli, tmp_path):
    """Found by the fuzzer: the client's "Expected key name in PATH/{...}" quoted the whole
    user entry, token and all, into karptui's one line."""
    path = tmp_path / "config"
    users = [{"name": None, "user": {"token": "not-a-secret"}}]
    path.write_text(yaml.safe_dump({**KUBECONFIG, "users": users}))
    code, _, err = cli("snapshot", "save", tmp_path / "out.json.gz", "--kubeconfig", path)
    assert code == 2 and len(err.splitlines()) == 1 and "not-a-secret" not in err, err
    assert "Expected key name" in err, err
