"""kube-scheduler's default plugins, one module each, in the default profile's order."""
