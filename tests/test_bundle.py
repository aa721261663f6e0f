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
