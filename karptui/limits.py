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
