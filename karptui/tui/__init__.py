"""The Textual app. Renders view models; holds no Kubernetes or scheduling logic."""
