"""The live cluster, read-only: the only package that imports ``kubernetes``.

``connect`` loads credentials the way kubectl does; ``LiveCluster`` keeps a
list+watch store per kind and hands out immutable Snapshots; ``KarpenterLogs``
follows the leader controller's log; ``capture`` writes ``snapshot save`` files.
Every request is a GET (list, watch, get, log) with a timeout.
"""
