"""The what-if panel's view model, in one import: ``from karptui.views import whatif_form as wf``.

The pieces live in small modules, one concept each; this module only gathers them:

* :mod:`.whatif_syntax` -- the text syntax of the free-form fields (labels, taints,
  tolerations, requirements, affinity terms), parsed and printed back;
* :mod:`.whatif_builders` -- one edit from what the operator typed, checked as the API
  server would;
* :mod:`.whatif_forms` -- the targets, a target's form (its current values) and the edits
  that turn one form into another, and the panel's one-key actions;
* :mod:`.whatif_summary` -- a run as the panel shows it;
* :mod:`karptui.whatif.session` -- the headless session (edit stack, kept baseline,
  cancellable run) that ``simulate --whatif`` uses too.
"""

from __future__ import annotations

from ..whatif.session import Baseline, RunResult, WhatIfSession
from ..whatif.stack import DEFAULT_NAME, EditStack
from .whatif_builders import (
    POLICIES, WHEN_UNSATISFIABLE, ZONE_KEY, add_nodes_edit, constraint_manifest, constraint_values, cordon_edit,
    new_constraint, node_affinity_edit, node_selector_edit, nodepool_limits_edit, nodepool_requirements_edit,
    nodepool_taints_edit, nodepool_weight_edit, pod_affinity_edit, preferred_node_affinity_edit,
    preferred_pod_affinity_edit, remove_node_edit, requests_edit, scale_edit, spread_edit, target_of,
    tolerations_edit,
)
from .whatif_forms import (
    FORM_EDITS, TargetRow, add_nodes_choices, add_nodes_edits, add_nodes_form, current_raw, describe_edit,
    drop_constraint, node_edits, node_form, nodepool_edits, nodepool_form, relax_constraint, step_replicas,
    target_rows, unapplied, workload_edits, workload_form,
)
from .whatif_summary import result_rows, run_whatif, summary, summary_lines
from .whatif_syntax import (
    FIELD_PREFIX, PREFERRED, REQUIRED, format_labels, format_node_affinity, format_pod_terms,
    format_preferred_node_affinity, format_preferred_pod_terms, format_requirements, format_taints,
    format_tolerations, parse_labels, parse_node_affinity_text, parse_pod_terms_text,
    parse_preferred_node_affinity_text, parse_preferred_pod_terms_text, parse_requirement_text, parse_taint_text,
    parse_toleration_text,
)

__all__ = [
    "DEFAULT_NAME", "FIELD_PREFIX", "FORM_EDITS", "POLICIES", "PREFERRED", "REQUIRED", "WHEN_UNSATISFIABLE", "ZONE_KEY",
    "drop_constraint", "relax_constraint", "step_replicas", "unapplied",
    "Baseline", "EditStack", "RunResult", "TargetRow", "WhatIfSession", "add_nodes_choices", "add_nodes_edit",
    "add_nodes_edits", "add_nodes_form", "constraint_manifest", "constraint_values", "cordon_edit", "current_raw",
    "describe_edit", "format_labels", "format_node_affinity", "format_pod_terms", "format_preferred_node_affinity",
    "format_preferred_pod_terms", "format_requirements", "format_taints", "format_tolerations", "new_constraint",
    "node_affinity_edit", "node_edits", "node_form", "node_selector_edit", "nodepool_edits", "nodepool_form",
    "nodepool_limits_edit", "nodepool_requirements_edit", "nodepool_taints_edit", "nodepool_weight_edit",
    "parse_labels", "parse_node_affinity_text", "parse_pod_terms_text", "parse_preferred_node_affinity_text",
    "parse_preferred_pod_terms_text", "parse_requirement_text", "parse_taint_text", "parse_toleration_text",
    "pod_affinity_edit", "preferred_node_affinity_edit", "preferred_pod_affinity_edit", "remove_node_edit",
    "requests_edit", "result_rows", "run_whatif", "scale_edit", "spread_edit", "summary", "summary_lines",
    "target_of", "target_rows", "tolerations_edit", "workload_edits", "workload_form",
]
