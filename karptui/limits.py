"""The bounds karptui puts on what it reads, in one place, so the README and every reader agree.

Snapshots, what-ifs, logs and the live API server are input from other people. Each
bound is far above what a real cluster produces (the largest dump seen, 20,000 nodes,
is ~1.2 GB of YAML) and far below what exhausts an operator's bastion host. Passing a
bound is bad input: one line naming the file and the bound, exit 2.

Sections are owned by the readers that enforce them; the README's security section
lists every value here.
"""

from __future__ import annotations

# --- files: snapshots, dumps, what-ifs, catalogs, themes (karptui/sources) ---------------

#: Decompressed bytes of one snapshot or dump file (a gzip bomb stops here).
MAX_SNAPSHOT_BYTES = 4 << 30
#: Decompressed bytes of a what-if, catalog, theme or kubeconfig file.
MAX_SMALL_FILE_BYTES = 64 << 20
#: YAML nesting (block and flow together). Kubernetes objects, CRD schemas included,
#: stay under ~60; LibYAML's composer recurses in C and crashes the process near 25,000.
MAX_YAML_DEPTH = 256
#: YAML aliases in one file. kubectl never writes anchors or aliases; hand-written
#: what-ifs may reuse a block a few times. Past this (or past the expansion below) the
#: file is refused rather than expanded: nine aliases of nine aliases ... is a billion nodes.
MAX_YAML_ALIASES = 100
#: Nodes a file may grow to once its aliases are expanded, beyond its own nodes.
MAX_YAML_ALIAS_EXPANSION = 100_000

# --- live cluster: every request to the API server (karptui/cluster) ---------------------
# The client's timeouts are per socket read: a server that sends one byte every few seconds,
# or never stops sending, holds a request (and its memory) for ever. These bound each
# request as a whole. Passing one is the server's fault: one line naming what was being
# read, exit 1 (live TUI: the header says so and the reader retries).

#: Seconds one ordinary request (a list page, /version, discovery, a lease) may take from
#: sending to the last byte. A page of 500 pods is 5-25 MB, seconds on any working link;
#: the API server itself gives up on a non-watch request after 60 s.
REQUEST_DEADLINE = 60.0
#: After this long a request still running is named on screen ("listing pods: 12 s so far").
SLOW_REQUEST_NOTICE = 10.0
#: Bytes of one response that is not a stream (a list page of up to 500 objects). Objects
#: stay under etcd's 1.5 MiB request limit and a page of the fattest real pods is ~25 MB;
#: 256 MiB of JSON is a few GB once parsed, the most a bastion host should give one page.
MAX_LIST_PAGE_BYTES = 256 << 20
#: Bytes of one object read alone, and of one watch event (an object plus its envelope):
#: ten times etcd's default 1.5 MiB object limit, for clusters that raised it.
MAX_OBJECT_BYTES = 16 << 20
#: Seconds past its own timeoutSeconds a watch may stay open before it is cut and
#: reopened from its resourceVersion (the server should have ended it by then).
WATCH_GRACE = 30.0
#: Bytes of one log line; longer ones are cut here and marked. Karpenter's JSON lines are
#: under 10 KiB; the container runtime itself splits lines at 16 KiB.
MAX_LOG_LINE_BYTES = 1 << 20
#: Bytes of log read by one request: the whole of ``snapshot save``'s log, and one follow
#: call before it reconnects from its last line. Asked of the server as ``limitBytes`` too.
#: An hour of a busy Karpenter is a few MB.
MAX_LOG_BYTES = 64 << 20
#: Seconds one follow of the leader's log stays open before it reconnects from its last line.
LOG_FOLLOW_DEADLINE = 15 * 60.0
#: Seconds an exec credential plugin (kubeconfig ``users[].user.exec``) may run.
#: ``aws eks get-token`` and ``gke-gcloud-auth-plugin`` answer in a second or two; a
#: browser or device-code login waiting for a person needs a minute or so.
EXEC_PLUGIN_DEADLINE = 120.0
