"""What a non-editable install gets: every package folder is declared in
pyproject.toml (the core/ folder under the import name shrec_eval, resources/
as its package data), the version is written once, and nothing of ours is
importable as ``core``.  .ci/run also builds the wheel, installs it into a fresh
virtual environment and runs the demo and the app's smoke test from it."""

import json
import os
import re
import shutil
import subprocess
import sys
import tomllib
import zipfile
from fnmatch import fnmatch
from pathlib import Path

import pytest
import shrec_eval
from shrec_eval.resources import demo_manifest, resource_path

ROOT = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
#: the executable's icons (Windows, macOS): packaging/shrec-gui.spec reads them
#: from resources/icons; the app itself never loads them
BUNDLE_ONLY = {".ico", ".icns"}
#: what a checkout holds besides the sources (a wheel built from those could
#: carry files of an earlier build: setuptools keeps build/lib)
NOT_SOURCES = (
    "build",
    "dist",
    ".venv",
    ".git",
    "*.egg-info",
    "__pycache__",
    ".*_cache",
    ".hypothesis",
)


def _declared() -> dict[str, Path]:
    setup = PYPROJECT["tool"]["setuptools"]
    dirs = {name: ROOT / path for name, path in setup["package-dir"].items()}
    out = {}
    for pkg in setup["packages"]:
        parts = pkg.split(".")
        for i in range(len(parts), 0, -1):
            head = ".".join(parts[:i])
            if head in dirs:
                out[pkg] = dirs[head].joinpath(*parts[i:])
                break
    return out


def test_every_package_folder_is_declared():
    declared = _declared()
    found = {}
    for name, top in (("shrec_eval", ROOT / "core"), ("shrec_gui", ROOT / "shrec_gui")):
        for init in top.rglob("__init__.py"):
            rel = init.parent.relative_to(top).parts
            found[".".join((name, *rel))] = init.parent
    missing = sorted(set(found) - set(declared))
    assert not missing, f"add to [tool.setuptools] packages in pyproject.toml: {missing}"
    for pkg, folder in declared.items():
        assert folder.is_dir(), f"{pkg} maps to a missing folder {folder}"


def test_resources_are_package_data():
    """Every file under resources/ is in the wheel: its folder is a declared
    package (setuptools ignores an importable folder left out of
    ``packages``) or lies under one, and a package-data pattern of that
    package matches it; no script is shipped there."""
    declared = _declared()
    assert declared["shrec_eval._resources"] == ROOT / "resources"
    data = PYPROJECT["tool"]["setuptools"]["package-data"]
    folders = {folder: pkg for pkg, folder in declared.items()}
    for f in (ROOT / "resources").rglob("*"):
        if not f.is_file() or "__pycache__" in f.parts or f.name == "__init__.py":
            continue
        if f.suffix in BUNDLE_ONLY:  # the wheel leaves them out (test below)
            continue
        assert f.suffix != ".py", f"a script among the package data: {f}"
        holder = next(p for p in [f.parent, *f.parent.parents] if p in folders)
        if f.parent != holder:  # a folder Python cannot import (lightfield-200)
            assert not f.parent.name.isidentifier(), f"declare {f.parent} as a package"
        pkg = folders[holder]
        rel = f.relative_to(holder).as_posix()
        assert any(fnmatch(rel, pat) and rel.count("/") == pat.count("/") for pat in data[pkg]), (
            f"{rel} is not package data of {pkg}"
        )
    assert demo_manifest().is_file()
    assert resource_path("icons", "shrec-eval-256.png").is_file()


def test_the_version_comes_from_git_tags_with_a_fallback():
    """setuptools-scm makes the version from git (the tag vX.Y.Z) and writes
    it where shrec_eval._version reads it, a file git ignores; a tarball
    without .git builds as fallback_version (the last release)."""
    from packaging.version import Version

    assert PYPROJECT["project"]["dynamic"] == ["version"]
    assert "version" not in PYPROJECT["project"]
    assert "dynamic" not in PYPROJECT["tool"]["setuptools"]
    assert any(r.startswith("setuptools-scm") for r in PYPROJECT["build-system"]["requires"])
    scm = PYPROJECT["tool"]["setuptools_scm"]
    assert scm["version_file"] == "core/_scm_version.py"
    assert "/core/_scm_version.py" in (ROOT / ".gitignore").read_text().splitlines()
    release = Version(scm["fallback_version"])
    assert str(release) == scm["fallback_version"] and not release.is_devrelease
    # built (editable install): the version is setuptools-scm's, at least the last release
    assert Version(shrec_eval.__version__) >= release


def test_no_top_level_core_package(tmp_path):
    code = "import importlib.util as u; print(u.find_spec('core'))"
    out = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "None"


def test_the_wheel_carries_the_license_and_no_bundle_only_file(tmp_path):
    """Build the wheel (as .ci/run does, from a copy of the sources) and list
    it: the MIT license text in its .dist-info, the metadata saying MIT, the
    icons the app shows, and none of the bundle build's .ico / .icns."""
    src = tmp_path / "src"
    shutil.copytree(ROOT, src, ignore=shutil.ignore_patterns(*NOT_SOURCES))
    out = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(tmp_path), str(src)],
        capture_output=True,
        text=True,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    (wheel,) = tmp_path.glob("shrec_eval-*.whl")
    # sources without .git (a tarball): the fallback version, written into the package
    version = PYPROJECT["tool"]["setuptools_scm"]["fallback_version"]
    assert wheel.name == f"shrec_eval-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel) as z:
        names = z.namelist()
        info = f"shrec_eval-{version}.dist-info"
        assert f'__version__ = "{version}"' in z.read("shrec_eval/_scm_version.py").decode()
        license_text = z.read(f"{info}/licenses/LICENSE").decode()
        metadata = z.read(f"{info}/METADATA").decode()
    assert license_text == (ROOT / "LICENSE").read_text(encoding="utf-8")
    assert license_text.startswith("MIT License") and PYPROJECT["project"]["license"] == "MIT"
    assert "License-Expression: MIT" in metadata
    icons = sorted(n.rsplit("/", 1)[1] for n in names if "/_resources/icons/" in n)
    assert "shrec-eval-256.png" in icons and "shrec-eval.svg" in icons
    assert not [n for n in names if Path(n).suffix in BUNDLE_ONLY], icons
    assert "shrec_eval/_resources/demo/contest.json" in names
    # the built-in profiles are evaluator files: package data
    from shrec_eval.profiles import NAMES

    assert {f"shrec_eval/profiles/builtin/{n}.toml" for n in NAMES} <= set(names)
    # the example contests (shrec-eval examples DIR), rank-list folder and contest indexed by id
    examples = {n.split("/_resources/examples/", 1)[1] for n in names if "/examples/" in n}
    shipped = {
        p.relative_to(ROOT / "resources" / "examples").as_posix()
        for p in (ROOT / "resources" / "examples").rglob("*")
        if p.is_file()
    }
    assert (
        examples == shipped and "carol/0.txt" in examples and "testShape/Bob.run1.txt" in examples
    )


def test_docs_json_example_is_of_the_last_release():
    """The docs' example of --json output names the last release (the
    fallback version, which each release sets to its tag's)."""
    text = (ROOT / "docs" / "formats.md").read_text(encoding="utf-8")
    found = re.findall(r'"tool": \{"name": "shrec-eval", "version": "([^"]+)"\}', text)
    assert found == [PYPROJECT["tool"]["setuptools_scm"]["fallback_version"]]


def test_packaging_readme_installs_in_a_virtual_environment():
    """PEP 668 Pythons (Debian, Ubuntu, Homebrew) refuse a bare pip install:
    every pip of packaging/README.md is a virtual environment's."""
    text = (ROOT / "packaging" / "README.md").read_text(encoding="utf-8")
    blocks = re.findall(r"```\w*\n(.*?)```", text, flags=re.S)
    pips = [ln.strip() for b in blocks for ln in b.splitlines() if re.search(r"\bpip\b", ln)]
    assert pips
    for line in pips:
        assert re.search(r"(\.venv|venv)[/\\](bin|Scripts)[/\\]", line), line


def test_the_bundle_declares_only_hidden_imports_that_exist():
    """PyInstaller stops on nothing but prints "ERROR: Hidden import ... not
    found" for a name that does not exist: every name the spec declares does."""
    import importlib.util

    spec = (ROOT / "packaging" / "shrec-gui.spec").read_text(encoding="utf-8")
    (names,) = re.findall(r"hiddenimports=\[([^\]]*)\]", spec)
    modules = re.findall(r'"([\w.]+)"', names)
    assert modules
    for name in modules:
        assert importlib.util.find_spec(name) is not None, name


def test_the_bundle_declares_the_modules_the_package_imports_on_first_use():
    """shrec_eval's names (Assessment, evaluate...) are imported on first use
    through importlib, which PyInstaller does not follow: the spec names
    their modules (or collects the package they are in)."""
    import importlib.util

    import shrec_eval

    spec = (ROOT / "packaging" / "shrec-gui.spec").read_text(encoding="utf-8")
    (names,) = re.findall(r"hiddenimports=\[([^\]]*)\]", spec)
    declared = set(re.findall(r'"([\w.]+)"', names))
    collected = re.findall(r'collect_submodules\("([\w.]+)"\)', names)
    lazy = {importlib.util.resolve_name(m, "shrec_eval") for m in shrec_eval._EXPORTS.values()}
    assert len(lazy) >= 5
    missing = [
        m for m in sorted(lazy) if m not in declared and not any(m.startswith(c) for c in collected)
    ]
    assert missing == []


def test_the_bundle_declares_the_command_lines_modules_imported_by_name():
    """The commands whose module is imported when they run (compare, the file
    commands: COMMANDS) are in the bundle: PyInstaller does not follow an
    import by name, and the frozen shrec-eval answered 'No module named
    shrec_eval.cli.compare_command' (a review found it)."""
    from shrec_eval.cli.commands import COMMANDS

    spec = (ROOT / "packaging" / "shrec-gui.spec").read_text(encoding="utf-8")
    (names,) = re.findall(r"hiddenimports=\[([^\]]*)\]", spec)
    declared = set(re.findall(r'"([\w.]+)"', names))
    collected = re.findall(r'collect_submodules\("([\w.]+)"\)', names)
    by_name = {f.module for f in COMMANDS.values() if hasattr(f, "module")}
    assert {"shrec_eval.cli.compare_command", "shrec_eval.cli.file_commands"} <= by_name
    missing = [
        m
        for m in sorted(by_name)
        if m not in declared and not any(m.startswith(c + ".") for c in collected)
    ]
    assert missing == []


def test_the_build_sums_up_expected_warnings_and_prints_the_rest(capsys):
    """build.py's filter of PyInstaller's output: an expected warning is
    counted with its reason, a library missing on the build machine named in
    one line, anything else (an error above all) printed as it came."""
    import runpy

    build = runpy.run_path(str(ROOT / "packaging" / "build.py"))
    lines = [
        "2127 WARNING: Failed to collect submodules for 'pyqtgraph.opengl' because importing",
        "128520 WARNING: Ignoring icon; supported only on Windows and macOS!",
        "126460 WARNING: Library not found: could not resolve 'libxcb-icccm.so.4', dependency",
        "126461 WARNING: Library not found: could not resolve 'libxcb-keysyms.so.1', dependency",
        "115035 ERROR: Hidden import 'pyqtgraph.something_new' not found",
    ]
    code = "import sys; print(sys.argv[1])"
    build["run_pyinstaller"]([sys.executable, "-c", code, "\n".join(lines)], False)
    out = capsys.readouterr().out.splitlines()
    assert out[0] == lines[-1]  # the error, as it came
    assert "expected: 1 warning not shown: pyqtgraph's 3-D module" in out[1]
    assert out[2].startswith("expected: 1 warning not shown: a Linux executable has no icon")
    assert out[3].endswith(": libxcb-icccm.so.4, libxcb-keysyms.so.1") and len(out) == 4
    build["run_pyinstaller"]([sys.executable, "-c", code, "\n".join(lines)], True)
    assert capsys.readouterr().out.splitlines()[:5] == lines  # --verbose: every line


def test_the_debs_version_orders_as_the_pythons():
    """packaging/deb.py's Debian version of a Python version: a dev or
    pre-release before its release, the commit's name kept as written."""
    import runpy

    deb = runpy.run_path(str(ROOT / "packaging" / "deb.py"))["debian_version"]
    cases = {
        "0.2.0": "0.2.0",
        "0.2.1.dev566+gb7a5ae552": "0.2.1~dev566+gb7a5ae552",
        "0.2.1.dev3+gab12.d20261128": "0.2.1~dev3+gab12.d20261128",
        "1.0rc1": "1.0~rc1",
        "1.0b2": "1.0~b2",
    }
    assert {v: deb(v) for v in cases} == cases
    if shutil.which("dpkg"):
        order = ["0.2.0", "0.2.1.dev3+gab12", "0.2.1.dev566+gb7a5ae552", "0.2.1", "1.0b2", "1.0"]
        for a, b in zip(order, order[1:]):
            assert (
                subprocess.run(["dpkg", "--compare-versions", deb(a), "lt", deb(b)]).returncode == 0
            )


def test_the_packaging_page_states_the_builds_own_sizes():
    """The sizes of packaging/README.md are build.py's table (--readme), and
    its total is within the bound the bundle test holds a build to."""
    import runpy

    build = runpy.run_path(str(ROOT / "packaging" / "build.py"))
    text = (ROOT / "packaging" / "README.md").read_text(encoding="utf-8")
    (section,) = build["SIZES"].findall(text)
    table = text.split(section[0], 1)[1].split(section[1], 1)[0]
    titles = re.findall(r"^\| ([^|]+?) \| \**\d+\** \|$", table, re.M)
    assert titles[: len(build["PARTS"])] == [t for t, _ in build["PARTS"]]
    (total,) = re.findall(r"^\| \*\*the bundle, unpacked\*\* \| \*\*(\d+)\*\* \|$", table, re.M)
    bound = re.search(
        r"^MAX_MIB = (\d+)$", (ROOT / "tests" / "test_project_bundle.py").read_text(), re.M
    )
    assert int(total) <= int(bound.group(1))


def test_a_library_two_wheels_carry_is_kept_once(tmp_path):
    """build.py's link_duplicates: the same file in numpy.libs and scipy.libs
    becomes a link to the first; a file of the same name but other bytes, or
    outside a wheel's .libs folder, stays."""
    import runpy

    link = runpy.run_path(str(ROOT / "packaging" / "build.py"))["link_duplicates"]
    for folder, data in (("numpy.libs", b"A" * 100), ("scipy.libs", b"A" * 100)):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "libgfortran-1.so.5").write_bytes(data)
        (tmp_path / folder / "libquadmath-2.so.0").write_bytes(folder.encode() * 10)
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "libgfortran-1.so.5").write_bytes(b"A" * 100)
    assert link(tmp_path) == "libraries carried twice linked: 0.0 MiB"
    second = tmp_path / "scipy.libs" / "libgfortran-1.so.5"
    assert second.is_symlink() and os.readlink(second) == "../numpy.libs/libgfortran-1.so.5"
    assert second.read_bytes() == b"A" * 100
    assert not (tmp_path / "scipy.libs" / "libquadmath-2.so.0").is_symlink()
    assert not (tmp_path / "other" / "libgfortran-1.so.5").is_symlink()


@pytest.mark.skipif(sys.platform == "win32", reason="a .zip on Windows")
def test_the_release_archive_is_the_bundle_folder_at_gzips_default_level(tmp_path):
    """build.py's pack_archive: the bundle's folder as shrec-gui/ in a
    .tar.gz deflated at gzip's own default level, 6 (tarfile's default, 9,
    took 3.5 times the processor's time for 1% less)."""
    import gzip
    import runpy
    import tarfile
    import zlib

    pack = runpy.run_path(str(ROOT / "packaging" / "build.py"))["pack_archive"]
    bundle = tmp_path / "dist" / "shrec-gui"
    (bundle / "_internal").mkdir(parents=True)
    (bundle / "shrec-gui").write_bytes(bytes(range(256)) * 64 + b"a" * 100_000)
    (bundle / "_internal" / "LICENSE").write_text("MIT License\n" * 500)
    archive = pack(bundle, tmp_path / "dist" / "shrec-gui-1.2.3-linux-x86_64")
    assert archive == tmp_path / "dist" / "shrec-gui-1.2.3-linux-x86_64.tar.gz"
    with tarfile.open(archive) as tar:
        assert sorted(tar.getnames()) == [
            "shrec-gui",
            "shrec-gui/_internal",
            "shrec-gui/_internal/LICENSE",
            "shrec-gui/shrec-gui",
        ]
        assert tar.extractfile("shrec-gui/_internal/LICENSE").read() == b"MIT License\n" * 500
    raw = archive.read_bytes()
    level6 = zlib.compressobj(6, zlib.DEFLATED, -zlib.MAX_WBITS, zlib.DEF_MEM_LEVEL, 0)
    deflated = level6.compress(gzip.decompress(raw)) + level6.flush()
    assert raw[-8 - len(deflated) : -8] == deflated  # the stream before CRC-32 and size


def test_the_packaged_desktop_entry_names_the_package_command():
    """A double click runs /usr/bin/shrec-gui, the package's, not whatever
    ``shrec-gui`` comes first on the desktop's PATH (CI's machine had a
    pip-installed one without Qt before /usr/bin)."""
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import deb
    finally:
        sys.path.pop(0)
    text = deb.packaged_entry((ROOT / "resources" / "shrec-gui.desktop").read_text())
    lines = dict(ln.split("=", 1) for ln in text.splitlines() if "=" in ln)
    assert lines["Exec"] == "/usr/bin/shrec-gui %F"
    assert lines["TryExec"] == "/usr/bin/shrec-gui"
    source = (ROOT / "resources" / "shrec-gui.desktop").read_text().splitlines()
    assert [ln for ln in source if not ln.startswith(("Exec=", "TryExec="))] == [
        ln for ln in text.splitlines() if not ln.startswith(("Exec=", "TryExec="))
    ]


#: what the frozen app does, in one process, with the bundle's stand-in for
#: Qt's OpenGL binding installed first (the spec's runtime hook, argv[1]):
#: the command line and the window imported, the significance tests of
#: compare, a figure saved in each format as the figures are (the PDF's font
#: subset by fontTools), a PNG and a JPEG read, pyqtgraph's own exporters
#: (imported by the app; its menus offer the app's exports instead), and the
#: main window with the demo scored and every plot drawn (each curve, the
#: measure bars, one class's curves and the heatmap, the ranked lists, the
#: significance views), five of them exported as PNG, SVG and CSV, the
#: Ranked list tab's thumbnails with a placeholder (the demo's copy of
#: argv[2], whose query shapes cannot be read) and the report with its
#: gallery, placeholders in it. Prints the modules imported, the names asked
#: of the stand-in, pyqtgraph's OpenGL options and the exports written
_WORKLOAD = """
import io, json, os, runpy, sys, tempfile, time
runpy.run_path(sys.argv[1])  # as the bundle's runtime hook, before any import of Qt
os.environ["QT_QPA_PLATFORM"] = "offscreen"
import numpy as np
import PIL.Image
import scipy.stats
import shrec_eval.cli.commands, shrec_eval.outputs.report, shrec_eval.shapes.thumbnails
import shrec_gui.window.main
import matplotlib
from matplotlib.figure import Figure
rng = np.random.default_rng(0)
a, b = rng.random(20), rng.random(20)
scipy.stats.ttest_rel(a, b); scipy.stats.wilcoxon(a, b)
scipy.stats.permutation_test((a, b), lambda x, y: np.mean(x - y), permutation_type="samples",
                             n_resamples=50)
scipy.stats.bootstrap((a,), np.mean, n_resamples=50)
with matplotlib.rc_context({"font.family": "DejaVu Sans", "pdf.fonttype": 42}):
    for fmt in ("pdf", "svg", "png"):
        fig = Figure()
        fig.add_subplot().plot([0, 1], [1, 0], label="run é")
        fig.legend(); fig.savefig(io.BytesIO(), format=fmt)
exif = PIL.Image.Exif(); exif[0x0131] = "camera"  # a JPEG's EXIF is read through TIFF's plugin
for fmt, more in (("PNG", {}), ("JPEG", {}), ("JPEG", {"exif": exif})):
    buf = io.BytesIO(); PIL.Image.new("RGB", (8, 8)).save(buf, format=fmt, **more)
    PIL.Image.open(io.BytesIO(buf.getvalue())).load()
# pyqtgraph's own exporters ("Matplotlib Window" and the file exporters): imported
# with pyqtgraph.exporters, no longer in the app's right-click menus
import pyqtgraph as pg, pyqtgraph.exporters as ex
from shrec_gui.app import make_app, private_settings, main_window
app = make_app(); plot = pg.PlotWidget(); plot.plot([0, 1], [1, 0])
ex.MatplotlibExporter(plot.getPlotItem()).export()
plot.resize(400, 300); plot.show(); app.processEvents()
out = tempfile.mkdtemp()
# (not its SVGExporter: it fails on Qt 6.11's SVG, shrec_gui/figures/printing.py)
for e, name in ((ex.ImageExporter, "x.png"), (ex.CSVExporter, "x.csv")):
    e(plot.getPlotItem()).export(os.path.join(out, name))

def spin(done, what, timeout=120):
    deadline = time.monotonic() + timeout
    while not done():
        assert time.monotonic() < deadline, what
        app.processEvents(); time.sleep(0.005)
    for _ in range(5):
        app.processEvents()

with private_settings("shrec-workload-") as settings:
    w = main_window(settings); w.quiet = True; w.resize(1280, 720); w.show()
    w.controller.open_session(sys.argv[2])  # the demo, its query shapes broken
    c = w.controller
    spin(lambda: c.entries and c.idle() and all(e.result is not None for e in c.entries.values())
         and w.caught_up(), "the demo scored")
    wanted = []
    def export(which, tag):
        for fmt in ("png", "svg", "csv"):
            path = os.path.join(out, f"{tag}.{fmt}")
            w.exports.export_plot(path, fmt, 600, which); wanted.append(path)
    for tab in w.named_tabs().values():
        w.tabs.setCurrentWidget(tab); spin(lambda: True, "a tab"); tab.grab()
    w.tabs.setCurrentWidget(w.curves)
    for i in range(w.curves.kind.count()):  # every curve, then the measure bars
        w.curves.kind.setCurrentIndex(i); spin(lambda: True, "a curve"); w.curves.grab()
        if i == 0:
            export("curves", "curves")
    export("curves", "bars")
    pc = w.per_class; w.tabs.setCurrentWidget(pc)
    pc.select_class(pc.model.classes[0]); spin(lambda: True, "a class"); pc.grab()
    export("class_heatmap", "class_heatmap")
    w.tabs.setCurrentWidget(w.ranked)
    spin(lambda: w.ranked.lists is not None, "the ranked lists")
    strips = w.ranked.thumbs  # drawn by the drawing processes: the query's a placeholder
    spin(lambda: strips.rows and all(t.pixmap is not None for _, ts in strips.rows for t in ts)
         and "could not be shown" in strips.state.text(), "the thumbnails")
    w.ranked.grab()
    sig = w.significance; w.tabs.setCurrentWidget(sig)
    sig.resamples.setValue(100); sig.request()
    spin(lambda: sig.comparison is not None, "the significance tests"); sig.grab()
    export("means", "means"); export("h2h", "h2h")
    tasks = (w.exports.writes, w.exports.figure_tasks)
    spin(lambda: not any(t.busy() for t in tasks) and all(map(os.path.exists, wanted)), wanted)
    reported = []  # the report, its gallery's queries placeholders
    w.exports.folderDone.connect(lambda *done: reported.append(done))
    w.exports.export_report(os.path.join(out, "report"))
    spin(lambda: reported, "the report", timeout=300)
    assert reported == [("report", os.path.join(out, "report"), "")], reported
    assert not w.errors, w.errors
    written = sorted(os.path.basename(p) for p in wanted if os.path.getsize(p) > 0)
    with open(os.path.join(out, "report", "gallery.html"), encoding="utf-8") as f:
        written += ["gallery.html"] if "shapes that could not be shown" in f.read() else []
    w.close()
asked = type(sys.modules["PySide6.QtOpenGL"]).asked
options = {k: pg.getConfigOption(k) for k in ("useOpenGL", "enableExperimental")}
print(json.dumps({"asked": asked, "options": options, "written": written}))
print(json.dumps(sorted(m for m, module in sys.modules.items() if module is not None)))
"""
#: the bundle's stand-in for Qt's OpenGL binding (the spec's runtime hook)
_OPENGL_HOOK = ROOT / "packaging" / "rthook_qtopengl.py"


def _never_imported() -> list[str]:
    """The spec's NEVER_IMPORTED list (with the names it is made of)."""
    spec = (ROOT / "packaging" / "shrec-gui.spec").read_text(encoding="utf-8")
    scope: dict = {}
    for name in ("FONTTOOLS_TABLES", "PIL_PLUGINS", "NEVER_IMPORTED"):
        (code,) = re.findall(rf"^{name} = [\[(].*?^[\])]\n", spec, re.M | re.S)
        exec(code, scope)
    return scope["NEVER_IMPORTED"]


#: every process of the workload (sitecustomize.py, on PYTHONPATH: the
#: drawing processes too) without Pillow's FreeType module, as the bundle
_LEFT_OUT = """import sys
sys.modules["PIL._imagingft"] = None  # import raises ModuleNotFoundError
"""


def _demo_with_broken_query_shapes(folder: Path) -> Path:
    """A copy of the demo whose query shapes cannot be read and whose items
    but the first hundred have no shape (placeholders; fewer meshes drawn)."""
    demo = shutil.copytree(resource_path("demo"), folder / "demo")
    for f in (demo / "shapes").iterdir():
        if f.name[0] in "qQ":
            f.write_bytes(b"OFF\n3 1 0\n0 0 0\n")  # cut short: "cannot be read as a mesh"
        elif int(f.stem[1:]) >= 100:
            f.unlink()
    return demo / "contest.json"


def test_the_app_imports_none_of_the_modules_the_bundle_leaves_out(tmp_path):
    """The bundle leaves out what no process of the app imported over every
    feature (the spec's NEVER_IMPORTED, from a trace of all of them): the
    app's and the command line's modules, the significance tests, a figure in
    each format, the thumbnails' image reading (a JPEG with EXIF too),
    pyqtgraph's own exporters and the window with every plot drawn and
    exported still import none of them.
    A change that needs one takes it off the list, or the frozen app fails.

    Qt's OpenGL binding is left out too, with the spec's runtime hook standing
    in for it: the same workload, run with that hook, asks it no name, and
    pyqtgraph's OpenGL drawing stays off (with it on, PlotCurveItem and the
    window's views use the binding; tried: the workload failed here).

    Pillow's FreeType module (PIL._imagingft) is left out too (the spec's
    excludes; PIL.ImageFont stays, as trimesh imports it, and imports without
    it): the workload runs with it missing in every process, a placeholder in
    the Ranked list tab (drawn by a drawing process) and in the report's
    gallery among it (with Pillow's FreeType, ImageFont.load_default(size=),
    the placeholder failed so: the thumbnails never came)."""
    left_out = _never_imported()
    assert {"asyncio", "matplotlib.pyplot", "fontTools.ttLib.tables.C_F_F__2"} <= set(left_out)
    spec = (ROOT / "packaging" / "shrec-gui.spec").read_text(encoding="utf-8")
    assert '"PySide6.QtOpenGL",' in spec and "rthook_qtopengl.py" in spec
    assert '"PIL._imagingft",' in spec
    (tmp_path / "site").mkdir()
    (tmp_path / "site" / "sitecustomize.py").write_text(_LEFT_OUT)
    path = os.pathsep.join(filter(None, [str(tmp_path / "site"), os.environ.get("PYTHONPATH")]))
    env = {**os.environ, "PYTHONPATH": path, "SHREC_EVAL_CACHE_DIR": str(tmp_path / "cache")}
    contest = _demo_with_broken_query_shapes(tmp_path)
    p = subprocess.run(
        [sys.executable, "-c", _WORKLOAD, str(_OPENGL_HOOK), str(contest)],
        capture_output=True,
        text=True,
        timeout=420,
        env=env,
    )
    assert p.returncode == 0, p.stderr[-3000:]
    *_, seen, modules = p.stdout.splitlines()
    imported, seen = json.loads(modules), json.loads(seen)
    assert "fontTools.subset" in imported and "scipy.stats" in imported  # the workload ran
    assert [m for m in imported if any(m == x or m.startswith(x + ".") for x in left_out)] == []
    # every plot drawn and exported in each format (curves of each kind, bars...)
    plots = ("curves", "bars", "class_heatmap", "means", "h2h")
    exports = sorted(f"{p}.{f}" for p in plots for f in ("csv", "png", "svg"))
    assert seen["written"] == [*exports, "gallery.html"]  # the report's gallery, placeholders
    assert "PIL._imagingft" not in imported and "trimesh" in imported
    # the stand-in was there (pyqtgraph imported it) and nothing asked it a name
    assert "pyqtgraph.graphicsItems.PlotCurveItem" in imported
    assert seen["asked"] == []
    assert seen["options"] == {"useOpenGL": False, "enableExperimental": False}


def test_the_stand_in_for_qts_opengl_binding_says_why_it_fails():
    """In the bundle, PySide6.QtOpenGL is the runtime hook's stand-in: it
    imports (as an attribute of PySide6 too), and a name asked of it (a class
    a plugin or user code would use) raises AttributeError saying the binding
    is left out, the error hasattr, inspect and pickle's search of every
    module for an object's home expect: pickling a function without a module
    of its own (scipy's ufuncs) works with the stand-in loaded."""
    code = (
        "import importlib, inspect, pickle, runpy, sys\n"
        "runpy.run_path(sys.argv[1])\n"
        "import PySide6.QtOpenGL\n"
        "from PySide6 import QtOpenGL\n"
        "assert importlib.import_module('PySide6.QtOpenGL') is QtOpenGL is PySide6.QtOpenGL\n"
        "assert QtOpenGL.__spec__.name == 'PySide6.QtOpenGL'\n"
        "assert not hasattr(QtOpenGL, '__file__') and dir(QtOpenGL) == []\n"
        "assert not hasattr(QtOpenGL, 'erf') and getattr(QtOpenGL, 'x', 1) == 1\n"
        "inspect.getmodule(inspect)  # probes every module's __file__\n"
        "import scipy.special\n"
        "assert pickle.loads(pickle.dumps(scipy.special.erf)) is scipy.special.erf\n"
        "try:\n"
        "    QtOpenGL.QOpenGLBuffer\n"
        "except AttributeError as exc:\n"
        "    print(exc)\n"
        "print(type(QtOpenGL).asked)\n"
    )
    p = subprocess.run(
        [sys.executable, "-c", code, str(_OPENGL_HOOK)], capture_output=True, text=True, timeout=60
    )
    assert p.returncode == 0, p.stderr[-3000:]
    assert p.stdout.splitlines() == [
        "PySide6.QtOpenGL.QOpenGLBuffer: Qt's OpenGL binding is left out of this bundle: "
        "the app draws its plots without OpenGL",
        "['QOpenGLBuffer']",
    ]


def test_the_debs_depends_asks_dpkg_once_and_names_each_librarys_package(tmp_path, monkeypatch):
    """packaging/deb.py's Depends: the package of each system library a
    bundle's file loads, by the path the loader found it at or its real
    file (libpcre2-8.so.0 is known to dpkg by its real name only), with
    one dpkg -S for all of them (one per path took 10 s of the .deb's build:
    each reads dpkg's whole database)."""
    if shutil.which("dpkg") is None or shutil.which("ldd") is None:
        pytest.skip("needs dpkg and ldd (Debian or Ubuntu)")
    sys.path.insert(0, str(ROOT / "packaging"))
    try:
        import deb
    finally:
        sys.path.pop(0)
    ls = Path(shutil.which("ls")).resolve()
    needs = subprocess.run(["ldd", str(ls)], capture_output=True, text=True).stdout
    if "libselinux.so.1" not in needs or "libpcre2-8.so.0" not in needs:
        pytest.skip("this system's ls loads no libselinux")
    bundle = tmp_path / "bundle"
    (bundle / "_internal").mkdir(parents=True)
    shutil.copyfile(ls, bundle / "tool")
    (bundle / "data.txt").write_text("not a library")
    asked = []
    run = subprocess.run

    def counted(cmd, *a, **k):
        if list(cmd[:2]) == ["dpkg", "-S"]:
            asked.append(cmd[2:])
        return run(cmd, *a, **k)

    monkeypatch.setattr(deb.subprocess, "run", counted)
    deps = deb.depends(bundle)
    assert len(asked) == 1
    assert deps[0].startswith("libc6 (>= ") and "libc6" not in deps[1:]
    assert {"libselinux1", "libpcre2-8-0"} <= set(deps)
    assert set(deb.PLATFORM_PACKAGES) <= set(deps)
    assert deps[1:] == sorted(deps[1:])
    # each package as dpkg -S names it for the library's path, or its real file's
    libraries = (("libselinux.so.1", "libselinux1"), ("libpcre2-8.so.0", "libpcre2-8-0"))
    for soname, package in libraries:
        path = re.search(rf"{re.escape(soname)} => (\S+)", needs).group(1)
        owners = [
            run(["dpkg", "-S", p], capture_output=True, text=True).stdout.split(":", 1)[0]
            for p in (path, str(Path(path).resolve()))
        ]
        assert next(o for o in owners if o) == package
