"""Screenshots of the app for docs/app-screenshots.md: the Summary, Per query
(one measure: each query's runs and their ranking) and Data checks tabs of the
demo contest, at 1,200 px wide, in the light and the dark theme.

    QT_QPA_PLATFORM=offscreen python packaging/make_screenshots.py [--out docs/images]

Preferences are read from and written to a temporary folder (the user's are
left alone). Writes app-<tab>-<theme>.png and prints each file's size."""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TABS = {"summary": "summary", "per-query": "per_query", "data-checks": "checks"}


def settle(app, seconds: float = 0.3) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        app.processEvents()
        time.sleep(0.005)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--out", default=str(ROOT / "docs" / "images"))
    p.add_argument("--width", type=int, default=1200)
    p.add_argument("--height", type=int, default=760)
    args = p.parse_args(argv)
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    folder = tempfile.mkdtemp(prefix="shrec-screenshots-")
    QSettings.setPath(QSettings.Format.IniFormat, QSettings.Scope.UserScope, folder)
    app = QApplication(sys.argv[:1])
    from shrec_gui.mainwindow import MainWindow, app_settings

    w = MainWindow(app_settings())
    w.quiet = True
    w.resize(args.width, args.height)
    w.show()
    w.open_demo()
    deadline = time.monotonic() + 120
    c = w.controller
    while not (c.idle() and len(c.entries) == 7 and all(e.result for e in c.entries.values())):
        if time.monotonic() > deadline:
            print("the demo was not scored within 120 s", file=sys.stderr)
            return 1
        app.processEvents()
        time.sleep(0.005)
    pq = w.per_query
    pq.mode.setCurrentIndex(pq.mode.findData("measure"))
    pq.choice.setCurrentIndex(pq.choice.findData(c.default_rank_key()))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    for theme, dark in (("light", False), ("dark", True)):
        w.set_dark(dark)
        for name, attr in TABS.items():
            w.tabs.setCurrentWidget(getattr(w, attr))
            settle(app)
            path = out / f"app-{name}-{theme}.png"
            w.grab().save(str(path))
            print(f"{path}: {w.width()} x {w.height()}, {path.stat().st_size // 1024} KiB")
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
