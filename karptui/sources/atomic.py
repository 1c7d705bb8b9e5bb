"""karptui's one file writer: snapshots (``snapshot save``) and what-ifs (the TUI's save).

What it promises, and why:

* **Atomic.** The bytes go to a temporary file next to the target, are fsynced,
  and the temporary file is renamed over the target: a reader sees the old
  file or the new one, never half, and a crash cannot leave it empty.
* **Through links.** A symlink to the file stays a link and the file it points
  to is replaced, as a shell's ``>`` would write through it; the temporary file
  sits next to that file, so the rename stays on one filesystem. A link in a
  shared sticky directory (such as ``/tmp``) that neither you nor the
  directory's owner made is not followed: the kernel refuses to follow those
  for ``open`` (``fs.protected_symlinks``) and a userspace resolve must not
  undo that.
* **Ordinary permissions.** A new file gets 0666 less the umask, like any
  editor's; a replaced file keeps its permission bits (a snapshot someone made
  0600 stays 0600).
* **No hidden leftovers.** Temporary files are named ``.NAME.karptui-PID-XXXXXXXX.tmp``.
  A writer killed mid-write (``kill -9`` while it fsyncs a 1 GB snapshot)
  leaves one; every later save into that directory removes those whose writer
  process no longer runs. Nothing else is touched.
* **Checked first.** :func:`check_target` says whether the file can be written
  before any work is done (``snapshot save`` lists the whole cluster only
  after it): the directory exists and is writable, the name is not a directory,
  and an existing file is writable -- a read-only file is its owner saying "do
  not replace me", which a rename alone would ignore.
"""

from __future__ import annotations

import os
import re
import secrets
import stat
from pathlib import Path

from ..errors import InputError

#: Temporary files of this writer; the pid says whether their writer still runs.
TEMP_NAME = re.compile(r"\A\..+\.karptui-(?P<pid>[0-9]{1,10})-[0-9a-f]{8}\.tmp\Z", re.DOTALL)
MAX_LINKS = 40  # as the kernel's limit on links followed in one lookup


def check_target(path: str | Path) -> Path:
    """The file a write to ``path`` would replace (links followed), if it can be written.

    :class:`InputError` (``PATH: what is wrong``) otherwise.
    """
    target = resolve(path)
    folder = target.parent
    try:
        if not folder.is_dir():
            raise InputError(path, f"directory {folder} does not exist")
        if target.is_dir():
            raise InputError(path, "is a directory; give a file name")
        if not _may(folder, os.W_OK | os.X_OK):
            raise InputError(path, f"directory {folder} is not writable")
        if target.exists() and not _may(target, os.W_OK):
            raise InputError(path, "is read-only; not replaced")
    except OSError as exc:  # a loop of links, a name too long, ...
        raise InputError(path, exc.strerror or str(exc)) from None
    return target


def resolve(path: str | Path) -> Path:
    """``path`` with the links of its last component followed (the kernel follows the rest)."""
    current = Path(path)
    for _ in range(MAX_LINKS):
        try:
            info = os.lstat(current)
        except FileNotFoundError:
            return current
        except OSError as exc:
            raise InputError(path, exc.strerror or str(exc)) from None
        if not stat.S_ISLNK(info.st_mode):
            return current
        _check_link(path, current, info)
        current = current.parent / os.readlink(current)
    raise InputError(path, "too many levels of symbolic links")


def _check_link(path: str | Path, link: Path, info: os.stat_result) -> None:
    """The kernel's protected_symlinks rule, for links this module follows itself."""
    folder = os.stat(link.parent)
    shared = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    if shared and info.st_uid not in (os.geteuid(), folder.st_uid):
        raise InputError(path, f"{link} is a link someone else made in a shared directory; not followed")


def _may(path: Path, mode: int) -> bool:
    """Whether this process (its effective ids, as open and rename use) may access ``path``."""
    return os.access(path, mode, effective_ids=os.access in os.supports_effective_ids)


def atomic_write(path: str | Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` as the module docstring says; returns the file written."""
    target = check_target(path)
    folder = target.parent
    remove_stale_temps(folder)
    try:
        mode = stat.S_IMODE(os.stat(target).st_mode) & 0o777
    except FileNotFoundError:
        mode = None
    tmp = folder / f".{target.name[:48]}.karptui-{os.getpid()}-{secrets.token_hex(4)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as handle:
            if mode is not None:
                os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _sync_directory(folder)
    return target


def remove_stale_temps(folder: Path) -> list[Path]:
    """Remove this writer's temporary files in ``folder`` whose writer process is gone."""
    if os.name != "posix":  # os.kill(pid, 0) is how a pid is probed; elsewhere it would kill
        return []
    removed = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    for entry in entries:
        found = TEMP_NAME.match(entry.name)
        if found is None or not entry.is_file(follow_symlinks=False) or _running(int(found["pid"])):
            continue
        try:
            os.unlink(entry.path)
        except OSError:
            continue
        removed.append(Path(entry.path))
    return removed


def _running(pid: int) -> bool:
    """Whether a process ``pid`` runs on this machine (when unsure: yes, so its file is kept)."""
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except (OSError, OverflowError):  # another user's process, or not a pid at all
        return True
    return True


def _sync_directory(folder: Path) -> None:
    """Make the rename itself survive a crash (best effort: not every system can)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
