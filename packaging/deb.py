"""A Debian package of the frozen app, made with dpkg-deb alone.

    python packaging/deb.py [--bundle dist/shrec-gui] [--out dist]
    (or: python packaging/build.py --deb, which builds the bundle first)

Writes dist/shrec-eval_VERSION_ARCH.deb, installed with
``sudo apt-get install ./dist/shrec-eval_VERSION_ARCH.deb``:

* /opt/shrec-eval/: the PyInstaller bundle (packaging/build.py);
* /usr/bin/shrec-gui and /usr/bin/shrec-eval: links to its executable, which
  runs the command line when started as shrec-eval (packaging/launch.py);
* the desktop entry (resources/shrec-gui.desktop, its command named as
  /usr/bin/shrec-gui: packaged_entry), the icon in every size
  of the hicolor theme, the AppStream metainfo, and the MIME type of contest
  files (resources/shrec-eval-mime.xml: a contest.json, or a JSON file that
  starts the way contest files and the app's sessions do), which the desktop
  entry opens: double-clicking a contest opens it in the app;
* Depends: the Debian packages of the system libraries the bundle loads and
  does not carry (found with ldd and dpkg -S), Recommends: what registers
  the menu entry and the MIME type (their dpkg triggers update the caches on
  install and removal: no maintainer script).
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
RESOURCES = ROOT / "resources"
PACKAGE = "shrec-eval"
PREFIX = Path("opt") / PACKAGE
SCALABLE = Path("hicolor") / "scalable" / "apps"
MAINTAINER = "The shrec-eval authors <shrec-eval@users.noreply.github.com>"
#: the C library's own sonames (one package, libc6)
LIBC = re.compile(
    r"^(libc|libm|libdl|libpthread|librt|libutil|libresolv|libmvec|ld-linux[\w.-]*)\.so"
)
#: what a desktop needs to list the menu entry, know contest files and open them
RECOMMENDS = ["desktop-file-utils", "shared-mime-info", "hicolor-icon-theme", "xdg-utils"]
#: libraries Qt's platform plugins load that a build machine may lack (a
#: headless one): named here so that the package depends on them anyway
PLATFORM_PACKAGES = [
    "libxcb-cursor0",
    "libxcb-icccm4",
    "libxcb-keysyms1",
    "libxkbcommon-x11-0",
    "libegl1",
    "libgl1",
]


def debian_version(version: str) -> str:
    """A Python version as Debian orders it: a dev release sorts before its
    release (``0.2.1.dev3+g1a2b`` is ``0.2.1~dev3+g1a2b``)."""
    public, plus, local = version.partition("+")  # the local part names a commit: kept
    public = re.sub(r"\.?(dev|a|b|rc)(\d+)", r"~\1\2", public)
    return re.sub(r"[^A-Za-z0-9.+~-]", ".", public + plus + local)


def _run(cmd, **kw) -> str:
    return subprocess.run(cmd, capture_output=True, text=True, check=True, **kw).stdout


def _elf_files(bundle: Path) -> list[Path]:
    out = []
    for p in bundle.rglob("*"):
        if p.is_file() and not p.is_symlink():
            with open(p, "rb") as fh:
                if fh.read(4) == b"\x7fELF":
                    out.append(p)
    return out


def _package_of_soname(soname: str) -> str:
    """Debian's name for a shared library's package (policy 8.1): libfoo.so.1
    is libfoo1, libfoo2.so.0 is libfoo2-0."""
    m = re.match(r"^(lib[\w+.-]*?)\.so\.(\d+)", soname)
    if not m:
        return soname.removesuffix(".so")
    name, major = m.group(1).lower().replace("_", "-"), m.group(2)
    return f"{name}-{major}" if name[-1].isdigit() else f"{name}{major}"


def depends(bundle: Path) -> list[str]:
    """The packages of the system libraries the bundle's files need and do not
    carry: each resolved by ldd (with the bundle's own folder first, as its
    executable loads them), then dpkg -S; named by Debian's convention when
    this machine lacks it."""
    internal = bundle / "_internal"
    env = dict(os.environ, LD_LIBRARY_PATH=str(internal))
    sonames: dict[str, str | None] = {}
    for f in _elf_files(bundle):
        p = subprocess.run(["ldd", str(f)], capture_output=True, text=True, env=env)
        for line in p.stdout.splitlines():
            m = re.match(r"\s*(\S+) => (not found|(\S+))", line)
            if not m:
                continue
            name, path = m.group(1), m.group(3)
            if path and Path(path).resolve().is_relative_to(bundle.resolve()):
                continue
            if LIBC.match(name):
                continue
            sonames.setdefault(name, path)
    candidates = {
        name: list(dict.fromkeys(_paths_of(path))) if path and shutil.which("dpkg") else []
        for name, path in sonames.items()
    }
    owners = _owners([c for paths in candidates.values() for c in paths])
    packages = set()
    for name, paths in candidates.items():
        pkg = next((owners[c] for c in paths if c in owners), None)
        packages.add(pkg or _package_of_soname(name))
    libc = _run(["dpkg-query", "-W", "-f=${Version}", "libc6"]).split("-")[0]
    return [f"libc6 (>= {libc})", *sorted(packages | set(PLATFORM_PACKAGES))]


def _paths_of(path: str) -> tuple[str, ...]:
    """The names dpkg may know a library by, in the order asked: as the loader
    found it, its real file, and that under /lib (merged /usr)."""
    real = str(Path(path).resolve())
    return (path, real, real.replace("/usr/lib/", "/lib/"))


def _owners(paths: list[str]) -> dict[str, str]:
    """The package owning each of ``paths`` that one owns (the first one
    named when several share it), asked of dpkg -S once for all: a query
    reads dpkg's whole database (a query per path took 10 s of the .deb's
    build); a path no package owns is left out."""
    if not paths:
        return {}
    q = subprocess.run(["dpkg", "-S", *dict.fromkeys(paths)], capture_output=True, text=True)
    out = {}
    for line in q.stdout.splitlines():  # "libz1:amd64: /lib/x86_64-linux-gnu/libz.so.1"
        owner, sep, path = line.partition(": ")
        if sep and not owner.startswith("diversion by"):
            out.setdefault(path.strip(), owner.split(":", 1)[0].split(",")[0].strip())
    return out


def _installed_size(root: Path) -> int:
    """In KiB, as dpkg counts it."""
    total = sum((p.lstat().st_size + 1023) // 1024 for p in root.rglob("*") if not p.is_dir())
    return total + sum(1 for p in root.rglob("*") if p.is_dir())


def packaged_entry(text: str) -> str:
    """The desktop entry as the package installs it: Exec and TryExec name
    /usr/bin/shrec-gui, not a bare ``shrec-gui`` looked up on the desktop's
    PATH, where a pip-installed shrec-gui (in ~/.local/bin, or a Python
    without the app's extra) would otherwise open instead of the package's."""
    out = []
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep and key in ("Exec", "TryExec") and value.split()[0] == "shrec-gui":
            line = f"{key}=/usr/bin/{value}"
        out.append(line)
    return "\n".join(out) + "\n"


def stage(bundle: Path, root: Path, version: str) -> None:
    """The package's files under ``root``, as they are installed."""
    shutil.copytree(bundle, root / PREFIX, symlinks=True)
    bin_dir = root / "usr" / "bin"
    bin_dir.mkdir(parents=True)
    for name in ("shrec-gui", "shrec-eval"):
        (bin_dir / name).symlink_to(Path("..", "..", PREFIX, "shrec-gui"))
    share = root / "usr" / "share"
    entry = share / "applications" / "shrec-gui.desktop"
    entry.parent.mkdir(parents=True)
    entry.write_text(packaged_entry((RESOURCES / "shrec-gui.desktop").read_text()))
    for src, dest in (
        (RESOURCES / "shrec-eval-mime.xml", share / "mime" / "packages" / "shrec-eval.xml"),
        (
            RESOURCES / "io.github.shrec_eval.ShrecGui.metainfo.xml",
            share / "metainfo" / "io.github.shrec_eval.ShrecGui.metainfo.xml",
        ),
        (RESOURCES / "icons" / "shrec-eval.svg", share / "icons" / SCALABLE / "shrec-eval.svg"),
        (ROOT / "LICENSE", share / "doc" / PACKAGE / "copyright"),
    ):
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, dest)
    for png in sorted((RESOURCES / "icons").glob("shrec-eval-*.png")):
        size = png.stem.rsplit("-", 1)[1]
        dest = share / "icons" / "hicolor" / f"{size}x{size}" / "apps" / "shrec-eval.png"
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(png, dest)
    for p in root.rglob("*"):  # what dpkg installs: root's, readable by all
        if not p.is_symlink():
            mode = p.stat().st_mode
            p.chmod(0o755 if p.is_dir() or mode & 0o111 else 0o644)


def control(root: Path, version: str, arch: str, deps: list[str]) -> str:
    return (
        f"Package: {PACKAGE}\n"
        f"Version: {debian_version(version)}\n"
        f"Architecture: {arch}\n"
        f"Maintainer: {MAINTAINER}\n"
        f"Installed-Size: {_installed_size(root)}\n"
        f"Depends: {', '.join(deps)}\n"
        f"Recommends: {', '.join(RECOMMENDS)}\n"
        "Section: science\n"
        "Priority: optional\n"
        "Homepage: https://github.com/shrec-eval/shrec-eval\n"
        "Description: score 3D shape retrieval contests (SHREC, Princeton Shape Benchmark)\n"
        " shrec-eval scores the runs of a 3D shape retrieval contest (dissimilarity\n"
        " matrices, rank-list folders, TREC runs, feature vectors) against its\n"
        " assessment (PSB .cla, TREC qrels) with every measure of the SHREC and\n"
        " Princeton Shape Benchmark evaluations and the official evaluators' rules.\n"
        " This package holds the desktop app (shrec-gui), which opens contest files\n"
        " from the file manager, and the command line (shrec-eval).\n"
    )


def build_deb(bundle: Path, out: Path, version: str, compression: str = "xz") -> Path:
    if shutil.which("dpkg-deb") is None:
        raise SystemExit("deb: dpkg-deb not found (Debian's dpkg package)")
    arch = _run(["dpkg", "--print-architecture"]).strip()
    deps = depends(bundle)
    out.mkdir(parents=True, exist_ok=True)
    target = out / f"{PACKAGE}_{debian_version(version)}_{arch}.deb"
    with tempfile.TemporaryDirectory(dir=out) as tmp:
        root = Path(tmp) / "root"
        stage(bundle, root, version)
        (root / "DEBIAN").mkdir()
        (root / "DEBIAN" / "control").write_text(control(root, version, arch, deps))
        subprocess.run(
            [
                "dpkg-deb",
                "--root-owner-group",
                f"-Z{compression}",
                "--build",
                str(root),
                str(target),
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    print(f"deb {target}: {target.stat().st_size / 2**20:.0f} MiB; Depends: {', '.join(deps)}")
    return target


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--bundle", default=str(ROOT / "dist" / "shrec-gui"))
    p.add_argument("--out", default=str(ROOT / "dist"))
    p.add_argument(
        "--compression",
        choices=("xz", "gzip", "zstd"),
        default="xz",
        help="of the package's files (xz, the default: the smallest, read by every dpkg)",
    )
    args = p.parse_args(argv)
    sys.path.insert(0, str(Path(__file__).parent))
    from build import version

    bundle = Path(args.bundle)
    if not (bundle / "shrec-gui").is_file():
        raise SystemExit(f"deb: {bundle} holds no shrec-gui: build it first (packaging/build.py)")
    build_deb(bundle, Path(args.out), version(), args.compression)
    return 0


if __name__ == "__main__":
    sys.exit(main())
