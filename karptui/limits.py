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

# --- what-if edits: counts an edit may ask for (karptui/whatif) -----------------------------
# The largest real clusters run ~5,000-15,000 nodes and ~150,000 pods. A what-if
# makes every pod and node it asks for (about 0.5 KiB a pod, 9 KiB a node with its
# DaemonSet pods, measured), then simulates them; ``scale: 1000000000`` would ask
# for hundreds of GB before the first line of output. Each cap sits well above
# any real cluster and well below what a laptop or bastion host can hold.

#: Pods one workload may ask for: ``scale``, or ``spec.replicas`` / a Job's
#: ``parallelism`` in a patch. Above the pod count of the largest real clusters.
MAX_WHATIF_REPLICAS = 200_000
#: Nodes one ``addNodes`` edit may make: above the largest real clusters.
MAX_WHATIF_ADD_NODES = 20_000
#: Pods in the cluster once every edit is applied (about 3x the largest real
#: clusters; a few hundred MiB of pods at the measured size). Also the pods and
#: nodes all the edits together may make: a file of a thousand ``scale`` edits keeps
#: one workload's pods but would make a thousand sets of them.
MAX_WHATIF_PODS = 500_000
#: Nodes in the cluster once every edit is applied.
MAX_WHATIF_NODES = 50_000
#: Edits in one what-if (or objects changed by ``check --apply``'s manifests). Each edit is
#: applied to the whole snapshot in turn: 10,000 took 46 s and 100,000 nearly four minutes on
#: the bundled consolidation snapshot (measured), before the simulation starts. A what-if an
#: operator writes has a handful; a pull request's manifests, a few hundred objects at most.
MAX_WHATIF_EDITS = 10_000
#: topologySpreadConstraints one pod template may carry. The API server refuses two with the
#: same topologyKey and whenUnsatisfiable (kube-apiserver's ValidateSpreadConstraintNotRepeat;
#: karptui refuses them too), so a pod has at most two per label key, and a constraint on a
#: key no node carries spreads over nothing: nodes carry a few dozen label keys (31 at most
#: on the bundled EKS snapshots' nodes). Real pods have one to three. Each constraint is
#: counted over every node and pod at every placement, so 10,000 of them ran for over a
#: minute; 256 is two per label key of a node with 128 of them, and adds ~1.5 s CPU to a
#: what-if on a bundled snapshot.
MAX_SPREAD_CONSTRAINTS = 256
#: Affinity terms (node, pod and pod anti-affinity, required and preferred together)
#: one pod template may carry; the smallest (``{"topologyKey":"k"}``) is over 16
#: bytes, so 1.5 MiB / 16 = 98,304 is more than etcd can store.
MAX_AFFINITY_TERMS = (3 << 19) // 16

# --- logs: Karpenter controller logs (karptui/logs) -----------------------------------------
# Logs are streamed, never held: ``logs parse`` and the TUI keep one line (and one
# read chunk) in memory at a time, so a log of many GB (gzipped or not) needs no total
# cap. What needs a bound is one line: a file with no newline (``/dev/zero``, a 2 GB
# single line, stdin that never sends one) would otherwise be held whole.

#: Bytes of one log line. Karpenter's longest real lines (a pod's scheduling error
#: listing every NodePool and instance type requirement) are a few KiB; a longer line
#: is skipped (counted, with one warning) and reading carries on after its newline.
MAX_LOG_LINE_BYTES = 1 << 20
#: Bytes read at a time. The first read of a stream that holds nothing but NUL bytes
#: (``/dev/zero``, a zero-filled disk image) is refused as binary: no log starts so.
LOG_READ_CHUNK = 64 << 10

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
#: One log line followed from the cluster is bounded by MAX_LOG_LINE_BYTES (the logs section):
#: longer ones are cut there and marked (the container runtime itself splits lines at 16 KiB).
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

# --- karptui mcp: the requests an MCP client sends over stdio (karptui/mcp) --------------------

#: Bytes of one JSON-RPC request line. The largest input a tool takes is a what-if, and a
#: what-if file is read to MAX_SMALL_FILE_BYTES: a request is bounded the same. A longer line
#: is skipped to its newline, only its ends kept, and answered with one line.
MAX_MCP_REQUEST_BYTES = MAX_SMALL_FILE_BYTES
