"""Files written atomically: each output goes to a temporary file beside its
target, flushed and renamed over it (write_bytes, write_text, write_pieces a
piece at a time, write_folder for a report folder whose stale files are
removed), or to a stream when the path names one (-, /dev/stdout). A failure
leaves the old file as it was. What may be written where is the gate's
(atomic).

For the gate (atomic): FILE_KINDS (what a path that is not a regular file
is) and is_std_file."""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Callable, Iterable, Mapping
from fnmatch import fnmatchcase
from pathlib import Path

from ..errors import OutputError, shown

FILE_KINDS = {
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


_STREAM = re.compile(r"/dev/fd/(\d+)|/proc/self/fd/(\d+)")


def stream_fd(path) -> int | None:
    """The file descriptor an output path names, or None for a file: ``-``
    is standard output, ``/dev/stdout`` 1, ``/dev/stderr`` 2,
    ``/dev/fd/N`` and ``/proc/self/fd/N`` N.  A stream is written to where
    it stands (a file opened with ``>>`` is appended to), never replaced."""
    if isinstance(path, os.PathLike):
        path = os.fspath(path)
    if isinstance(path, bytes):
        path = os.fsdecode(path)
    if not isinstance(path, str):
        return None
    if path in ("-", "/dev/stdout"):
        return 1
    if path == "/dev/stderr":
        return 2
    m = _STREAM.fullmatch(path)
    return int(m.group(1) or m.group(2)) if m else None


def utf8(text: str) -> bytes:
    """``text`` as UTF-8 bytes (see :func:`shown`)."""
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError:
        return shown(text).encode("utf-8")


def is_std_file(path) -> str | None:
    """ "standard output" / "standard error" when ``path`` is the regular
    file the stream is redirected to (replacing it would lose what the
    stream holds and what is still written to it)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    for fd, name in ((1, "standard output"), (2, "standard error")):
        try:
            fst = os.fstat(fd)
        except OSError:
            continue
        if stat.S_ISREG(fst.st_mode) and os.path.samestat(st, fst):
            return name
    return None


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
        what = FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
        raise OutputError(path, f"this is {what}; an output is only written to a regular file")
    if not real.parent.is_dir():
        raise OutputError(path, f"cannot write the file: the folder {real.parent} does not exist")
    return real


def write_bytes(path, data: bytes, *, sync: bool = True) -> None:
    write_pieces(path, (data,), sync=sync)


def write_stream(fd: int, pieces: Iterable[bytes], path=None) -> None:
    """Write ``pieces`` to an open stream (standard output...), after what
    Python printed there so far.  A closed pipe raises BrokenPipeError (the
    command line's quiet exit 141); another failure an OutputError."""
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            pass
    try:
        for piece in pieces:
            view = memoryview(piece)
            while view:
                view = view[os.write(fd, view) :]
    except BrokenPipeError:
        raise
    except OSError as exc:
        raise OutputError(path if path is not None else f"/dev/fd/{fd}", _reason(exc)) from exc


def write_pieces(path, pieces: Iterable[bytes], *, sync: bool = True) -> None:
    """Write the concatenated ``pieces`` as :func:`write_bytes` writes one
    block: a temporary file beside the target, flushed to disk, renamed
    over it.  Pieces are written as they come (a large document is never
    whole in memory), and the flush to disk runs in a second thread while
    the next pieces are made, so that the final one waits only for the
    last of them.  A stream (:func:`stream_fd`) is written to as it is.
    ``sync=False``: no flush to disk (files that can be made again, such
    as thumbnails: still replaced whole, but a crash may lose them)."""
    fd = stream_fd(path)
    if fd is not None:
        write_stream(fd, pieces, path)
        return
    std = is_std_file(path)
    if std is not None:
        raise OutputError(
            path, f"this is the file {std} goes to; replacing it would lose it (give - instead)"
        )
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
                    if sync and unflushed >= _FLUSH_EVERY:
                        fh.flush()
                        flusher.ask()
                        unflushed = 0
                fh.flush()
            finally:  # the thread stops before the file is closed, whatever happened
                flusher.close()
            if flusher.error is not None:
                raise flusher.error
            if sync:
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
    write_bytes(path, utf8(text))


def _remove(path) -> None:
    try:
        if os.path.isdir(path) and not os.path.islink(path):
            shutil.rmtree(path)
        else:
            os.unlink(path)
    except OSError:
        pass


def _matches(rel: str, known: set[str], patterns: list[tuple[str, ...]]) -> bool:
    """Whether ``rel`` ("a.csv", "run/micro.txt") is a known name or matches
    a pattern of as many parts (``*`` any text within one name)."""
    if rel in known:
        return True
    parts = rel.split("/")
    return any(
        len(p) == len(parts) and all(fnmatchcase(a, b) for a, b in zip(parts, p)) for p in patterns
    )


#: entries named in "the folder holds other files than this output writes (...)"
_OTHERS_SHOWN = 3


def _unknown_entries(
    folder: Path, known: set[str], patterns: Iterable[str] = (), limit: int = _OTHERS_SHOWN + 1
) -> list[str]:
    """What ``folder`` holds besides the ``known`` names ("a.csv",
    "figures/b.pdf"; a subfolder is known when it is the start of one) and
    the names matching ``patterns`` ("table_*.txt", "*/micro.txt": ``*`` any
    text within one name): the first ``limit`` of them, in name order (a
    folder of many files is not walked whole to say that it is not empty)."""
    pats = [tuple(p.split("/")) for p in patterns]
    tops = {n.split("/")[0] for n in known}
    deep = [p[0] for p in pats if len(p) > 1]
    out: list[str] = []

    def below(path: Path, rel: str) -> None:
        for q in sorted(path.iterdir()):
            if len(out) >= limit:
                return
            name = f"{rel}/{q.name}"
            if not _matches(name, known, pats):
                out.append(name)
            if q.is_dir() and not q.is_symlink():
                below(q, name)

    for p in sorted(folder.iterdir()):
        if len(out) >= limit:
            break
        if _matches(p.name, known, pats):
            continue  # a known file, or a known folder as a whole (thumbs)
        inner = p.name in tops or any(fnmatchcase(p.name, d) for d in deep)
        if inner and p.is_dir() and not p.is_symlink():
            below(p, p.name)  # a folder of known files (figures/, a run's)
        else:
            out.append(p.name)
    return out[:limit]


def check_folder(folder, known: Iterable[str], patterns: Iterable[str] = ()) -> Path:
    """Refuse (OutputError) a ``folder`` that write_folder would refuse: a
    file, a folder holding other files than the ``known`` names (or names
    matching ``patterns``, see :func:`_unknown_entries`), or one whose
    parent does not exist; its real path otherwise.  The output gate calls
    it before any scoring, a writer again as it writes."""
    known = set(known)
    real = Path(os.path.realpath(folder))
    if real.exists():
        if not real.is_dir():
            raise OutputError(folder, "this is a file; a folder was expected for this output")
        try:
            others = _unknown_entries(real, known, patterns)
        except OSError as exc:
            raise OutputError(folder, f"cannot read the folder: {_reason(exc)}") from exc
        if others:
            raise OutputError(
                folder,
                "the folder holds other files than this output writes "
                f"({', '.join(others[:_OTHERS_SHOWN])}"
                f"{', ...' if len(others) > _OTHERS_SHOWN else ''}); "
                "choose a new or empty folder",
            )
    if not real.parent.is_dir():
        raise OutputError(folder, f"cannot write the folder: {real.parent} does not exist")
    return real


#: threads flushing a folder's files to disk at the same time
_FOLDER_FLUSHERS = 8
#: how a written file is opened again to be flushed (POSIX flushes a file
#: opened for reading too, whatever its mode; Windows wants write access)
_FLUSH_OPEN = os.O_RDONLY if os.name == "posix" else os.O_WRONLY | getattr(os, "O_BINARY", 0)


class _Flushes:
    """Flush written files to disk (``fsync``), several at a time: the file
    system commits flushes that wait together at once (a report's 900
    thumbnails flushed one after the other took 1.5 to 3 s; 0.1 s so).
    :meth:`start` starts flushing some files and returns at once (more
    files may be started while they go to disk); :meth:`join` waits for
    all and raises the first failure.  Daemon threads, not a
    ThreadPoolExecutor, whose threads the interpreter waits for at exit: a
    signal ends the command at once, not after the flushes under way (the
    folder's clean-up has run by then)."""

    def __init__(self) -> None:
        self._todo: list[Path] = []
        self._lock = threading.Lock()
        self._failed: list[Exception] = []
        self._threads: list[threading.Thread] = []

    def _flush(self) -> None:
        while not self._failed:
            with self._lock:
                path = self._todo.pop() if self._todo else None
            if path is None:
                return
            try:
                fd = os.open(path, _FLUSH_OPEN)
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)
            except Exception as exc:  # raised in the caller's thread
                self._failed.append(exc)

    def start(self, paths: list[Path]) -> None:
        with self._lock:
            self._todo[:0] = paths[::-1]  # in order, after those waiting
        for _ in range(min(_FOLDER_FLUSHERS, len(paths))):
            t = threading.Thread(target=self._flush, name="shrec-flush", daemon=True)
            t.start()
            self._threads.append(t)

    def join(self) -> None:
        for t in self._threads:
            t.join()
        if self._failed:
            raise self._failed[0]


def _write_files(tmp: Path, files: Mapping[str, bytes | str], mode: int) -> list[Path]:
    # each subfolder made once (a report's figures/, thumbs/: its 900 thumbnails
    # asked the file system for their folder one by one)
    for folder in dict.fromkeys(name.rpartition("/")[0] for name in files if "/" in name):
        (tmp / folder).mkdir(parents=True, exist_ok=True)
    for name, content in files.items():
        data = utf8(content) if isinstance(content, str) else content
        with open(tmp / name, "wb") as fh:
            os.fchmod(fh.fileno(), mode)
            fh.write(data)
    return [tmp / name for name in files]


def write_folder(
    folder,
    files: Mapping[str, bytes | str],
    *,
    replaces: Iterable[str] = (),
    later: Callable[[], Mapping[str, bytes | str]] | None = None,
) -> list[Path]:
    """Write a folder of files as a whole: built beside ``folder``, then
    swapped in.  An existing ``folder`` may hold only files of the same names
    or named in ``replaces`` (an earlier report); anything else there is
    refused, never removed.  ``later``: the function giving the folder's
    last files (named in ``replaces``: a report's figures, drawn meanwhile),
    called once ``files`` are written and on their way to disk."""
    replaces = set(replaces)
    real = check_folder(folder, set(files) | replaces)
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent))
    except OSError as exc:
        raise OutputError(folder, f"cannot write the folder: {_reason(exc)}") from exc
    old = None
    try:
        mode = _new_file_mode()
        flushes = _Flushes()
        flushes.start(_write_files(tmp, files, mode))
        if later is not None:
            more = later()
            stray = sorted(set(more) - replaces)
            if stray:  # a caller's mistake, not the user's
                raise ValueError(f"files not named in replaces: {', '.join(stray)}")
            flushes.start(_write_files(tmp, more, mode))
            files = {**files, **more}
        flushes.join()
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
