"""Build the desktop app with PyInstaller and pack a release archive.

    python packaging/build.py [--skip-archive]

Produces dist/shrec-gui/ (one folder; run dist/shrec-gui/shrec-gui) and, on
Linux and macOS, dist/shrec-gui-VERSION-PLATFORM.tar.gz (a .zip on Windows).
Prints the build time and the unpacked size of the bundle.
"""

from __future__ import annotations

import argparse
import platform
import re
import runpy
import shutil
import subprocess
import sys
import tarfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: PyInstaller warnings of this build that are expected, and why; each is
#: counted and summed up in one line instead of printed (--verbose prints them)
KNOWN_WARNINGS = [
    (
        re.compile(r"Failed to collect submodules for 'pyqtgraph\.opengl'"),
        "pyqtgraph's 3-D module needs PyOpenGL, which the app does not use (excluded)",
    ),
    (
        re.compile(r'Hidden import "scipy\.special\._cdflib" not found'),
        "PyInstaller's scipy hook names a module older scipy releases had",
    ),
    (
        re.compile(r'Hidden import "setuptools\._distutils" not found'),
        "setuptools is left out of the bundle on purpose (the spec's excludes)",
    ),
    (
        re.compile(r"Library not found: could not resolve 'lib(gtk|gdk)-3"),
        "the GTK theme plugin's libraries: that plugin is left out (the spec)",
    ),
    (
        re.compile(r"Ignoring icon; supported only on Windows and macOS"),
        "a Linux executable has no icon (the .desktop file names it)",
    ),
    (
        # dateutil (matplotlib imports it) has a Windows time-zone module that
        # loads user32 through ctypes; it is only imported on Windows
        re.compile(r"Library user32 required via ctypes not found"),
        "dateutil's Windows time-zone module names Windows' user32 (imported on Windows only)",
    ),
]
#: a library of Qt's X11 plugin missing on the build machine: said in one line
MISSING_X11 = re.compile(r"Library not found: could not resolve '(libxcb[^']*)'")


def run_pyinstaller(cmd: list[str], verbose: bool) -> None:
    """PyInstaller, its output printed but for the KNOWN_WARNINGS (summed up)."""
    counts: dict[str, int] = {}
    missing: set[str] = set()
    with subprocess.Popen(
        cmd, cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    ) as proc:
        for line in proc.stdout:
            reason = next((why for rx, why in KNOWN_WARNINGS if rx.search(line)), None)
            x11 = MISSING_X11.search(line)
            if x11:
                missing.add(x11.group(1))
            if verbose or (reason is None and x11 is None):
                print(line, end="")
            elif reason is not None:
                counts[reason] = counts.get(reason, 0) + 1
    if proc.returncode:
        raise subprocess.CalledProcessError(proc.returncode, cmd)
    for why, n in counts.items():
        print(f"expected: {n} warning{'s' if n > 1 else ''} not shown: {why}")
    if missing:
        print(
            "note: not on this build machine, so not bundled (the X11 platform plugin then "
            f"loads the user's): {', '.join(sorted(missing))}"
        )


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def strip_debug(bundle: Path) -> None:
    """Debug symbols off the shared libraries, except the wheels' repaired
    libraries (numpy.libs, scipy.libs, ...), which stripping breaks."""
    tool = shutil.which("strip")
    if tool is None:
        print("strip not found: the bundle keeps its debug symbols")
        return
    libs = [
        p
        for p in bundle.rglob("*.so*")
        if p.is_file()
        and not p.is_symlink()
        and not any(part.endswith(".libs") for part in p.parts)
    ]
    for i in range(0, len(libs), 200):
        subprocess.run(
            [tool, "--strip-debug", *map(str, libs[i : i + 200])],
            check=False,
            stderr=subprocess.DEVNULL,
        )


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--skip-archive", action="store_true")
    p.add_argument("--dist", default=str(ROOT / "dist"))
    p.add_argument("--work", default=str(ROOT / "build"))
    p.add_argument("--verbose", action="store_true", help="print every PyInstaller warning")
    args = p.parse_args(argv)
    dist, work = Path(args.dist), Path(args.work)
    t0 = time.perf_counter()
    run_pyinstaller(
        [
            sys.executable,
            "-m",
            "PyInstaller",
            "--noconfirm",
            "--clean",
            "--log-level",
            "WARN",
            "--distpath",
            str(dist),
            "--workpath",
            str(work),
            str(ROOT / "packaging" / "shrec-gui.spec"),
        ],
        args.verbose,
    )
    bundle = dist / "shrec-gui"
    if sys.platform.startswith("linux"):
        strip_debug(bundle)
    built = time.perf_counter() - t0
    print(f"built {bundle} in {built:.0f} s; {folder_size(bundle) / 2**20:.0f} MiB unpacked")
    if not args.skip_archive:
        __version__ = runpy.run_path(str(ROOT / "core" / "_version.py"))["__version__"]
        plat = f"{platform.system().lower()}-{platform.machine().lower()}"
        if sys.platform == "win32":
            archive = shutil.make_archive(
                str(dist / f"shrec-gui-{__version__}-{plat}"), "zip", dist, "shrec-gui"
            )
        else:
            archive = dist / f"shrec-gui-{__version__}-{plat}.tar.gz"
            with tarfile.open(archive, "w:gz") as tar:
                tar.add(bundle, arcname="shrec-gui")
        print(f"archive {archive}: {Path(archive).stat().st_size / 2**20:.0f} MiB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
