"""The frozen app: build the PyInstaller bundle from a clean checkout and
run its smoke test offscreen (pytest marker ``bundle``; run by .ci/run)."""

import os
import shutil
import struct
import subprocess
import sys
import tarfile
import time
from pathlib import Path

import pytest

pytestmark = pytest.mark.bundle
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
