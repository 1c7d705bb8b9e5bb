"""Credentials and the API client, loaded like kubectl before the TUI starts.

Kubeconfig files (``--kubeconfig``, or ``KUBECONFIG`` with several files joined by
``:``), a ``--context`` or the current one, and in-cluster service-account config
when there is no kubeconfig. Exec plugins such as ``aws eks get-token`` run
when the client asks for credentials; when the token expires mid-session the
client re-runs the plugin, and we make it do so with its output captured, so
nothing it prints can land on the TUI's screen.

What we add to the client: kubeconfig files are size- and depth-checked before it
parses them; an exec plugin gets a deadline and fails with one line that never
echoes its stderr (which may hold a token), instead of the client's log line and
carrying on without credentials; every request has a total deadline and a byte
cap (guard.py); /version is read leniently, as kubectl does.
"""

from __future__ import annotations

import io
import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import urllib3
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from kubernetes.config import kube_config
from kubernetes.config.config_exception import ConfigException
from kubernetes.config.exec_provider import ExecProvider

from .. import limits
from ..errors import ClusterUnavailable, InputError
from ..sources import yaml_load
from .guard import LimitExceeded, bounded, install

# (connect, read) seconds for every ordinary request, per socket operation; watches and
# log follows set a longer read timeout of their own, never none. guard.py bounds each
# request as a whole (limits.REQUEST_DEADLINE and the byte caps).
TIMEOUT = (5, 30)
POOL = 48
HINT = "explore a saved cluster instead with `karptui demo` or `karptui open FILE`"


class ConnectError(ClusterUnavailable):
    """Why the cluster cannot be reached, in one line; ``code`` is the exit status."""


@dataclass(frozen=True)
class Connection:
    api: client.ApiClient
    context: str               # kubeconfig context, or "in-cluster"
    server: str
    namespace: str | None      # -n: pods and other namespaced kinds only from here
    version: str = ""          # the API server's gitVersion

    def close(self) -> None:
        self.api.close()


def kubeconfig_paths(kubeconfig: str | None) -> str:
    """What kubectl would read: --kubeconfig, else $KUBECONFIG (read now, not at import), else ~/.kube/config."""
    return kubeconfig or os.environ.get("KUBECONFIG") or str(Path("~/.kube/config").expanduser())


def _existing(paths: str) -> list[str]:
    return [p for p in paths.split(os.pathsep) if p and Path(p).expanduser().is_file()]


def connect(kubeconfig: str | None = None, context: str | None = None, namespace: str | None = None,
            check: bool = True) -> Connection:
    """An API client for the context, checked against the server (``check``) before any TUI runs."""
    paths = kubeconfig_paths(kubeconfig)
    if kubeconfig and not _existing(kubeconfig):
        raise ConnectError(f"{kubeconfig}: no such kubeconfig file")
    if _existing(paths):
        docs = [read_kubeconfig(path) for path in _existing(paths)]  # before the client parses them
        api, name = _from_kubeconfig(paths, context, docs)
    elif context:
        raise ConnectError(f"no kubeconfig found at {paths} to take context {context!r} from; {HINT}")
    else:
        api, name = _in_cluster(paths)
    connection = Connection(api, name, api.configuration.host, namespace)
    if not check:
        return connection
    return Connection(api, name, connection.server, namespace, server_version(connection))


def read_kubeconfig(path: str):
    """One kubeconfig file, parsed, if it is small and shallow enough for the client to parse too.

    The client reads kubeconfigs with PyYAML's pure-Python loader, whose recursion
    fails (RecursionError) on a file nested a few thousand deep, and reads any size.
    """
    shown = path
    try:
        with open(Path(path).expanduser(), "rb") as handle:
            data = handle.read(limits.MAX_SMALL_FILE_BYTES + 1)
    except OSError as exc:
        raise ConnectError(f"{shown}: cannot read the kubeconfig ({exc.strerror or exc})") from None
    if len(data) > limits.MAX_SMALL_FILE_BYTES:
        raise ConnectError(f"{shown}: over {limits.MAX_SMALL_FILE_BYTES >> 20} MiB, too large for a kubeconfig")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise ConnectError(f"{shown}: not UTF-8 text; not a kubeconfig") from None
    try:
        return yaml_load.load(text, shown)  # karptui's one YAML entry point: depth and aliases checked
    except InputError as exc:
        raise ConnectError(f"{exc}; not a kubeconfig") from None


def _from_kubeconfig(paths: str, context: str | None, docs: list) -> tuple[client.ApiClient, str]:
    try:
        contexts, current = config.list_kube_config_contexts(config_file=paths)
    except ConfigException as exc:
        raise ConnectError(f"{paths}: {_config_line(exc)}") from None
    except (OSError, ValueError, yaml.YAMLError, RecursionError) as exc:  # unreadable or not YAML
        raise ConnectError(f"{paths}: cannot read the kubeconfig ({_config_line(exc)})") from None
    except (TypeError, AttributeError, KeyError, IndexError) as exc:  # the client walks a malformed document
        raise ConnectError(f"{paths}: not a kubeconfig the client can read ({type(exc).__name__}: "
                           f"{_config_line(exc)})") from None
    names = [c.get("name", "") for c in contexts or []]
    name = context or _first_current_context(docs) or (current or {}).get("name", "")
    if not name:
        raise ConnectError(f"{paths}: no current context; pick one with --context ({', '.join(names) or 'none defined'})")
    if name not in names:
        raise ConnectError(f"{paths}: no context {name!r} (contexts: {', '.join(names) or 'none'})")
    try:
        api = config.new_client_from_config(config_file=paths, context=name, persist_config=False,
                                            client_configuration=_configuration())
    except ExecPluginFailed as exc:
        raise ConnectError(f"context {name}: {exc.message}", exc.code) from None
    except ConfigException as exc:
        raise ConnectError(f"context {name}: {_config_line(exc)}") from None
    except (OSError, ValueError, TypeError, KeyError, AttributeError, IndexError, RecursionError) as exc:
        raise ConnectError(f"context {name}: the credentials could not be loaded ({_config_line(exc)})") from None
    if api.configuration.server_index is not None or not api.configuration.host:  # the loader never set one
        raise ConnectError(f"{paths}: context {name}: its cluster names no server (clusters[].cluster.server)")
    install(api)
    return api, name


def _configuration() -> client.Configuration:
    """Quiet token refreshes; one pooled connection per long-lived watch (about 20 kinds) plus room
    for ordinary GETs."""
    configuration = QuietConfiguration()
    configuration.connection_pool_maxsize = POOL
    return configuration


def _first_current_context(docs: list) -> str:
    """kubectl's rule with several files: the first file that sets current-context wins
    (the client's merge lets the last one win)."""
    for doc in docs:
        if isinstance(doc, dict) and isinstance(doc.get("current-context"), str) and doc["current-context"]:
            return doc["current-context"]
    return ""


def _in_cluster(paths: str) -> tuple[client.ApiClient, str]:
    configuration = _configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except ConfigException:
        raise ConnectError(f"no kubeconfig at {paths} and not running in a pod; {HINT}") from None
    api = client.ApiClient(configuration)
    install(api)
    return api, "in-cluster"


_REFRESH = threading.Lock()
#: After a plugin fails mid-session, the readers waiting on the refresh lock get the same
#: failure for this long rather than each running (and perhaps waiting out) the plugin again.
_FAILURE_KEPT = 10.0


def _quiet(hook: Callable) -> Callable:
    """``hook`` run with a plain sys.stdout, so the exec plugin is not run "interactively".

    The client runs the plugin interactively (our terminal's stdin; a plugin may
    prompt) when ``sys.stdout.isatty()``; inside Textual sys.stdout is its capture
    object, which says yes. Textual draws through its own handle, so swapping
    sys.stdout for the length of a refresh disturbs nothing.
    """
    def refresh(conf: client.Configuration) -> None:
        with _REFRESH:
            failed = conf.__dict__.get("_plugin_failed")  # (monotonic time, ExecPluginFailed)
            if failed and time.monotonic() - failed[0] < _FAILURE_KEPT:
                raise ConnectError(failed[1].message, failed[1].code)
            saved = sys.stdout
            sys.stdout = io.StringIO()
            try:
                hook(conf)
                conf.__dict__.pop("_plugin_failed", None)
            except ExecPluginFailed as exc:  # mid-session: the reader notes it and retries
                conf.__dict__["_plugin_failed"] = (time.monotonic(), exc)
                raise ConnectError(exc.message, exc.code) from None
            finally:
                sys.stdout = saved

    refresh.quiet = True  # type: ignore[attr-defined]
    return refresh


class QuietConfiguration(client.Configuration):
    """A client Configuration whose token-refresh hook always runs quietly.

    The kubeconfig loader installs a fresh hook after every refresh, so wrapping
    it once is not enough: every hook assigned is wrapped.
    """

    @property
    def refresh_api_key_hook(self) -> Callable | None:
        return self.__dict__.get("_quiet_hook")

    @refresh_api_key_hook.setter
    def refresh_api_key_hook(self, hook: Callable | None) -> None:
        self.__dict__["_quiet_hook"] = _quiet(hook) if hook and not getattr(hook, "quiet", False) else hook

    @property
    def host(self) -> str:
        return self.get_host_from_settings(self.server_index, variables=self.server_variables)

    @host.setter
    def host(self, value: str) -> None:
        """``server: api.example:6443`` is https, as kubectl (client-go) reads it; urllib3 would warn
        and, from its v3, refuse. The loader sets the host again on every token refresh, hence here."""
        self._base_path = value if not isinstance(value, str) or "://" in value else f"https://{value}"
        self.server_index = None


def server_version(connection: Connection) -> str:
    """GET /version, which also proves the server is there and takes our credentials.

    Read as plain JSON: only ``gitVersion`` matters, and the client's model refuses a
    document without every field it knows (``buildDate``, ``goVersion``, ...), which
    minimal and non-Go API servers leave out."""
    try:
        with bounded("reading the server version (/version)", max_bytes=limits.MAX_OBJECT_BYTES):
            body = client.VersionApi(connection.api).get_code(_preload_content=False, _request_timeout=TIMEOUT).data
    except LimitExceeded as exc:
        raise ConnectError(f"context {connection.context}: {exc} at {connection.server}", 1) from None
    except ApiException as exc:
        if exc.status == 401:
            raise ConnectError(f"context {connection.context}: the API server at {connection.server} refused "
                               "the credentials (expired? log in again, e.g. `aws sso login`)", 1) from None
        if exc.status == 403:
            return ""  # allowed to list what we need, perhaps, if not /version
        raise ConnectError(f"context {connection.context}: the API server at {connection.server} answered "
                           f"{exc.status} {exc.reason}", 1) from None
    except (urllib3.exceptions.HTTPError, OSError) as exc:
        raise ConnectError(f"context {connection.context}: cannot reach the API server at {connection.server} "
                           f"({_line(exc)}); {HINT}", 1) from None
    except ConfigException as exc:  # an exec plugin failing on refresh
        raise ConnectError(f"context {connection.context}: {_line(exc)}", 1) from None
    try:
        info = json.loads(body)  # bytes: UTF-8 (or -16/-32) as JSON requires
    except ValueError:
        raise ConnectError(f"context {connection.context}: the server at {connection.server} answered /version "
                           "with something that is not JSON text; is it a Kubernetes API server?", 1) from None
    version = info.get("gitVersion") if isinstance(info, dict) else None
    return version if isinstance(version, str) else ""


def _config_line(exc: BaseException) -> str:
    """The client's kubeconfig errors quote the offending object (``Expected key name in
    PATH/{'name': None, 'user': {'token': ...}}``): keep the words, never the object, which may
    hold a token or a client key."""
    return re.split(r"/?[{\[]", _line(exc), maxsplit=1)[0].rstrip()


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] + ("…" if len(text) > 300 else "")


# ---- exec credential plugins -------------------------------------------------------------------

class ExecPluginFailed(BaseException):
    """An exec credential plugin failed or hung; ``message`` never holds its output.

    A BaseException, to get through the client's kubeconfig loader, which catches
    every Exception from a plugin, logs it (the plugin's stderr included: a token,
    perhaps) and carries on without credentials. ``connect`` and the refresh hook
    turn it into a ConnectError at once.
    """

    def __init__(self, message: str, code: int) -> None:
        super().__init__(message)
        self.message, self.code = message, code


class BoundedExecProvider(ExecProvider):
    """The client's ExecProvider (its reading of ``users[].user.exec``) with our ``run``:
    a deadline (limits.EXEC_PLUGIN_DEADLINE), then the plugin's process group is killed;
    failures in one line without the plugin's output.

    Exit 2 when the plugin is missing, fails or answers nonsense (the user's login or
    kubeconfig to fix: ``aws sso login`` and the like); exit 1 when it does not answer
    in time (it is waiting on the network, most often its identity provider).
    """

    def run(self, previous_response=None) -> dict:
        interactive = hasattr(sys.stdout, "isatty") and sys.stdout.isatty()
        spec: dict = {"interactive": interactive}
        if previous_response:
            spec["response"] = previous_response
        if self.cluster:  # provideClusterInfo
            spec["cluster"] = dict(self.cluster.value)
            for extension in self.cluster.value.get("extensions") or ():
                if extension.get("name") == "client.authentication.k8s.io/exec":
                    spec["cluster"]["config"] = extension.get("extension")
                    break
        env = dict(self.env, KUBERNETES_EXEC_INFO=json.dumps(
            {"apiVersion": self.api_version, "kind": "ExecCredential", "spec": spec}))
        plugin = os.path.basename(str(self.args[0]))
        try:  # interactive: the plugin may prompt on our terminal; otherwise it gets no stdin and a session of its own
            process = subprocess.Popen(self.args, stdout=subprocess.PIPE,
                                       stderr=None if interactive else subprocess.DEVNULL,
                                       stdin=None if interactive else subprocess.DEVNULL,
                                       cwd=self.cwd, env=env, start_new_session=not interactive)
        except OSError as exc:
            raise ExecPluginFailed(f"cannot run the credential plugin {plugin!r} from the kubeconfig "
                                   f"({exc.strerror or type(exc).__name__})", 2) from None
        deadline, cap = limits.EXEC_PLUGIN_DEADLINE, limits.MAX_SMALL_FILE_BYTES
        ends = time.monotonic() + deadline
        stdout = bytearray()

        def drain() -> None:  # its answer, up to the cap
            while len(stdout) <= cap:
                data = process.stdout.read1(1 << 16)
                if not data:
                    return
                stdout.extend(data)

        reader = threading.Thread(target=drain, name="exec-plugin", daemon=True)
        reader.start()
        reader.join(deadline)
        try:
            if reader.is_alive() or len(stdout) > cap:
                raise subprocess.TimeoutExpired(self.args, deadline)
            process.wait(max(0.0, ends - time.monotonic()))
        except subprocess.TimeoutExpired:
            _kill(process, group=not interactive)
            reader.join(1)
            if len(stdout) > cap:
                raise ExecPluginFailed(f"the credential plugin {plugin!r} printed over {cap >> 10} KiB; "
                                       "an ExecCredential is a few KiB", 2) from None
            raise ExecPluginFailed(f"the credential plugin {plugin!r} gave no answer within {deadline:g} s; "
                                   "run it yourself to see what it waits for", 1) from None
        if process.stdout:
            process.stdout.close()
        if process.returncode != 0:
            raise ExecPluginFailed(f"the credential plugin {plugin!r} failed (exit status {process.returncode}); "
                                   "run it yourself to see why (karptui does not show its output: it may hold "
                                   "secrets)", 2)
        try:
            answer = json.loads(bytes(stdout))
            status = answer["status"]
            if answer.get("apiVersion") != self.api_version or not isinstance(status, dict):
                raise ValueError
            if "token" not in status and not {"clientCertificateData", "clientKeyData"} <= status.keys():
                raise ValueError
        except (ValueError, KeyError, TypeError):
            raise ExecPluginFailed(f"the credential plugin {plugin!r} did not answer with an ExecCredential "
                                   f"({self.api_version}) holding a token or a client certificate", 2) from None
        return status


def _kill(process: subprocess.Popen, group: bool) -> None:
    try:
        if group:
            os.killpg(process.pid, signal.SIGKILL)  # the plugin and whatever it started
        else:
            process.kill()
    except OSError:
        pass
    process.wait()
    if process.stdout:
        process.stdout.close()


# The client's kubeconfig loader makes its plugins through this name.
kube_config.ExecProvider = BoundedExecProvider
