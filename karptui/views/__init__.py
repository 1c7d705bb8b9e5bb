"""View models: plain data shaped for display, shared by the CLI and the TUI."""
