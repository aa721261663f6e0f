"""How this shrec-eval was installed, for the hints that say how to add an
extra (``[app]``, ``[dask]``): no package index serves shrec-eval, so the
command that works is the one of where the user installed it from: the
clone (``pip install -e "CLONE[app]"``), the folder or the wheel file
(``pip install "shrec_eval-X.whl[app]"``), read from the installation's
``direct_url.json`` (PEP 610), with the pip of the Python running."""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from urllib.parse import unquote, urlparse

if sys.platform == "win32":
    from nturl2path import url2pathname
else:  # what urllib.request's is on POSIX, without its import (http, ssl, email: 30 ms)
    url2pathname = unquote

DIST = "shrec-eval"


def _quote(text: str) -> str:
    if sys.platform == "win32":
        return f'"{text}"'
    return shlex.quote(text)


def _source() -> tuple[str, str | None]:
    """(kind, where): ``editable`` / ``folder`` / ``wheel`` / ``archive`` and
    its local path, ``vcs`` or ``url`` and its URL, ``index`` (installed
    without a direct URL) or ``source`` (not installed: run from a checkout)."""
    # the installation Python imports from: the first metadata an installer
    # wrote (a checkout's own shrec_eval.egg-info, found first when Python
    # runs in it, is none)
    from importlib import metadata  # late: 20 to 80 ms (email, zipfile) for a hint only

    dists = list(metadata.distributions(name=DIST))
    installs = [d for d in dists if d.read_text("INSTALLER")] or dists
    if not installs:
        return "source", None
    try:
        info = json.loads(installs[0].read_text("direct_url.json") or "null")
        url = info["url"]
    except (ValueError, KeyError, TypeError):
        return ("index" if installs[0].read_text("INSTALLER") else "source"), None
    if "vcs_info" in info:
        vcs = info["vcs_info"]
        ref = vcs.get("commit_id")
        return "vcs", f"{vcs.get('vcs', 'git')}+{url}" + (f"@{ref}" if ref else "")
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return "url", url
    path = url2pathname(unquote(parsed.path))
    if "dir_info" in info:
        return ("editable" if info["dir_info"].get("editable") else "folder"), path
    return ("wheel" if path.endswith(".whl") else "archive"), path


def pip_install(extra: str) -> str:
    """The command that adds ``extra`` to this installation, as a user types
    it: the pip of this Python, and the clone, folder or file it came from."""
    if getattr(sys, "frozen", False):  # the PyInstaller bundle has no pip
        return (
            f"install shrec-eval's wheel with the extra [{extra}] in a Python environment "
            f'(pip install "shrec_eval-VERSION-py3-none-any.whl[{extra}]"); '
            "the frozen app cannot add it"
        )
    pip = f"{_quote(sys.executable)} -m pip install"
    kind, where = _source()
    if kind == "editable":
        return f"{pip} -e {_quote(f'{where}[{extra}]')}"
    if kind in ("folder", "wheel", "archive") and where is not None:
        return f"{pip} {_quote(f'{where}[{extra}]')}"
    if kind in ("vcs", "url"):
        return f"{pip} {_quote(f'{DIST}[{extra}] @ {where}')}"
    if kind == "index":
        return f"{pip} {_quote(f'{DIST}[{extra}]')}"
    # run from a checkout that is not installed: install the checkout
    root = Path(__file__).resolve().parent.parent
    if (root / "pyproject.toml").is_file():
        return f"{pip} -e {_quote(f'{root}[{extra}]')}"
    return f"{pip} {_quote(f'{DIST}[{extra}]')}"
