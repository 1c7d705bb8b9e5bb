"""A recording (``karptui record OUT``): a cluster's history kept on disk, and read back.

The format (docs/record.md) is a directory: a manifest and numbered, self-contained,
gzip-compressed JSON segments, each written atomically. :mod:`.segments` owns the format,
:mod:`.writer` appends to it (and rotates it under a size cap), :mod:`.reader` replays it
into ordinary Snapshots. No Textual and no Kubernetes client here: the live side that
feeds the writer is :mod:`karptui.cluster.recorder`.
"""

from .reader import Moment, Recording, is_recording
from .segments import FORMAT, parse_size
from .writer import RecordingWriter

__all__ = ["FORMAT", "Moment", "Recording", "RecordingWriter", "is_recording", "parse_size"]
