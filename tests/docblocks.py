"""The fenced code blocks of the project's pages, and running them as a
reader would (tests/test_project_docs.py).

A page is read as one terminal session from a fresh clone: its shell blocks
(``bash``, ``sh``, ``shell``, ``console``) run in bash one after the other,
each starting in the folder the one before ended in, and its Python blocks
run in one Python session started in that folder.  A block is followed by
what it prints when the next block is a ``text`` block (only blank lines
between); in a ``console`` block, the lines after a ``$ `` command are its
output.  A shown output is compared line by line (trailing spaces aside);
``...`` stands for any text, within a line or over lines.

A block that cannot run here carries an HTML comment on the line before it
(blank lines allowed) saying why: ``<!-- not run: windows -->``.
"""

from __future__ import annotations

import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
#: the pages whose blocks run
PAGES = [
    ROOT / "README.md",
    *sorted((ROOT / "docs").glob("*.md")),
    ROOT / "packaging" / "README.md",
]

SHELL = {"bash", "sh", "shell", "console"}
PYTHON = {"python", "py"}
#: what a block that is not code holds: an output, a file's content, a synopsis
DATA = {"", "text", "json", "toml", "csv", "xml", "ini", "yaml", "tex", "latex", "markdown", "html"}
#: code of another system: such a block says where it runs (a marker)
ELSEWHERE = {"bat", "cmd", "powershell", "ps1", "zsh", "fish"}

FENCE = re.compile(r"^(\s*)```\s*([\w+-]*)\s*$")
NOT_RUN = re.compile(r"^\s*<!--\s*not run:\s*(.*?)\s*-->\s*$")
MARKER = re.compile(r"^\s*<!--\s*not run\b")


@dataclass
class Block:
    page: Path
    line: int  # of the opening fence, 1-based
    lang: str
    code: str
    not_run: str | None = None  # the reason
    shown: str | None = None  # the output the page shows

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT).as_posix()}:{self.line}"

    @property
    def kind(self) -> str:
        if self.lang in SHELL:
            return "shell"
        if self.lang in PYTHON:
            return "python"
        return "data" if self.lang in DATA else "other"


def parse(page: Path) -> tuple[list[Block], list[str]]:
    """Every fenced block of a page in order (an output shown after code is
    that code's ``shown``, not a block of its own), and the page's problems:
    a marker written otherwise or before no block, a fence never closed, a
    language these tests do not know, code of another system without a
    marker."""
    lines = page.read_text(encoding="utf-8").splitlines()
    rel = page.relative_to(ROOT).as_posix()
    out: list[Block] = []
    problems: list[str] = []
    marker: tuple[int, str] | None = None
    ends: dict[int, int] = {}  # a block's line -> the line after its closing fence
    i = 0
    while i < len(lines):
        m = FENCE.match(lines[i])
        if not m:
            n = NOT_RUN.match(lines[i])
            if n:
                marker = (i + 1, n.group(1))
            elif MARKER.search(lines[i]):
                problems.append(f"{rel}:{i + 1}: write the marker as <!-- not run: REASON -->")
            elif lines[i].strip() and marker is not None:
                problems.append(f"{rel}:{marker[0]}: a 'not run' marker not right before a block")
                marker = None
            i += 1
            continue
        indent, lang = m.group(1), m.group(2).lower()
        j = i + 1
        while j < len(lines) and not re.match(rf"^{indent}```\s*$", lines[j]):
            j += 1
        if j == len(lines):
            problems.append(f"{rel}:{i + 1}: a fenced block is never closed")
            break
        body = [ln[len(indent) :] if ln.startswith(indent) else ln for ln in lines[i + 1 : j]]
        block = Block(page, i + 1, lang, "\n".join(body) + "\n", marker[1] if marker else None)
        marker = None
        last = out[-1] if out else None
        if (
            lang == "text"
            and last is not None
            and last.kind in ("shell", "python")
            and last.shown is None
            and not any(ln.strip() for ln in lines[ends[last.line] : i])
        ):
            last.shown = block.code
        else:
            out.append(block)
            ends[block.line] = j + 1
        i = j + 1
    if marker is not None:
        problems.append(f"{rel}:{marker[0]}: a 'not run' marker not right before a block")
    for b in out:
        if b.kind == "other" and b.lang not in ELSEWHERE:
            problems.append(
                f"{b.where}: a block of language {b.lang!r}: tests/docblocks.py does not know "
                "whether it runs (add the language to SHELL, PYTHON, DATA or ELSEWHERE)"
            )
        elif b.lang in ELSEWHERE and b.not_run is None:
            problems.append(f"{b.where}: a {b.lang} block needs <!-- not run: REASON -->")
        elif b.not_run is not None and b.kind == "data":
            problems.append(f"{b.where}: a 'not run' marker on a block that is not code")
        elif b.not_run is not None and not b.not_run.strip():
            problems.append(f"{b.where}: a 'not run' marker without its reason")
    return out, problems


def blocks(page: Path) -> list[Block]:
    return parse(page)[0]


def console_script(code: str) -> tuple[str, str | None]:
    """A console block's commands (``$ `` lines and their ``> `` continuations)
    and the output it shows (None when it shows none)."""
    commands, shown = [], []
    for ln in code.splitlines():
        if ln.startswith("$ "):
            commands.append(ln[2:])
        elif ln.startswith("> ") and commands:
            commands[-1] += "\n" + ln[2:]
        else:
            shown.append(ln)
    text = "\n".join(shown).strip("\n")
    return "\n".join(commands) + "\n", (text + "\n" if text else None)


def matches(output: str, shown: str) -> bool:
    """Whether an output is the one shown: line by line, trailing spaces and
    blank lines at the end aside; ``...`` is any text (over lines too)."""

    def norm(text: str) -> str:
        return "\n".join(ln.rstrip() for ln in text.strip("\n").splitlines())

    parts = [re.escape(p) for p in norm(shown).split("...")]
    return re.fullmatch(".*?".join(parts), norm(output), re.S) is not None


def scratch_clone(dest: Path) -> Path:
    """A copy of the repository's files as a fresh clone has them, with the
    virtual environment of this test run as its ``.venv`` (README's install
    command made one there)."""
    ignore = shutil.ignore_patterns(
        ".git", ".venv", "build", "dist", "*.egg-info", "__pycache__", ".*_cache", ".hypothesis"
    )
    shutil.copytree(ROOT, dest, ignore=ignore, symlinks=True)
    prefix = Path(sys.prefix)
    if (prefix / "bin" / "activate").exists():
        (dest / ".venv").symlink_to(prefix, target_is_directory=True)
    else:  # not a virtual environment: one whose activate puts this Python first
        (dest / ".venv" / "bin").mkdir(parents=True)
        bindir = Path(sys.executable).parent
        (dest / ".venv" / "bin" / "activate").write_text(f'export PATH="{bindir}:$PATH"\n')
        for name in ("python", "python3", "pip", "shrec-eval", "shrec-gui"):
            if (bindir / name).exists():
                (dest / ".venv" / "bin" / name).symlink_to(bindir / name)
    return dest


class Session:
    """One reader's terminal and Python session over a page."""

    def __init__(self, clone: Path, home: Path) -> None:
        self.cwd = clone
        self.scope: dict = {"__name__": "__main__"}
        bindir = str(Path(sys.executable).parent)
        self.env = {
            k: v for k, v in os.environ.items() if k not in ("VIRTUAL_ENV", "PYTHONHOME", "CDPATH")
        }
        self.env.update(
            HOME=str(home),
            PATH=f"{bindir}{os.pathsep}{os.environ.get('PATH', '')}",
            QT_QPA_PLATFORM="offscreen",
            COLUMNS="100",
            PYTHONDONTWRITEBYTECODE="1",
        )
        self._state = home / ".docblock-cwd"

    def shell(self, code: str, timeout: float = 600) -> str:
        """A block in bash, stopping at the first command that fails; its
        output and errors as a terminal shows them, in one stream."""
        script = f"trap 'pwd > \"{self._state}\"' EXIT\nset -e -o pipefail\n{code}"
        p = subprocess.run(
            ["bash", "-c", script],
            cwd=self.cwd,
            env=self.env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL,
            text=True,
            timeout=timeout,
        )
        if self._state.exists():
            self.cwd = Path(self._state.read_text().strip())
        if p.returncode != 0:
            raise AssertionError(f"exit status {p.returncode}:\n{p.stdout[-4000:]}")
        return p.stdout

    def python(self, code: str, where: str) -> str:
        out = io.StringIO()
        old = os.getcwd()
        os.chdir(self.cwd)
        try:
            with contextlib.redirect_stdout(out):
                exec(compile(code, where, "exec"), self.scope)
            self.cwd = Path(os.getcwd())
        finally:
            os.chdir(old)
        return out.getvalue()

    def run(self, block: Block) -> None:
        shown = block.shown
        if block.lang == "console":
            code, in_block = console_script(block.code)
            shown = in_block if in_block is not None else shown
            output = self.shell(code)
        elif block.kind == "shell":
            output = self.shell(block.code)
        else:
            output = self.python(block.code, block.where)
        if shown is not None and not matches(output, shown):
            raise AssertionError(
                f"{block.where}: the output is not the one the page shows.\n"
                f"--- shown\n{shown}--- printed\n{output}"
            )


def runnable(page: Path) -> list[Block]:
    return [b for b in blocks(page) if b.kind in ("shell", "python") and b.not_run is None]


def has_commands(page: Path) -> bool:
    return any(b.kind == "shell" for b in runnable(page))
