"""Opening an input once, whatever it is, without ever blocking forever.

What each kind of path gets (README, "Inputs that are not regular files"):

* a regular file (or a symlink to one): read when a reader needs it; format
  detection reads a bounded head only;
* a folder: a rank-list folder (the readers of single files refuse it);
* a pipe (FIFO, ``<(...)`` process substitution, ``/dev/stdin`` fed by a pipe):
  read **once**, at most ``limit`` bytes (2 GiB, or what the format needs),
  into memory; detection and the reader then use that copy.  Opening never
  blocks: a pipe that no program writes to for 5 s, or whose writer stays
  silent for 60 s, is an error;
* a device (``/dev/zero``, ``/dev/urandom``, a disk), a socket: refused.

:func:`classify_path` tells these apart from ``stat`` alone (never opening
the path), for callers such as the desktop app that must not block.
"""

from __future__ import annotations

import errno
import os
import re
import select
import stat
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from ...errors import Cancelled, FileAccessError, FormatError

#: default cap of what a pipe may send (the reader that knows its format
#: may ask for less, e.g. a binary matrix's exact size)
PIPE_LIMIT = 1 << 31
#: seconds a pipe may stay without a writer (or silent before its first
#: byte) before giving up; once data flows it may pause PIPE_IDLE seconds
PIPE_WAIT = 5.0
PIPE_IDLE = 60.0
_BLOCK = 1 << 20

KINDS = {
    "file": "a regular file",
    "folder": "a folder",
    "pipe": "a pipe",
    "device": "a device",
    "socket": "a socket",
    "missing": "missing",
    "other": "a special file",
}


def a(what: str) -> str:
    """``what`` with its indefinite article: "an assessment", "a run", "an
    ASCII matrix", "an 8 x 8 matrix", "an 11 x 11 matrix", "a 12 x 12 matrix"
    (a number as it is said: eight, eleven, eighteen, eighty... start with a
    vowel)."""
    digits = re.match(r"[0-9]+", what)
    if digits:
        d = digits.group()
        vowel = d[0] == "8" or (len(d) % 3 == 2 and d[:2] in ("11", "18"))
    else:
        vowel = what[:1].lower() in "aeiou"
    return f"{'an' if vowel else 'a'} {what}"


_FD = re.compile(r"/dev/fd/(\d+)|/proc/self/fd/(\d+)|/dev/stdin")


def default_name(path) -> str:
    """The name a run gets from its path when neither the user nor its
    content names it (a TREC run's tag does), in every face (the command
    line's tables, the app from the moment a run is added): the file name
    without extension, a folder's (of rank lists) whole name; a pipe of the
    shell (``<(cmd)`` is ``/dev/fd/63``) is "pipe 63", and standard input
    "stdin"."""
    text = os.fsdecode(os.fspath(path))
    m = _FD.fullmatch(text)
    if m:
        fd = m.group(1) or m.group(2)
        return "stdin" if fd in (None, "0") else f"pipe {fd}"
    if os.path.isdir(text):
        return os.path.basename(os.path.normpath(text)) or text
    return os.path.splitext(os.path.basename(text))[0] or text


def classify_path(path) -> str:
    """``file``, ``folder``, ``pipe``, ``device``, ``socket``, ``missing`` or
    ``other``, from ``os.stat`` (symlinks followed); never opens the path."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return "missing"
    except OSError:
        return "other"
    if stat.S_ISREG(mode):
        return "file"
    if stat.S_ISDIR(mode):
        return "folder"
    if stat.S_ISFIFO(mode):
        return "pipe"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    if stat.S_ISSOCK(mode):
        return "socket"
    return "other"


@dataclass
class ReadWatch:
    """Who follows a reading (the app's progress bar and Cancel): told
    ``progress(done, total)`` as the reader goes (bytes of a file read,
    files of a folder, rows of a matrix checked) and asked ``should_stop()``
    at the same points, before each step (True: :class:`Cancelled`)."""

    progress: Callable[[int, int], None] | None = None
    should_stop: Callable[[], bool] | None = None

    def step(self, done: int, total: int) -> None:
        if self.should_stop is not None and self.should_stop():
            raise Cancelled()
        if self.progress is not None:
            self.progress(done, total)


def watch_step(src, done: int, total: int) -> None:
    """One step of the reading of ``src`` (a :class:`Source`, or a path: no
    one follows it) for its :class:`ReadWatch`."""
    watch = getattr(src, "watch", None)
    if watch is not None:
        watch.step(done, total)


@dataclass
class Source:
    """One input: its path, its kind, and (for a pipe) the bytes it sent;
    ``watch``: who follows its reading (:class:`ReadWatch`), or None."""

    path: str
    kind: str
    _data: bytes | None = field(default=None, repr=False)
    watch: ReadWatch | None = field(default=None, repr=False, compare=False)

    def __fspath__(self) -> str:
        return self.path

    @property
    def size(self) -> int:
        if self._data is not None:
            return len(self._data)
        try:
            return os.path.getsize(self.path)
        except OSError as exc:
            raise FileAccessError.wrap(self.path, exc) from exc

    def head(self, limit: int) -> bytes:
        """The first ``limit`` bytes (fewer at the end of the input)."""
        if self._data is not None:
            return self._data[:limit]
        try:
            with open(self.path, "rb") as fh:
                return fh.read(limit)
        except IsADirectoryError as exc:
            raise FileAccessError(self.path, "this is a folder, a file was expected") from exc
        except OSError as exc:
            raise FileAccessError.wrap(self.path, exc) from exc

    def read(self) -> bytes:
        """The whole content (a pipe's was read when it was opened)."""
        if self._data is not None:
            return self._data
        try:
            with open(self.path, "rb") as fh:
                return fh.read()
        except IsADirectoryError as exc:
            raise FileAccessError(self.path, "this is a folder, a file was expected") from exc
        except OSError as exc:
            raise FileAccessError.wrap(self.path, exc) from exc

    def blocks(self, size: int) -> Iterator[bytes]:
        """The content ``size`` bytes at a time (the last block shorter),
        read from the file as they are asked for: a large file is never
        held in memory whole."""
        size = max(size, 1)
        if self._data is not None:
            total = len(self._data)
            for at in range(0, total, size):
                watch_step(self, at, total)
                yield self._data[at : at + size]
            watch_step(self, total, total)
            return
        try:
            with open(self.path, "rb") as fh:
                total = os.fstat(fh.fileno()).st_size
                done = 0
                while True:
                    watch_step(self, done, max(total, done))
                    block = fh.read(size)
                    if not block:
                        break
                    done += len(block)
                    yield block
        except IsADirectoryError as exc:
            raise FileAccessError(self.path, "this is a folder, a file was expected") from exc
        except OSError as exc:
            raise FileAccessError.wrap(self.path, exc) from exc

    @property
    def in_memory(self) -> bool:
        return self._data is not None


def open_source(
    path, what: str = "file", *, limit: int = PIPE_LIMIT, wait: float = PIPE_WAIT
) -> Source:
    """A :class:`Source` for ``path`` (an existing ``Source`` is returned as
    it is).  Raises :class:`FileAccessError` for what cannot be read."""
    if isinstance(path, Source):
        return path
    path = os.fspath(path)
    kind = classify_path(path)
    if kind in ("file", "folder"):
        return Source(path, kind)
    if kind == "missing":
        raise FileAccessError(path, "cannot read the file: No such file or directory")
    if kind == "pipe":
        return Source(path, "pipe", read_pipe(path, what, limit=limit, wait=wait))
    raise FileAccessError(
        path,
        f"this is {KINDS[kind]}, not a file; {a(what)} was expected "
        "(devices and sockets are never read: give a regular file, or a pipe)",
    )


def read_pipe(
    path, what: str, *, limit: int = PIPE_LIMIT, wait: float = PIPE_WAIT, idle: float = PIPE_IDLE
) -> bytes:
    """Everything a pipe sends until it closes, at most ``limit`` bytes; an
    error when no writer comes for ``wait`` seconds, or when a writer stays
    silent for ``idle`` seconds."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc
    parts: list[bytes] = []
    total = 0
    writer_seen = False
    try:
        poller = select.poll()
        poller.register(fd, select.POLLIN | select.POLLHUP)
        silent_since = time.monotonic()
        while True:
            events = poller.poll(100)
            if not events:
                if time.monotonic() - silent_since > (idle if writer_seen else wait):
                    who = "sent nothing more" if writer_seen else "has no program writing to it"
                    raise FileAccessError(
                        path,
                        f"the pipe {who} for {idle if writer_seen else wait:g} s; "
                        f"{a(what)} was expected",
                    )
                continue
            try:
                chunk = os.read(fd, min(_BLOCK, limit + 1 - total))
            except BlockingIOError:
                continue
            except OSError as exc:
                if exc.errno == errno.EAGAIN:
                    continue
                raise FileAccessError.wrap(path, exc) from exc
            if not chunk:  # end of input (Linux reports no hang-up before a writer came)
                break
            writer_seen = True
            silent_since = time.monotonic()
            parts.append(chunk)
            total += len(chunk)
            if total > limit:
                raise FormatError(
                    path,
                    f"the pipe sends more than {limit} bytes, more than {a(what)} can need",
                )
    finally:
        os.close(fd)
    return b"".join(parts)
