"""The one exception the model raises for malformed Kubernetes objects."""


class ModelError(ValueError):
    """An object (or field) that cannot be understood.

    The message names the field path, so a loader can turn it into one clear
    warning such as ``skipped Pod default/web-1: spec.containers[0].resources:
    '1x' is not a quantity``.
    """
