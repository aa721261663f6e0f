"""The GUI tests skip, never fail to collect, where Qt is not installed (the
core package never needs it): collected in a child Python where PySide6,
pyqtgraph and pytest-qt cannot be imported."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

TESTS = Path(__file__).parent

CHILD = """
import glob, importlib.abc, sys
class NoQt(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in ("PySide6", "shiboken6", "pyqtgraph", "pytestqt"):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)
sys.meta_path.insert(0, NoQt())
import pytest
files = sorted(glob.glob("test_app*.py"))
args = ["--collect-only", "-q", "-p", "no:cacheprovider", "-p", "no:pytest-qt"]
sys.exit(pytest.main([*args, *files]))
"""


def test_gui_tests_skip_without_qt():
    p = subprocess.run(
        [sys.executable, "-c", CHILD], cwd=TESTS, capture_output=True, text=True, timeout=300
    )
    gui_files = sorted(TESTS.glob("test_app*.py"))
    assert p.returncode in (0, 5), p.stdout[-3000:]  # 5: nothing collected, all skipped
    assert "ERROR" not in p.stdout, p.stdout[-3000:]
    assert p.stdout.count("SKIPPED") == len(gui_files) >= 9, p.stdout[-3000:]
