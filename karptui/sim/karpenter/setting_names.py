"""Karpenter's controller settings by name: each one's flag and the values it accepts.

The table alone, importing nothing, so the command line's parser can offer the flags
(``karptui --version`` builds it) without loading what the settings change; what each
setting means, how it is read from a snapshot and checked is :mod:`.settings`, which
takes these names from here.
"""

from __future__ import annotations

PREFERENCE_POLICY, MIN_VALUES_POLICY, SCHEDULER_CONFIG = "PREFERENCE_POLICY", "MIN_VALUES_POLICY", "SCHEDULER_CONFIG"
LEGACY_NODE_REPAIR = "LEGACY_NODE_REPAIR"
AWS_FEATURE_GATES = "AWS_FEATURE_GATES"
RESPECT, IGNORE = "Respect", "Ignore"
STRICT, BEST_EFFORT = "Strict", "BestEffort"
TRUE, FALSE = "true", "false"
#: setting -> (Karpenter's flag, the values it accepts; None: any document)
SETTINGS: dict[str, tuple[str, tuple[str, ...] | None]] = {
    PREFERENCE_POLICY: ("--preference-policy", (RESPECT, IGNORE)),
    MIN_VALUES_POLICY: ("--min-values-policy", (STRICT, BEST_EFFORT)),
    SCHEDULER_CONFIG: ("--scheduler-config", None),
    LEGACY_NODE_REPAIR: ("--legacy-node-repair", (TRUE, FALSE)),
    AWS_FEATURE_GATES: ("--aws-feature-gates", None),
}
BOOLEAN = frozenset({LEGACY_NODE_REPAIR})  # Go bool flags: the flag alone means true
