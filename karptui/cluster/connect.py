"""Credentials and the API client, loaded like kubectl before the TUI starts.

Kubeconfig files (``--kubeconfig``, or ``KUBECONFIG`` with several files joined by
``:``), a ``--context`` or the current one, and in-cluster service-account config
when there is no kubeconfig. Exec plugins such as ``aws eks get-token`` run
through the client; when the token expires mid-session the client re-runs the
plugin, and we make it do so with its output captured, so nothing it prints can
land on the TUI's screen.
"""

from __future__ import annotations

import io
import os
import sys
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import urllib3
import yaml
from kubernetes import client, config
from kubernetes.client.rest import ApiException
from kubernetes.config.config_exception import ConfigException

from ..errors import ClusterUnavailable

# (connect, read) seconds for every ordinary request; watches and log follows set a
# longer read timeout of their own, never none.
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
        api, name = _from_kubeconfig(paths, context)
    elif context:
        raise ConnectError(f"no kubeconfig found at {paths} to take context {context!r} from; {HINT}")
    else:
        api, name = _in_cluster(paths)
    connection = Connection(api, name, api.configuration.host, namespace)
    if not check:
        return connection
    return Connection(api, name, connection.server, namespace, server_version(connection))


def _from_kubeconfig(paths: str, context: str | None) -> tuple[client.ApiClient, str]:
    try:
        contexts, current = config.list_kube_config_contexts(config_file=paths)
    except ConfigException as exc:
        raise ConnectError(f"{paths}: {_line(exc)}") from None
    except (OSError, ValueError, yaml.YAMLError) as exc:  # unreadable or not YAML
        raise ConnectError(f"{paths}: cannot read the kubeconfig ({_line(exc)})") from None
    names = [c.get("name", "") for c in contexts or []]
    name = context or _first_current_context(paths) or (current or {}).get("name", "")
    if not name:
        raise ConnectError(f"{paths}: no current context; pick one with --context ({', '.join(names) or 'none defined'})")
    if name not in names:
        raise ConnectError(f"{paths}: no context {name!r} (contexts: {', '.join(names) or 'none'})")
    try:
        api = config.new_client_from_config(config_file=paths, context=name, persist_config=False,
                                            client_configuration=_configuration())
    except ConfigException as exc:
        raise ConnectError(f"context {name}: {_line(exc)}") from None
    except (OSError, ValueError, TypeError, KeyError) as exc:
        raise ConnectError(f"context {name}: the credentials could not be loaded ({_line(exc)})") from None
    return api, name


def _configuration() -> client.Configuration:
    """Quiet token refreshes; one pooled connection per long-lived watch (about 20 kinds) plus room
    for ordinary GETs."""
    configuration = QuietConfiguration()
    configuration.connection_pool_maxsize = POOL
    return configuration


def _first_current_context(paths: str) -> str:
    """kubectl's rule with several files: the first file that sets current-context wins
    (the client's merge lets the last one win)."""
    for path in _existing(paths):
        try:
            with open(Path(path).expanduser(), encoding="utf-8") as handle:
                doc = yaml.safe_load(handle)
        except (OSError, ValueError, yaml.YAMLError):
            continue
        if isinstance(doc, dict) and isinstance(doc.get("current-context"), str) and doc["current-context"]:
            return doc["current-context"]
    return ""


def _in_cluster(paths: str) -> tuple[client.ApiClient, str]:
    configuration = _configuration()
    try:
        config.load_incluster_config(client_configuration=configuration)
    except ConfigException:
        raise ConnectError(f"no kubeconfig at {paths} and not running in a pod; {HINT}") from None
    return client.ApiClient(configuration), "in-cluster"


_REFRESH = threading.Lock()


def _quiet(hook: Callable) -> Callable:
    """``hook`` run with a plain sys.stdout, so the exec plugin is not run "interactively".

    The client runs the plugin interactively (our terminal's stdin; a plugin may
    prompt) when ``sys.stdout.isatty()``; inside Textual sys.stdout is its capture
    object, which says yes. Textual draws through its own handle, so swapping
    sys.stdout for the length of a refresh disturbs nothing.
    """
    def refresh(conf: client.Configuration) -> None:
        with _REFRESH:
            saved = sys.stdout
            sys.stdout = io.StringIO()
            try:
                hook(conf)
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


def server_version(connection: Connection) -> str:
    """GET /version, which also proves the server is there and takes our credentials."""
    try:
        info = client.VersionApi(connection.api).get_code(_request_timeout=TIMEOUT)
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
    return info.git_version or ""


def _line(exc: BaseException) -> str:
    text = " ".join(str(exc).split())
    return text[:300] + ("…" if len(text) > 300 else "")
