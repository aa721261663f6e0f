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
* :func:`gate_outputs` is the one gate every output of a command goes
  through before any scoring: :func:`check_outputs`, the links and devices
  inside a folder files are written into, and the outputs against each
  other (two outputs never share a file, a file never lies in an output
  folder).  :func:`safe_name` makes a run or method name one file name.
* ``-`` (standard output) and ``/dev/stdout``, ``/dev/stderr``,
  ``/dev/fd/N``, ``/proc/self/fd/N`` are streams: written to (appended
  when the shell opened them with ``>>``), never replaced.
* Text is written as UTF-8; characters that cannot be (a file name that is
  not UTF-8 reaches Python as surrogates) are written as U+FFFD.

Errors are :class:`~shrec_eval.errors.OutputError` naming the target as the
user wrote it, never the temporary file.
"""

from __future__ import annotations

import os
import re
import shutil
import stat
import sys
import tempfile
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputError, shown
from ..model.names import NAME_KEPT, safe_name  # noqa: F401 - the gate names files by it

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


def _is_std_file(path) -> str | None:
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
        what = _WHAT.get(stat.S_IFMT(mode), "not a regular file")
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
    std = _is_std_file(path)
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


def _unknown_entries(folder: Path, known: set[str]) -> list[str]:
    """What ``folder`` holds besides the ``known`` names ("a.csv",
    "figures/b.pdf"; a subfolder is known when it is the start of one)."""
    tops = {n.split("/")[0] for n in known}
    out = []
    for p in folder.iterdir():
        if p.name not in tops:
            out.append(p.name)
        elif p.name not in known and p.is_dir() and not p.is_symlink():
            out += [
                f"{p.name}/{q.relative_to(p).as_posix()}"
                for q in p.rglob("*")
                if f"{p.name}/{q.relative_to(p).as_posix()}" not in known
            ]
        elif p.name not in known:
            out.append(p.name)
    return out


def check_folder(folder, known: Iterable[str]) -> Path:
    """Refuse (OutputError) a ``folder`` that write_folder would refuse: a
    file, a folder holding other files than the ``known`` names, or one
    whose parent does not exist; its real path otherwise.  Called before
    slow work too (a report's figures), so that a refusal comes at once."""
    known = set(known)
    real = Path(os.path.realpath(folder))
    if real.exists():
        if not real.is_dir():
            raise OutputError(folder, "this is a file; a folder was expected for this output")
        others = sorted(_unknown_entries(real, known))
        if others:
            raise OutputError(
                folder,
                "the folder holds other files than this output writes "
                f"({', '.join(others[:3])}{', ...' if len(others) > 3 else ''}); "
                "choose a new or empty folder",
            )
    if not real.parent.is_dir():
        raise OutputError(folder, f"cannot write the folder: {real.parent} does not exist")
    return real


def write_folder(
    folder, files: Mapping[str, bytes | str], *, replaces: Iterable[str] = ()
) -> list[Path]:
    """Write a folder of files as a whole: built beside ``folder``, then
    swapped in.  An existing ``folder`` may hold only files of the same names
    or named in ``replaces`` (an earlier report); anything else there is
    refused, never removed."""
    real = check_folder(folder, set(files) | set(replaces))
    try:
        tmp = Path(tempfile.mkdtemp(prefix=f".{real.name}.", suffix=".tmp", dir=real.parent))
    except OSError as exc:
        raise OutputError(folder, f"cannot write the folder: {_reason(exc)}") from exc
    old = None
    try:
        for name, content in files.items():
            data = utf8(content) if isinstance(content, str) else content
            if "/" in name:  # a file of a subfolder (a report's figures/, thumbs/)
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
        if stream_fd(out) is not None:
            if kind != "file":
                raise OutputError(out, f"{option} writes a folder, not a stream")
            continue
        if kind == "file":
            resolve_file_target(out)
            std = _is_std_file(out)
            if std is not None:
                raise OutputError(
                    out,
                    f"{option} would replace the file {std} goes to; give - to write "
                    "to standard output",
                )
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


# -- the output gate ----------------------------------------------------------------------------

#: bytes a file name may have on the usual file systems (NAME_MAX)
NAME_MAX = 255
#: entries of an output folder looked at for links and devices
_SCAN_LIMIT = 10_000


@dataclass(frozen=True)
class Output:
    """One output a command is asked for.

    * ``option``: how the user named it, for messages (``"--json"``);
    * ``path``: where (``-`` or ``/dev/stdout``: a stream, files only);
    * ``kind``: ``"file"`` (replaced atomically), ``"folder"`` (a folder
      written whole, :func:`write_folder`: a report) or ``"tree"`` (a
      folder files are written into, some in subfolders: ``--native``);
    * ``names``: the files a folder or tree will hold, relative to it,
      when they are known before scoring (they are checked too).
    """

    option: str
    path: object
    kind: str = "file"
    names: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.path, bytes):  # a name that is not UTF-8, as bytes
            object.__setattr__(self, "path", os.fsdecode(self.path))

    @property
    def stream(self) -> int | None:
        """The file descriptor of a stream output, else None."""
        return stream_fd(self.path) if self.kind == "file" else None


def _inside(a: Path, b: Path) -> bool:
    return a == b or a.is_relative_to(b)


def _name_lengths(out: Output) -> None:
    for part in Path(os.fsdecode(os.fspath(out.path))).parts:
        if len(os.fsencode(part)) > NAME_MAX:
            raise OutputError(
                out.path,
                f"{out.option}: a file name of more than {NAME_MAX} bytes cannot be written",
            )


def _link_problem(entry: str, ins) -> str | None:
    """Why writing through ``entry`` (inside a tree output) is refused."""
    try:
        mode = os.stat(entry).st_mode
    except OSError:
        return None  # a dangling link: writing makes a new file
    if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
        what = _WHAT.get(stat.S_IFMT(mode), "not a regular file")
        return f"it holds {entry}, which is {what}"
    if not os.path.islink(entry):
        return None
    real = _real(entry)
    for given, i in ins:
        if real == i or (i.is_dir() and real.is_relative_to(i)) or i.is_relative_to(real):
            return (
                f"it holds {entry}, a link to the input {given}; "
                "outputs are never written through it"
            )
    return None


def _check_tree(out: Output, ins) -> None:
    """The links and special files inside a folder that files are written
    into (every entry, two levels down: DIR/<run>/<file>), and the files it
    will hold when their names are known."""
    root = os.fspath(out.path)
    for name in out.names:
        rel = Path(name)
        if rel.is_absolute() or ".." in rel.parts:
            raise OutputError(out.path, f"{out.option}: the file name {name!r} leaves the folder")
        for part in rel.parts:
            if len(os.fsencode(part)) > NAME_MAX:
                raise OutputError(
                    out.path,
                    f"{out.option}: a file name of more than {NAME_MAX} bytes cannot be written",
                )
    if not os.path.isdir(root):
        return
    seen = 0
    level = [root]
    for _depth in range(2):
        nxt = []
        for folder in level:
            try:
                entries = list(os.scandir(folder))
            except OSError:
                continue
            for e in entries:
                seen += 1
                if seen > _SCAN_LIMIT:
                    return
                problem = _link_problem(e.path, ins)
                if problem:
                    raise OutputError(out.path, f"{out.option}: {problem}")
                if e.is_dir():  # a link to a folder is followed (its files are written to)
                    nxt.append(e.path)
        level = nxt
    for name in out.names:  # files that will be written, whatever their folder is
        target = os.path.join(root, name)
        if os.path.lexists(target):
            problem = _link_problem(target, ins)
            if problem:
                raise OutputError(out.path, f"{out.option}: {problem}")


def _against_each_other(outs: list[Output]) -> None:
    """No two outputs share a file: two files, a file inside an output
    folder, two output folders one inside the other."""
    real = [(o, _real(o.path)) for o in outs if o.stream is None]
    streams: dict[int, Output] = {}
    for o in outs:
        if o.stream is not None:
            if o.stream in streams:
                raise OutputError(
                    o.path, f"{o.option} and {streams[o.stream].option} both write to this stream"
                )
            streams[o.stream] = o
    for i, (a, ra) in enumerate(real):
        for b, rb in real[i + 1 :]:
            if a.kind == "file" and b.kind == "file":
                if ra == rb:
                    raise OutputError(a.path, f"{a.option} and {b.option} name the same file")
                continue
            if a.kind == "file" or b.kind == "file":
                f, rf, d, rd = (a, ra, b, rb) if a.kind == "file" else (b, rb, a, ra)
                if _inside(rf, rd):
                    raise OutputError(
                        f.path,
                        f"{f.option} lies in the {d.option} folder {d.path}, which the "
                        f"{d.option} output writes; choose a path outside it",
                    )
                if rd.is_relative_to(rf):
                    raise OutputError(d.path, f"{d.option} lies in the path of {f.option}")
                continue
            if _inside(ra, rb) or _inside(rb, ra):
                raise OutputError(
                    a.path,
                    f"{a.option} and {b.option} {b.path} share a folder; give each its own folder",
                )


def gate_outputs(outputs: Iterable[Output], inputs: Iterable[object]) -> list[Output]:
    """The output gate: every output of a command, checked together before
    any scoring.  Refused (an :class:`OutputError` naming the path):

    * an output that is an input, lies inside an input folder or holds an
      input (:func:`check_outputs`), or is a device, FIFO or socket;
    * a file that is the one standard output or error is redirected to
      (``-`` and ``/dev/stdout`` write to the stream instead);
    * inside a ``tree`` output (``--native DIR``): an entry that is a link
      to an input or into an input folder, or a device, FIFO or socket, and
      a planned file name that leaves the folder or is too long;
    * two outputs sharing a file or a folder (:func:`_against_each_other`);
    * a file name longer than the system allows.

    ``inputs`` are the paths the command reads (None entries ignored).
    Returns the outputs (None paths left out), in order."""
    outs = [o for o in outputs if o.path is not None]
    ins_list = [p for p in inputs if p is not None]
    for o in outs:
        if o.kind not in ("file", "folder", "tree"):
            raise ValueError(f"unknown output kind {o.kind!r}")
        text = os.fsdecode(os.fspath(o.path))
        if not text:
            raise OutputError(o.option, "an empty path was given; name a file or folder")
        if o.stream is None:
            if o.kind == "file" and text.endswith(("/", os.sep)):
                raise OutputError(
                    o.path,
                    f"{o.option}: a file is written here, and this path names a folder "
                    "(it ends with /); give a file name",
                )
            _name_lengths(o)
    check_outputs(
        [(o.option, o.path, "file" if o.kind == "file" else "folder") for o in outs], ins_list
    )
    ins = [(p, _real(p)) for p in ins_list]
    for o in outs:
        if o.kind == "tree":
            _check_tree(o, ins)
    _against_each_other(outs)
    return outs


def checked_write(path, text: str, inputs: Iterable[object], option: str = "output") -> None:
    """:func:`write_text` after the input check, at the moment of writing
    (a file of a tree output whose name was not known before scoring)."""
    check_outputs([(option, path, "file")], inputs)
    write_text(path, text)
