"""karptui: a terminal explorer and what-if simulator for Karpenter clusters."""

__version__ = "0.1.0"
