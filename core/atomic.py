"""Writing files atomically: a temporary file in the same folder, renamed
over the target, so a reader never sees half a file and an interrupted
write leaves the old file intact."""

from __future__ import annotations

import os
import tempfile
from pathlib import Path


def _new_file_mode() -> int:
    """The mode an ordinary new file gets (0666 less the umask)."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def write_bytes(path, data: bytes) -> None:
    path = Path(path)
    try:  # keep the mode of the file replaced; a new file gets the usual one
        mode = path.stat().st_mode & 0o777
    except OSError:
        mode = _new_file_mode()
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent or ".")
    try:
        os.chmod(tmp, mode)
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def write_text(path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))
