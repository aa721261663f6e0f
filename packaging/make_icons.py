"""Render the application icon (resources/icons/shrec-eval.svg) to the PNG
sizes, a Windows .ico and a macOS .icns with Qt's own image writers.

    QT_QPA_PLATFORM=offscreen python packaging/make_icons.py
"""

import sys
from pathlib import Path

from PySide6.QtCore import Qt
from PySide6.QtGui import QGuiApplication, QImage, QPainter
from PySide6.QtSvg import QSvgRenderer

ICONS = Path(__file__).resolve().parent.parent / "resources" / "icons"
SIZES = (16, 32, 48, 64, 128, 256, 512)


def render(renderer: QSvgRenderer, size: int) -> QImage:
    img = QImage(size, size, QImage.Format.Format_ARGB32)
    img.fill(Qt.GlobalColor.transparent)
    p = QPainter(img)
    renderer.render(p)
    p.end()
    return img


def main() -> int:
    QGuiApplication(sys.argv[:1])
    renderer = QSvgRenderer(str(ICONS / "shrec-eval.svg"))
    if not renderer.isValid():
        print("the SVG icon cannot be read")
        return 1
    for s in SIZES:
        render(renderer, s).save(str(ICONS / f"shrec-eval-{s}.png"))
    ok_ico = render(renderer, 256).save(str(ICONS / "shrec-eval.ico"), "ICO")
    ok_icns = render(renderer, 512).save(str(ICONS / "shrec-eval.icns"), "ICNS")
    print(f"wrote {len(SIZES)} PNG sizes, .ico: {ok_ico}, .icns: {ok_icns}")
    return 0 if ok_ico and ok_icns else 1


if __name__ == "__main__":
    sys.exit(main())
