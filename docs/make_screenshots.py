"""Make every image of the docs, into docs/images/ (the one folder of them):

* the tour of docs/app.md: the app on the bundled demo contest, one PNG per
  stop (``app_<stop>.png``);
* docs/app-screenshots.md: the Summary, Per query (one measure) and Data
  checks tabs at 1,200 px wide, light and dark (``app-<tab>-<theme>.png``),
  and docs/shapes.md's Ranked list with thumbnails (``ranked-list-shapes-<theme>.png``);
* the figures: the demo's precision-recall curves as ``--report`` draws them
  at the column preset (``precision_recall_column.png``), and the one
  docs/library.md's code draws (``library_pr.png``, made by running that
  page's Python blocks).

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py [--only NAME ...]

Preferences go to a temporary folder (the user's own are never read or
changed). Look at the images before committing them.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "docs" / "images"
#: app-screenshots.md's tabs: file name -> the main window's attribute
TABS = {"summary": "summary", "per-query": "per_query", "data-checks": "checks"}


def pump(app, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)


def settle(app, w, seconds: float = 120.0) -> None:
    """Until the demo is scored and every tab has caught up."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        app.processEvents()
        c = w.controller
        if (
            c.idle()
            and w.caught_up()
            and c.entries
            and all(e.result is not None for e in c.entries.values())
        ):
            return
        time.sleep(0.01)
    raise TimeoutError("the demo was not scored in time")


def drawn(tiles) -> bool:
    """Every thumbnail of these tiles has its picture (drawn by other processes)."""
    return all(t.pixmap is not None for t in tiles)


def wait_for(app, done, seconds: float = 60.0) -> None:
    deadline = time.monotonic() + seconds
    while not done() and time.monotonic() < deadline:
        app.processEvents()
        time.sleep(0.01)


def save(app, widget, name: str, *, quantize: bool = False) -> None:
    pump(app, 0.2)
    path = OUT / name
    widget.grab().save(str(path))
    if quantize:  # 128 colours: a third of the size, no visible change for a GUI
        from PIL import Image

        Image.open(path).convert("RGB").quantize(128).save(path, optimize=True)
    print(f"{path.relative_to(ROOT)}: {path.stat().st_size // 1024} KiB")


def demo_window(app, width: int, height: int):
    from shrec_gui.window.main import MainWindow, app_settings

    w = MainWindow(app_settings())
    w.quiet = True
    w.resize(width, height)
    w.show()
    return w


def tour(app) -> None:
    """docs/app.md: the welcome page, then each tab of the demo."""
    w = demo_window(app, 1280, 760)
    save(app, w, "app_welcome.png", quantize=True)
    w.open_demo()
    settle(app, w)
    for name, tab in [
        ("summary", w.summary),
        ("per_query", w.per_query),
        ("per_class", w.per_class),
        ("curves", w.curves),
        ("ranked_list", w.ranked),
        ("checks", w.checks),
    ]:
        w.tabs.setCurrentWidget(tab)
        if name == "per_class":
            tab.select_class("bicycle")
            settle(app, w)  # its first-tier table is computed on a worker thread
            wait_for(app, lambda t=tab: drawn(t.class_shapes.tiles))
        if name == "ranked_list":
            wait_for(app, lambda r=tab: drawn(t for _, ts in r.thumbs.rows for t in ts))
        save(app, w, f"app_{name}.png", quantize=True)
    w.close()


def themes(app) -> None:
    """docs/app-screenshots.md's tabs and docs/shapes.md's ranked list, light and dark."""
    w = demo_window(app, 1200, 760)
    w.open_demo()
    settle(app, w)
    c = w.controller
    pq = w.per_query
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    pq.choice.setCurrentIndex(pq.choice.findData(c.default_rank_key()))
    for theme, dark in (("light", False), ("dark", True)):
        w.set_dark(dark)
        w.resize(1200, 760)
        for name, attr in TABS.items():
            w.tabs.setCurrentWidget(getattr(w, attr))
            pump(app)
            save(app, w, f"app-{name}-{theme}.png")
        w.resize(1400, 980)
        r = w.ranked
        w.tabs.setCurrentWidget(r)
        r.query.setCurrentIndex(r.query.findText("q07"))
        settle(app, w)
        wait_for(app, lambda r=r: drawn(t for _, ts in r.thumbs.rows for t in ts))
        save(app, w, f"ranked-list-shapes-{theme}.png")
    w.close()


def figures() -> None:
    """The report's precision-recall figure at the column preset, and
    docs/library.md's own figure, drawn by that page's code."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "report"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "shrec_eval",
                "demo",
                "--report",
                str(report),
                "--figure-preset",
                "column",
            ],
            check=True,
            stdout=subprocess.DEVNULL,
        )
        shutil.copyfile(
            report / "figures" / "precision_recall.png", OUT / "precision_recall_column.png"
        )
    print("docs/images/precision_recall_column.png")
    page = (ROOT / "docs" / "library.md").read_text(encoding="utf-8")
    scope: dict = {"__name__": "__main__"}
    for code in re.findall(r"```python\n(.*?)```", page, re.S):
        with contextlib.redirect_stdout(io.StringIO()):
            exec(compile(code, "docs/library.md", "exec"), scope)
    shutil.copyfile(scope["out"] / "pr.png", OUT / "library_pr.png")
    print("docs/images/library_pr.png")


STEPS = {"tour": tour, "themes": themes, "figures": figures}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--only", nargs="+", choices=sorted(STEPS), help="some of the images only")
    args = p.parse_args(argv)
    from PySide6.QtCore import QSettings

    from shrec_gui.app import make_app

    folder = tempfile.mkdtemp(prefix="shrec-screenshots-")
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, folder)
    app = make_app()  # as the app makes it (offscreen: without the platform's noise)
    OUT.mkdir(exist_ok=True)
    for name in args.only or STEPS:
        step = STEPS[name]
        step() if name == "figures" else step(app)
    shutil.rmtree(folder, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
