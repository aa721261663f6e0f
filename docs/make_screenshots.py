"""Take the screenshots of docs/app.md: the app on the bundled demo contest,
offscreen, one PNG per stop of the tour, written to docs/img/.

    QT_QPA_PLATFORM=offscreen python docs/make_screenshots.py

Settings go to a temporary folder (the user's own are never read or
changed). Look at the images before committing them.
"""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtCore import QSettings  # noqa: E402
from PySide6.QtWidgets import QApplication  # noqa: E402

OUT = Path(__file__).with_name("img")


def settle(app, w, seconds: float = 60.0) -> None:
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


def shoot(app, widget, name: str) -> None:
    for _ in range(20):
        app.processEvents()
        time.sleep(0.01)
    path = OUT / f"app_{name}.png"
    widget.grab().save(str(path))
    try:  # 128 colours: a third of the size, no visible change for a GUI
        from PIL import Image

        Image.open(path).convert("RGB").quantize(128).save(path, optimize=True)
    except ImportError:
        pass
    print(path)


def main() -> int:
    folder = tempfile.mkdtemp(prefix="shrec-gui-settings-")
    for scope in (QSettings.Scope.UserScope, QSettings.Scope.SystemScope):
        QSettings.setPath(QSettings.Format.IniFormat, scope, folder)
    app = QApplication.instance() or QApplication(sys.argv)
    from shrec_gui.mainwindow import MainWindow, app_settings

    OUT.mkdir(exist_ok=True)
    w = MainWindow(app_settings())
    w.quiet = True
    w.resize(1280, 760)
    w.show()
    shoot(app, w, "welcome")
    w.open_demo()
    settle(app, w)
    stops = [
        ("summary", w.summary),
        ("per_query", w.per_query),
        ("per_class", w.per_class),
        ("curves", w.curves),
        ("ranked_list", w.ranked),
        ("checks", w.checks),
    ]
    for name, tab in stops:
        w.tabs.setCurrentWidget(tab)
        if name == "per_class":
            tab.select_class("bicycle")
            settle(app, w)  # its first-tier table is computed on a worker thread
            wait_for(app, lambda t=tab: drawn(t.class_shapes.tiles))
        if name == "ranked_list":
            wait_for(app, lambda r=tab: drawn(t for _, ts in r.thumbs.rows for t in ts))
        shoot(app, w, name)
    w.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
