"""Writing outputs safely.

* A file is written to a temporary file beside its target and renamed over
  it, so a reader never sees half a file and an interrupted write leaves the
  old file intact (the temporary file is removed on any exception, and the
  command line turns SIGINT / SIGTERM into one).
* A symlink is written through: its target is replaced, the link stays.
* A target that is not a regular file (a folder, a FIFO, a device, a socket)
  is refused, never replaced.
* A folder of files (a report) is built beside the target and swapped in
  whole, so it holds either the old files or the new ones, never a mix; a
  folder that holds anything else than those files is refused.
* :func:`check_outputs` refuses an output that is an input of the command or
  lies inside an input folder (or an output folder that holds an input).

Errors are :class:`~shrec_eval.errors.OutputError` naming the target as the
user wrote it, never the temporary file.
"""

from __future__ import annotations

import os
import shutil
import stat
import tempfile
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from .errors import OutputError

_WHAT = {
    stat.S_IFDIR: "a folder",
    stat.S_IFIFO: "a FIFO (named pipe)",
    stat.S_IFCHR: "a device",
    stat.S_IFBLK: "a device",
    stat.S_IFSOCK: "a socket",
}


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _new_file_mode() -> int:
    """The mode an ordinary new file gets (0666 less the umask)."""
    return 0o666 & ~_umask()


def _reason(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__


def resolve_file_target(path) -> Path:
    """The regular file (or the new file) that writing ``path`` replaces,
    symlinks followed; an error for anything else."""
    real = Path(os.path.realpath(path))
    try:  # what the path leads to (a link to a pipe: /dev/stdout, /proc/self/fd/1)
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        mode = None
    except OSError as exc:
        raise OutputError(path, f"cannot write the file: {_reason(exc)}") from exc
    if mode is not None and not stat.S_ISREG(mode):
        what = _WHAT.get(stat.S_IFMT(mode), "not a regular file")
        raise OutputError(path, f"this is {what}; an output is only written to a regular file")
    if not real.parent.is_dir():
        raise OutputError(path, f"cannot write the file: the folder {real.parent} does not exist")
    return real


def write_bytes(path, data: bytes) -> None:
    write_pieces(path, (data,))


def write_pieces(path, pieces: Iterable[bytes]) -> None:
    """Write the concatenated ``pieces`` as :func:`write_bytes` writes one
    block: a temporary file beside the target, flushed to disk, renamed
    over it.  Pieces are written as they come (a large document is never
    whole in memory), and the flush to disk runs in a second thread while
    the next pieces are made, so that the final one waits only for the
    last of them."""
    target = resolve_file_target(path)
    try:  # keep the mode of the file replaced; a new file gets the usual one
        mode = target.stat().st_mode & 0o777
    except OSError:
        mode = _new_file_mode()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    except OSError as exc:
        raise OutputError(path, f"cannot write the file: {_reason(exc)}") from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            os.chmod(tmp, mode)
            flusher = _Flusher(fh.fileno())
            try:
                unflushed = 0
                for piece in pieces:
                    fh.write(piece)
                    unflushed += len(piece)
                    if unflushed >= _FLUSH_EVERY:
                        fh.flush()
                        flusher.ask()
                        unflushed = 0
                fh.flush()
            finally:  # the thread stops before the file is closed, whatever happened
                flusher.close()
            if flusher.error is not None:
                raise flusher.error
            os.fsync(fh.fileno())
        os.replace(tmp, target)
    except BaseException as exc:
        _remove(tmp)
        if isinstance(exc, OSError):
            raise OutputError(path, f"cannot write the file: {_reason(exc)}") from exc
        raise


#: bytes written between two requests to the flushing thread
_FLUSH_EVERY = 8 << 20


#: data only where the system has it (not macOS, not Windows)
_datasync = getattr(os, "fdatasync", os.fsync)


class _Flusher:
    """A thread that flushes a file's written data to disk (``fdatasync``)
    when asked, one flush at a time, while the caller writes on.  The
    system call releases the GIL: the disk works while Python makes the
    next pieces."""

    def __init__(self, fd: int) -> None:
        self.fd = fd
        self.error: OSError | None = None
        self._wanted = threading.Event()
        self._asked = self._done = False
        self._thread: threading.Thread | None = None

    def ask(self) -> None:
        """Flush what is written so far (in the thread); a flush that
        failed is raised here, so that writing stops."""
        if self.error is not None:
            raise self.error
        if self._thread is None:
            self._thread = threading.Thread(target=self._run, name="shrec-flush", daemon=True)
            self._thread.start()
        self._asked = True
        self._wanted.set()

    def _run(self) -> None:
        while True:
            self._wanted.wait()
            self._wanted.clear()
            if self._asked:
                self._asked = False
                try:
                    _datasync(self.fd)
                except OSError as exc:
                    self.error = exc
                    return
            if self._done:
                return

    def close(self) -> None:
        """Stop the thread (before the file is closed); a failed flush is
        in :attr:`error`."""
        self._done = True
        if self._thread is not None:
            self._wanted.set()
            self._thread.join()


def write_text(path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def _remove(path) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def write_folder(
    folder, files: Mapping[str, bytes | str], *, replaces: Iterable[str] = ()
) -> list[Path]:
    """Write a folder of files as a whole: built beside ``folder``, then
    swapped in.  An existing ``folder`` may hold only files of the same names
    or named in ``replaces`` (an earlier report); anything else there is
    refused, never removed."""
    known = set(files) | set(replaces)
    real = Path(os.path.realpath(folder))
    if real.exists():
        if not real.is_dir():
            raise OutputError(folder, "this is a file; a folder was expected for this output")
        others = sorted(p.name for p in real.iterdir() if p.name not in known)
        if others:
            raise OutputError(
                folder,
                "the folder holds other files than this output writes "
                f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}); "
                "choose a new or empty folder",
            )
    if not real.parent.is_dir():
        raise OutputError(folder, f"cannot write the folder: {real.parent} does not exist")
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent))
    except OSError as exc:
        raise OutputError(folder, f"cannot write the folder: {_reason(exc)}") from exc
    old = None
    try:
        for name, content in files.items():
            data = content.encode("utf-8") if isinstance(content, str) else content
            if "/" in name:  # a file in a subfolder (a report's thumbs/)
                (tmp / name).parent.mkdir(parents=True, exist_ok=True)
            with open(tmp / name, "wb") as fh:
                os.fchmod(fh.fileno(), _new_file_mode())
                fh.write(data)
                fh.flush()
                os.fsync(fh.fileno())
        # the mode of the folder replaced, or the usual one of a new folder
        os.chmod(tmp, real.stat().st_mode & 0o7777 if real.exists() else 0o777 & ~_umask())
        if real.exists():
            old = Path(tempfile.mkdtemp(prefix=f".{real.name}.old.", dir=real.parent))
            os.rmdir(old)
            os.rename(real, old)
        os.rename(tmp, real)
    except BaseException as exc:
        if old is not None and old.exists() and not real.exists():
            os.rename(old, real)  # put the old folder back
            old = None
        _remove(tmp)
        if isinstance(exc, OSError):
            raise OutputError(folder, f"cannot write the folder: {_reason(exc)}") from exc
        raise
    finally:
        if old is not None:
            _remove(old)
    return [Path(folder) / name for name in files]


def _real(path) -> Path:
    return Path(os.path.realpath(path))


def check_outputs(outputs: Iterable[tuple[str, object, str]], inputs: Iterable[object]) -> None:
    """Before any work: refuse an output (``(option, path, "file" or
    "folder")``) that is an input, lies inside an input folder, is a folder
    holding an input, or cannot be written (a device, a FIFO...)."""
    ins = [(p, _real(p)) for p in inputs if p is not None]
    for option, out, kind in outputs:
        if out is None:
            continue
        if kind == "file":
            resolve_file_target(out)
        elif os.path.exists(out) and not os.path.isdir(out):
            raise OutputError(out, f"this is a file; {option} writes a folder")
        o = _real(out)
        for given, i in ins:
            if o == i:
                raise OutputError(
                    out, f"{option} would replace an input of this command; choose another path"
                )
            if i.is_dir() and o.is_relative_to(i):
                raise OutputError(
                    out,
                    f"{option} lies inside the input folder {given}; choose a path outside it",
                )
            if i.is_relative_to(o):
                raise OutputError(
                    out, f"{option} holds the input {given}; choose a path that holds no input"
                )
