"""The frozen app: build the PyInstaller bundle from a clean checkout and
run its smoke test offscreen (pytest marker ``bundle``; run by .ci/run); its
size, the command line in it; and, as root on Debian or Ubuntu (CI), its
.deb installed with apt, checked as a desktop sees it, and removed."""

import json
import os
import re
import shlex
import shutil
import struct
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

#: one process builds the bundle for all of them: they are one group of
#: tests/tiers.py's GROUPS, which conftest's scheduler keeps together (under
#: --dist load, or xdist's own loadgroup under pytest 9.2, each process built it)
pytestmark = [pytest.mark.bundle]
ROOT = Path(__file__).resolve().parents[1]


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG file"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


@pytest.fixture(scope="module")
def bundle(tmp_path_factory):
    pytest.importorskip("PyInstaller")
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout to clone")
    tmp = tmp_path_factory.mktemp("bundle")
    checkout = tmp / "checkout"
    subprocess.run(["git", "clone", "--quiet", str(ROOT), str(checkout)], check=True)
    t = time.perf_counter()
    out = subprocess.run(
        [
            sys.executable,
            "packaging/build.py",
            "--dist",
            str(tmp / "dist"),
            "--work",
            str(tmp / "build"),
            # the archive's files are the release's; gzip's fastest level packs
            # them in 3 s of processor where the release's 6 takes 8 (as the
            # .deb below is packed with zstd where the release's takes xz)
            "--archive-level",
            "1",
        ],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert out.returncode == 0, out.stdout[-3000:] + out.stderr[-3000:]
    print(out.stdout, f"build {time.perf_counter() - t:.0f} s")
    return tmp / "dist"


def test_frozen_smoke_test_writes_the_plot(bundle, tmp_path):
    exe = bundle / "shrec-gui" / ("shrec-gui.exe" if sys.platform == "win32" else "shrec-gui")
    assert exe.exists()
    png = tmp_path / "pr.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    t = time.perf_counter()
    p = subprocess.run(
        [str(exe), "--smoke-test", str(png)], capture_output=True, text=True, env=env, timeout=300
    )
    assert p.returncode == 0, p.stdout + p.stderr
    w, h = png_size(png)
    assert (w, h) == (1200, h) and 300 < h < 1200
    assert "7 runs scored" in p.stderr
    print(f"frozen smoke test {time.perf_counter() - t:.1f} s: {p.stderr.strip()}")


def test_frozen_smoke_test_fails_loudly(bundle, tmp_path):
    exe = bundle / "shrec-gui" / ("shrec-gui.exe" if sys.platform == "win32" else "shrec-gui")
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen")
    p = subprocess.run(
        [str(exe), "--smoke-test", str(tmp_path / "missing" / "x.png")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode != 0 and "smoke test:" in p.stderr


def test_bundle_contents_and_archive(bundle):
    internal = bundle / "shrec-gui" / "_internal"
    assert (internal / "resources" / "demo" / "contest.json").exists()
    assert (internal / "resources" / "icons" / "shrec-eval-256.png").exists()
    assert not (internal / "resources" / "demo" / "make_demo.py").exists()
    assert (internal / "LICENSE").read_text().startswith("MIT License")
    assert not list((internal / "resources" / "icons").glob("*.ic*"))  # the executable's
    names = {p.name for p in internal.iterdir()}
    assert not names & {"tkinter", "PyQt5", "PyQt6", "PySide2", "pandas"}
    if sys.platform != "win32":
        archives = list(bundle.glob("shrec-gui-*.tar.gz"))
        assert len(archives) == 1
        with tarfile.open(archives[0]) as tar:
            assert "shrec-gui/shrec-gui" in tar.getnames()


def test_frozen_app_writes_the_report_with_figures_and_gallery(bundle, tmp_path):
    """The frozen app, headless, writes the demo's report as the command
    line does: the print figures (matplotlib) and the gallery of the demo's
    shapes (trimesh, Pillow) work in the bundle too."""
    exe = bundle / "shrec-gui" / ("shrec-gui.exe" if sys.platform == "win32" else "shrec-gui")
    out = tmp_path / "report"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "c"))
    p = subprocess.run(
        [str(exe), "--demo", "--export-report", str(out)],
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    for name in ("summary.csv", "summary.tex", "gallery.html", "figures/precision_recall.pdf"):
        assert (out / name).stat().st_size > 0, name
    assert png_size(out / "figures" / "precision_recall.png")[0] > 900  # 8.5 cm at 300 dpi
    thumbs = list((out / "thumbs").glob("*.png"))
    assert len(thumbs) > 100 and all(png_size(t) == (128, 128) for t in thumbs[:20])


def test_frozen_significance_tests_give_the_librarys_values(bundle, tmp_path):
    """``compare`` in the bundle (scipy.stats: the paired t, Wilcoxon and
    randomization tests, bootstrap intervals, Benjamini-Hochberg) gives the
    values the unfrozen library gives, with its report: what the bundle cuts
    of scipy is what scipy.stats never loads."""
    cli = tmp_path / "shrec-eval"
    cli.symlink_to(bundle / "shrec-gui" / "shrec-gui")
    ex = tmp_path / "ex"
    subprocess.run([str(cli), "examples", str(ex)], check=True, capture_output=True, timeout=300)
    args = ["compare", "psb_test.cla", "alice.matrix", "bob.txt", "carol/", "--measure", "nn"]
    args += ["--test", "t", "--test", "wilcoxon", "--test", "randomization"]
    args += ["--correction", "bh", "--resamples", "200"]
    frozen = subprocess.run(
        [str(cli), *args, "--json", str(tmp_path / "frozen.json"), "--report", str(tmp_path / "r")],
        cwd=ex,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert frozen.returncode == 0, frozen.stderr
    library = subprocess.run(
        [sys.executable, "-m", "shrec_eval", *args, "--json", str(tmp_path / "library.json")],
        cwd=ex,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert library.returncode == 0, library.stderr
    got = json.loads((tmp_path / "frozen.json").read_text())["comparison"]
    want = json.loads((tmp_path / "library.json").read_text())["comparison"]
    assert got == want
    assert [r["name"] for r in got["runs"]] == ["alice", "carol", "bob"]
    pair = next(p for p in got["pairs"] if {p["a"], p["b"]} == {"alice", "bob"})
    assert set(pair["p_corrected"]) == {"t", "wilcoxon", "randomization"}
    assert all(0 < v < 0.05 for v in pair["p_corrected"].values())
    assert frozen.stdout == library.stdout
    assert (tmp_path / "r" / "summary.csv").stat().st_size > 0


#: the bundle's size, unpacked, at most: the goal (issue 43), which the build meets
#: (packaging/README.md's table, 198.4 MiB), so that what was cut does not come back unseen
MAX_MIB = 200


def test_the_bundle_stays_within_its_size_and_holds_both_commands(bundle, tmp_path):
    app = bundle / "shrec-gui"
    size = sum(p.lstat().st_size for p in app.rglob("*") if p.is_file() and not p.is_symlink())
    assert size <= MAX_MIB * 2**20, f"{size / 2**20:.0f} MiB unpacked"
    internal = app / "_internal"
    icu = next((internal / "PySide6" / "Qt" / "lib").glob("libicudata.so.*"))
    assert icu.stat().st_size < 5 * 2**20  # its data cut to what Qt uses
    assert not list(internal.rglob("libavif*")) and not list(internal.rglob("libX11.so*"))
    # the figures' one face of DejaVu Sans, and pyqtgraph's one colour map
    fonts = internal / "matplotlib" / "mpl-data" / "fonts" / "ttf"
    assert sorted(p.name for p in fonts.glob("*.ttf")) == [
        "DejaVuSans.ttf",
        "LastResortHE-Regular.ttf",
    ]
    assert [p.name for p in (internal / "pyqtgraph" / "colors" / "maps").glob("*.csv")] == [
        "viridis.csv"
    ]
    # Qt's OpenGL binding (the runtime hook stands in for it) and the CJK codecs
    # (the executable runs in UTF-8 mode) are left out; QtOpenGLWidgets stays
    assert not list(internal.rglob("QtOpenGL.*")) and list(internal.rglob("QtOpenGLWidgets.*"))
    assert not list(internal.rglob("_codecs_*")) and not list(internal.rglob("_multibytecodec*"))
    # started as shrec-eval (the .deb's /usr/bin/shrec-eval), the executable is the command line
    cli = tmp_path / "shrec-eval"
    cli.symlink_to(app / "shrec-gui")
    p = subprocess.run(
        [str(cli), "examples", str(tmp_path / "ex")], capture_output=True, text=True, timeout=300
    )
    assert p.returncode == 0, p.stderr
    p = subprocess.run(
        [str(cli), "evaluate", "psb_test.cla", "alice.matrix", "--columns", "nn"],
        cwd=tmp_path / "ex",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    assert p.stdout.splitlines()[2].split()[1:] == ["alice", "0.9167"]


def test_frozen_command_line_starts_in_a_locale_whose_codec_it_leaves_out(bundle, tmp_path):
    """The bundle has no CJK codec and runs in Python's UTF-8 mode: in an
    EUC-JP locale it starts (without UTF-8 mode, Python stops at start-up
    without its locale's codec: "unknown encoding: EUC-JP") and writes the
    demo's results as in a UTF-8 locale."""
    sources = Path("/usr/share/i18n/locales/ja_JP")
    if sys.platform != "linux" or shutil.which("localedef") is None or not sources.is_file():
        pytest.skip("needs glibc's localedef and its locale sources (Debian: locales)")
    locales = tmp_path / "locales"
    locales.mkdir()
    made = subprocess.run(
        ["localedef", "-i", "ja_JP", "-f", "EUC-JP", str(locales / "ja_JP.eucJP")],
        capture_output=True,
        text=True,
    )
    assert made.returncode == 0, made.stderr[-2000:]
    cli = tmp_path / "shrec-eval"
    cli.symlink_to(bundle / "shrec-gui" / "shrec-gui")
    out = {}
    for name, env in (
        ("utf8", {"LC_ALL": "C.UTF-8"}),
        ("eucjp", {"LOCPATH": str(locales), "LC_ALL": "ja_JP.eucJP", "LANG": "ja_JP.eucJP"}),
    ):
        p = subprocess.run(
            [str(cli), "demo", "--json", str(tmp_path / f"{name}.json")],
            capture_output=True,
            timeout=300,
            env=dict(os.environ, **env),
        )
        assert p.returncode == 0, p.stderr[-2000:]
        out[name] = (p.stdout, (tmp_path / f"{name}.json").read_bytes())
    assert out["eucjp"] == out["utf8"] and b'"runs"' in out["utf8"][1]


def _fastest_compression() -> str:
    """zstd where this dpkg builds (and so installs) it, as Debian 12 and
    Ubuntu do: the same files packed in 3 s, where gzip took 76 s (37 s of
    the processor's) and the release's xz 236 s; gzip elsewhere."""
    usage = subprocess.run(["dpkg-deb", "--help"], capture_output=True, text=True).stdout
    return "zstd" if re.search(r"Allowed types:.*\bzstd\b", usage) else "gzip"


def _as_root_with_apt():
    if sys.platform != "linux" or os.geteuid() != 0:
        pytest.skip("installs a .deb: root on Debian or Ubuntu (as CI runs)")
    for tool in ("apt-get", "dpkg-deb", "xdg-mime", "update-mime-database"):
        if shutil.which(tool) is None:
            pytest.skip(f"needs {tool} (.ci/run installs it)")


def _desktop_exec(entry: Path, files: list[str]) -> list[str]:
    """The command a desktop runs for a double click on ``files``: the
    entry's Exec with its field codes filled in."""
    line = next(ln for ln in entry.read_text().splitlines() if ln.startswith("Exec="))
    out = []
    for word in shlex.split(line[len("Exec=") :]):
        if word in ("%F", "%U"):
            out += files
        elif word in ("%f", "%u"):
            out += files[:1]
        elif not word.startswith("%"):
            out.append(word)
    return out


def test_the_deb_installs_opens_contests_and_is_removed_cleanly(bundle, tmp_path):
    """packaging/deb.py's package, installed with apt as a user does: the
    commands, the menu entry (desktop-file-validate), contest files known
    by their MIME type and opened by the app (xdg-mime, then the entry's own
    command on a contest), no library missing (ldd), the smoke test; then
    removed with nothing left."""
    _as_root_with_apt()
    checkout = bundle.parent / "checkout"
    p = subprocess.run(
        [
            sys.executable,
            "packaging/deb.py",
            "--bundle",
            str(bundle / "shrec-gui"),
            "--out",
            str(bundle),
            "--compression",
            _fastest_compression(),
        ],
        cwd=checkout,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    (deb,) = bundle.glob("shrec-eval_*.deb")
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    p = subprocess.run(
        ["apt-get", "install", "-y", str(deb)],
        capture_output=True,
        text=True,
        env=env,
        timeout=1200,
    )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    try:
        _check_installed(tmp_path)
    finally:
        p = subprocess.run(
            ["apt-get", "remove", "-y", "shrec-eval"],
            capture_output=True,
            text=True,
            env=env,
            timeout=600,
        )
    assert p.returncode == 0, p.stdout[-3000:] + p.stderr[-3000:]
    assert not Path("/opt/shrec-eval").exists()
    for gone in (
        "/usr/bin/shrec-gui",
        "/usr/bin/shrec-eval",
        "/usr/share/applications/shrec-gui.desktop",
        "/usr/share/mime/packages/shrec-eval.xml",
    ):
        assert not os.path.lexists(gone), gone
    contest = tmp_path / "ex" / "contest.json"
    mime = subprocess.run(
        ["xdg-mime", "query", "filetype", str(contest)], capture_output=True, text=True
    ).stdout.strip()
    assert mime != "application/x-shrec-contest+json"  # the MIME database forgot it
    default = subprocess.run(
        ["xdg-mime", "query", "default", "application/x-shrec-contest+json"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert default == ""  # and no menu entry is left to open it


def _check_installed(tmp_path: Path) -> None:
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", SHREC_EVAL_CACHE_DIR=str(tmp_path / "c"))
    opt = Path("/opt/shrec-eval")
    assert (opt / "shrec-gui").is_file()
    assert Path("/usr/bin/shrec-gui").resolve() == Path("/usr/bin/shrec-eval").resolve()
    assert Path("/usr/bin/shrec-gui").resolve() == (opt / "shrec-gui").resolve()
    # no library the installed files need is missing on this system
    missing = []
    for f in opt.rglob("*.so*"):
        if f.is_file() and not f.is_symlink():
            out = subprocess.run(
                ["ldd", str(f)],
                capture_output=True,
                text=True,
                env=dict(env, LD_LIBRARY_PATH=str(opt / "_internal")),
            ).stdout
            missing += [f"{f.name}: {ln.strip()}" for ln in out.splitlines() if "not found" in ln]
    assert missing == []
    # the menu entry and the icon
    entry = Path("/usr/share/applications/shrec-gui.desktop")
    if shutil.which("desktop-file-validate"):
        v = subprocess.run(["desktop-file-validate", str(entry)], capture_output=True, text=True)
        assert v.returncode == 0 and "error" not in v.stdout.lower(), v.stdout
    assert Path("/usr/share/icons/hicolor/256x256/apps/shrec-eval.png").is_file()
    assert Path("/usr/share/icons/hicolor/scalable/apps/shrec-eval.svg").is_file()
    # the commands, and the example contests the docs use
    p = subprocess.run(
        ["/usr/bin/shrec-eval", "examples", str(tmp_path / "ex")],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    # a contest is known by its MIME type, by name and by content, and the app opens it
    session = tmp_path / "ex" / "session.json"
    shutil.copyfile(tmp_path / "ex" / "contest.json", session)
    results = tmp_path / "results.json"
    p = subprocess.run(
        ["/usr/bin/shrec-eval", "evaluate", str(session), "--json", str(results)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stderr
    kinds = {
        f.name: subprocess.run(
            ["xdg-mime", "query", "filetype", str(f)], capture_output=True, text=True
        ).stdout.strip()
        for f in (tmp_path / "ex" / "contest.json", session, results)
    }
    assert kinds == {
        "contest.json": "application/x-shrec-contest+json",
        "session.json": "application/x-shrec-contest+json",
        "results.json": "application/json",  # a results file is not a contest
    }
    default = subprocess.run(
        ["xdg-mime", "query", "default", "application/x-shrec-contest+json"],
        capture_output=True,
        text=True,
    ).stdout.strip()
    assert default == "shrec-gui.desktop"
    # a double click: the entry's command on the contest; headless, it writes its report
    cmd = _desktop_exec(entry, [str(session)])
    assert cmd[0] == "/usr/bin/shrec-gui"  # the package's, whatever else is on PATH
    report = tmp_path / "report"
    p = subprocess.run(
        [*cmd, "--export-report", str(report)], capture_output=True, text=True, env=env, timeout=600
    )
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    with open(report / "summary.csv") as fh:
        assert [row.split(",")[1] for row in fh.read().splitlines()[1:]] == [
            "Features",
            "Alice",
            "Bob",
            "Carol",
        ]
    # the installed app's smoke test
    png = tmp_path / "smoke.png"
    p = subprocess.run(
        ["/usr/bin/shrec-gui", "--smoke-test", str(png)],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert p.returncode == 0, p.stdout + p.stderr
    assert png_size(png)[0] == 1200
