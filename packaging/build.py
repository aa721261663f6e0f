"""Build the desktop app with PyInstaller and pack a release archive.

    python packaging/build.py [--skip-archive] [--deb] [--readme]

Produces dist/shrec-gui/ (one folder; run dist/shrec-gui/shrec-gui) and, on
Linux and macOS, dist/shrec-gui-VERSION-PLATFORM.tar.gz (a .zip on Windows);
with --deb, dist/shrec-eval_VERSION_ARCH.deb (packaging/deb.py).  On Linux
the bundle's libraries are stripped and Qt's ICU data cut to what Qt uses
(:func:`trim_icu`); a library two wheels both carry is kept once.  Prints
the build time and what the bundle is made of, in MiB; --readme writes that
table into packaging/README.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
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
        re.compile(r'Hidden import "pyqtgraph\.flowchart\.\w+" not found'),
        "pyqtgraph's hook names its flowchart's UI templates; the flowchart is left out (the spec)",
    ),
    (
        re.compile(r'Hidden import "setuptools\._distutils" not found'),
        "setuptools is left out of the bundle on purpose (the spec's excludes)",
    ),
    (
        re.compile(r'Hidden import "xml\.sax\.(xmlreader|expatreader)" not found'),
        "PyInstaller's xml hook names xml.sax's parsers; xml.sax is left out (the spec)",
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


def version() -> str:
    """The version of the checkout as its wheel would have it: setuptools-scm's
    (git tags, pyproject.toml's fallback without .git); without setuptools-scm
    (the test extra has it), the version of the installed shrec-eval."""
    try:
        from setuptools_scm import get_version
    except ImportError:
        from importlib.metadata import version as installed

        return installed("shrec-eval")
    return get_version(root=str(ROOT), fallback_version=_fallback())


def _fallback() -> str:
    import tomllib

    with open(ROOT / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["tool"]["setuptools_scm"]["fallback_version"]


def folder_size(path: Path) -> int:
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


def strip_debug(bundle: Path) -> None:
    """Debug symbols and the symbol tables the loader does not use off the
    shared libraries (``--strip-unneeded``: what they export stays), except
    the wheels' repaired libraries (numpy.libs, scipy.libs, ...), which
    stripping breaks."""
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
            [tool, "--strip-unneeded", *map(str, libs[i : i + 200])],
            check=False,
            stderr=subprocess.DEVNULL,
        )


#: the ICU data Qt's ICU libraries keep (items of the ICU data package, as
#: icupkg names them): the root locale's data (collation, break rules without
#: their dictionaries, normalization, properties, time zones and the
#: supplemental tables), which is what Qt asks of ICU for an app shown in
#: English; not the 800 locales' names, currencies, units and collations, the
#: character-set converters (Qt decodes UTF-8 itself) and transliterators.
#: 31 MiB of data become 3 MiB.
ICU_KEEP = re.compile(
    r"[^/]+\.(icu|nrm|spp)"  # properties, normalization, stringprep, the converter aliases
    r"|(root|res_index|pool|en)\.res"  # the root locale (English falls back to it)
    r"|(?![a-z]{2,3}(_\w+)?\.res)[^/]+\.res"  # tables of no locale (zones, supplemental)
    r"|brkitr/([^/]+\.brk|root\.res|res_index\.res|en\.res)"
    r"|coll/([^/]+\.icu|root\.res|res_index\.res|en\.res)"
)
ICU_DROP = {"unames.icu"}  # character names (no regular expression of Qt asks them)


def trim_icu(bundle: Path) -> str:
    """Qt's ICU data library rebuilt with :data:`ICU_KEEP`'s items only, with
    ICU's own icupkg and binutils (as, ld, readelf); said and skipped when a
    tool is missing.  Returns what was done, for the build's summary."""
    libs = [p for p in bundle.rglob("libicudata.so.*") if p.is_file() and not p.is_symlink()]
    tools = {t: shutil.which(t) for t in ("icupkg", "as", "ld", "readelf")}
    if not libs:
        return "no ICU data library in the bundle"
    missing = [t for t, path in tools.items() if path is None]
    if missing:
        need = ", ".join(missing)
        return f"ICU data kept whole ({need} not found: apt-get install icu-devtools binutils)"
    lib = libs[0]
    symbols = subprocess.run(
        [tools["readelf"], "-W", "--dyn-syms", str(lib)], capture_output=True, text=True, check=True
    ).stdout
    m = re.search(
        r"\s([0-9a-f]+)\s+(0x[0-9a-f]+|\d+)\s+OBJECT\s+GLOBAL\s+\w+\s+\d+\s+(icudt\d+_dat)$",
        symbols,
        re.M,
    )
    sections = subprocess.run(
        [tools["readelf"], "-W", "-S", str(lib)], capture_output=True, text=True, check=True
    ).stdout
    r = re.search(r"\]\s+\.rodata\s+PROGBITS\s+([0-9a-f]+)\s+([0-9a-f]+)", sections)
    if not m or not r:
        return "ICU data kept whole (its data symbol was not found)"
    addr, size, symbol = int(m.group(1), 16), int(m.group(2), 0), m.group(3)
    offset = addr - int(r.group(1), 16) + int(r.group(2), 16)
    name = symbol[: -len("_dat")] + "l.dat"  # icudt73l.dat: the package's own name
    before = lib.stat().st_size
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        with open(lib, "rb") as fh:
            fh.seek(offset)
            (work / "in" / name).parent.mkdir()
            (work / "in" / name).write_bytes(fh.read(size))
        items = subprocess.run(
            [tools["icupkg"], "-l", str(work / "in" / name)],
            capture_output=True,
            text=True,
            check=True,
        ).stdout.split()
        drop = [i for i in items if i in ICU_DROP or not ICU_KEEP.fullmatch(i)]
        (work / "drop.txt").write_text("\n".join(drop) + "\n")
        # the dictionaries the root break rules name go too: ICU breaks without them
        subprocess.run(
            [
                tools["icupkg"],
                "--ignore-deps",
                "--auto_toc_prefix",
                "-r",
                str(work / "drop.txt"),
                str(work / "in" / name),
                str(work / name),
            ],
            check=True,
            capture_output=True,
        )
        (work / "data.s").write_text(
            f"    .section .rodata\n    .globl {symbol}\n    .type {symbol}, @object\n"
            f'    .balign 16\n{symbol}:\n    .incbin "{name}"\n'
            f"    .size {symbol}, .-{symbol}\n"
            '    .section .note.GNU-stack,"",@progbits\n'
        )
        subprocess.run([tools["as"], "-o", "data.o", "data.s"], cwd=work, check=True)
        subprocess.run(
            [
                tools["ld"],
                "-shared",
                "-soname",
                lib.name,
                "-z",
                "noexecstack",
                "-o",
                lib.name,
                "data.o",
            ],
            cwd=work,
            check=True,
        )
        shutil.copyfile(work / lib.name, lib)
    return (
        f"ICU data: {len(items) - len(drop)} of {len(items)} items kept, "
        f"{before / 2**20:.0f} MiB -> {lib.stat().st_size / 2**20:.0f} MiB"
    )


def link_duplicates(bundle: Path) -> str:
    """A library two wheels both carry (numpy.libs and scipy.libs hold the
    same libgfortran and libquadmath) kept once: the second copy becomes a
    relative link to the first."""
    seen: dict[tuple[str, int], Path] = {}
    saved = 0
    for p in sorted(bundle.rglob("*.so*")):
        if not p.is_file() or p.is_symlink() or not p.parent.name.endswith(".libs"):
            continue
        key = (p.name, p.stat().st_size)
        first = seen.setdefault(key, p)
        if first is not p and first.read_bytes() == p.read_bytes():
            saved += p.stat().st_size
            p.unlink()
            p.symlink_to(os.path.relpath(first, p.parent))
    return f"libraries carried twice linked: {saved / 2**20:.1f} MiB"


#: gzip's own default level (``tar czf``'s): tarfile's default, 9, took 3.5
#: times the processor's time (18.5 s against 5.2 s for scipy's 113 MiB) for
#: an archive 1% smaller
GZIP_LEVEL = 6


def pack_archive(bundle: Path, stem: Path, level: int = GZIP_LEVEL) -> Path:
    """The release archive of ``bundle`` (its folder as ``shrec-gui/``):
    ``stem``.zip on Windows, ``stem``.tar.gz elsewhere, at gzip's ``level``
    (:data:`GZIP_LEVEL`; the bundle's tests pack theirs at 1: the same
    files, 3 s of processor instead of 8, 82 MiB instead of 75)."""
    if sys.platform == "win32":
        return Path(shutil.make_archive(str(stem), "zip", bundle.parent, bundle.name))
    archive = stem.with_name(stem.name + ".tar.gz")
    with tarfile.open(archive, "w:gz", compresslevel=level) as tar:
        tar.add(bundle, arcname="shrec-gui")
    return archive


#: the bundle's parts in packaging/README.md's table: a top entry of _internal/
#: by its name (the executable itself is the Python code, compressed)
PARTS = [
    ("Qt (PySide6, its ICU data cut)", ("PySide6", "shiboken6")),
    ("scipy and its OpenBLAS", ("scipy", "scipy.libs")),
    ("numpy and its OpenBLAS", ("numpy", "numpy.libs")),
    ("matplotlib (the print figures)", ("matplotlib", "fontTools", "contourpy", "kiwisolver")),
    ("Pillow (thumbnails)", ("PIL", "pillow.libs")),
    ("the demo and example contests", ("resources",)),
]
README = ROOT / "packaging" / "README.md"
SIZES = re.compile(r"(<!-- sizes: .*? -->\n).*?(<!-- /sizes -->)", re.S)


def sizes_table(bundle: Path, built_s: float, archive: Path | None, deb: Path | None) -> str:
    """What the bundle is made of, in MiB, as packaging/README.md shows it."""
    from importlib.metadata import version as dist_version

    internal = bundle / "_internal"
    parts = {title: 0 for title, _ in PARTS}
    rest = 0
    for entry in internal.iterdir():
        size = folder_size(entry) if entry.is_dir() else entry.lstat().st_size
        title = next((t for t, names in PARTS if entry.name in names), None)
        if title is None:
            rest += size if not entry.is_symlink() else 0
        else:
            parts[title] += size
    exe = next(p for p in bundle.iterdir() if p.is_file() and p.name.startswith("shrec-gui"))
    rows = [*parts.items(), ("the Python code (in the executable)", exe.stat().st_size)]
    rows.append(("Python and the other libraries", rest))
    used = {
        name: dist_version(name)
        for name in ("PyInstaller", "PySide6-Essentials", "numpy", "scipy", "matplotlib", "Pillow")
    }
    lines = [
        f"Built in {built_s:.0f} s with Python {platform.python_version()}, "
        + ", ".join(f"{k} {v}" for k, v in used.items())
        + f" ({platform.system()} {platform.machine()}):",
        "",
        "| part | MiB |",
        "|---|---:|",
        *[f"| {title} | {size / 2**20:.0f} |" for title, size in rows],
        f"| **the bundle, unpacked** | **{folder_size(bundle) / 2**20:.0f}** |",
    ]
    if archive is not None:
        kind = ".zip" if archive.suffix == ".zip" else ".tar.gz"
        lines.append(f"| the `{kind}` archive | {archive.stat().st_size / 2**20:.0f} |")
    if deb is not None:
        lines.append(f"| the `.deb` | {deb.stat().st_size / 2**20:.0f} |")
    return "\n".join(lines) + "\n"


def write_sizes(table: str) -> None:
    """The table into packaging/README.md, between its sizes markers."""
    text = README.read_text(encoding="utf-8")
    new, n = SIZES.subn(lambda m: m.group(1) + "\n" + table + "\n" + m.group(2), text)
    if n != 1:
        raise SystemExit(
            f"{README}: the <!-- sizes: ... --> and <!-- /sizes --> markers are missing"
        )
    README.write_text(new, encoding="utf-8")


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--skip-archive", action="store_true")
    p.add_argument("--deb", action="store_true", help="and the Debian package (packaging/deb.py)")
    p.add_argument(
        "--readme",
        action="store_true",
        help="write this build's sizes into packaging/README.md",
    )
    p.add_argument("--dist", default=str(ROOT / "dist"))
    p.add_argument("--work", default=str(ROOT / "build"))
    p.add_argument("--verbose", action="store_true", help="print every PyInstaller warning")
    p.add_argument(
        "--archive-level",
        type=int,
        choices=range(1, 10),
        default=GZIP_LEVEL,
        metavar="1-9",
        help=f"gzip's level of the .tar.gz (default {GZIP_LEVEL}; the tests' builds pack at 1)",
    )
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
        print(trim_icu(bundle))
    if sys.platform != "win32":
        print(link_duplicates(bundle))
    built = time.perf_counter() - t0
    print(f"built {bundle} in {built:.0f} s; {folder_size(bundle) / 2**20:.0f} MiB unpacked")
    archive = deb = None
    if not args.skip_archive:
        plat = f"{platform.system().lower()}-{platform.machine().lower()}"
        archive = pack_archive(bundle, dist / f"shrec-gui-{version()}-{plat}", args.archive_level)
        print(f"archive {archive}: {archive.stat().st_size / 2**20:.0f} MiB")
    if args.deb:
        sys.path.insert(0, str(ROOT / "packaging"))
        from deb import build_deb

        deb = build_deb(bundle, dist, version())
    table = sizes_table(bundle, built, archive, deb)
    print(table, end="")
    if args.readme:
        write_sizes(table)
        print(f"written to {README}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
