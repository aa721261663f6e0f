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
  inside a folder files are written into, a folder holding other files
  than its output writes, and the outputs against each other (two outputs
  never share a file, a file never lies in an output folder).
  :func:`safe_name` makes a run or method name one file name.
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
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

from ..errors import OutputError
from ..model.names import NAME_KEPT, safe_name  # noqa: F401 - the gate names files by it
from .writing import (  # noqa: F401
    FILE_KINDS,
    check_folder,
    is_std_file,
    resolve_file_target,
    stream_fd,
    utf8,
    write_bytes,
    write_folder,
    write_pieces,
    write_stream,
    write_text,
)


def _real(path) -> Path:
    return Path(os.path.realpath(path))


#: a path of an output or an input (a name that is not UTF-8: with surrogates)
PathArg = str | os.PathLike[str]


def check_outputs(
    outputs: Iterable[tuple[str, PathArg | None, str]], inputs: Iterable[PathArg | None]
) -> None:
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
            std = is_std_file(out)
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
      when they are known before scoring (they are checked too);
    * ``holds``: what an existing folder may hold besides ``names``: the
      files of an earlier output of the same kind, which this one replaces
      (names, or patterns where ``*`` is any text within one name:
      ``table_*.txt``, ``*/micro.txt``).  Anything else there is refused
      before scoring ("the folder holds other files than this output
      writes"); None: the folder is not looked at (``thumbnails OUT`` adds
      its files to any folder).
    """

    option: str
    path: PathArg | None  # (bytes given are decoded below)
    kind: str = "file"
    names: tuple[str, ...] = ()
    holds: tuple[str, ...] | None = None

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
    assert out.path is not None  # the gate's outputs are those given a path
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
        what = FILE_KINDS.get(stat.S_IFMT(mode), "not a regular file")
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
    assert out.path is not None  # the gate's outputs are those given a path
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


def gate_outputs(outputs: Iterable[Output], inputs: Iterable[PathArg | None]) -> list[Output]:
    """The output gate: every output of a command, checked together before
    any scoring.  Refused (an :class:`OutputError` naming the path):

    * an output that is an input, lies inside an input folder or holds an
      input (:func:`check_outputs`), or is a device, FIFO or socket;
    * a file that is the one standard output or error is redirected to
      (``-`` and ``/dev/stdout`` write to the stream instead);
    * inside a ``tree`` output (``--native DIR``): an entry that is a link
      to an input or into an input folder, or a device, FIFO or socket, and
      a planned file name that leaves the folder or is too long;
    * a folder or tree output whose folder holds other files than it
      writes (its ``names`` and ``holds``), as :func:`write_folder` refuses
      it: ``--csv``, ``--report``, ``--native``;
    * two outputs sharing a file or a folder (:func:`_against_each_other`);
    * a file name longer than the system allows.

    ``inputs`` are the paths the command reads (None entries ignored).
    Returns the outputs (None paths left out), in order."""
    outs = [o for o in outputs if o.path is not None]
    ins_list = [p for p in inputs if p is not None]
    for o in outs:
        if o.kind not in ("file", "folder", "tree"):
            raise ValueError(f"unknown output kind {o.kind!r}")
        assert o.path is not None  # narrowed by the filter above
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
    for o in outs:
        if o.holds is not None and o.kind != "file" and os.path.isdir(o.path or ""):
            check_folder(o.path, o.names, o.holds)
    _against_each_other(outs)
    return outs
