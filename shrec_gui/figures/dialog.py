"""The figure export dialog: a print preset (column, two columns, slide:
drawn by the core from the results, as the report's figures) or a custom
size (format, width and height, font size, where the legend goes); the main
window remembers the answers (window/settings.py's Preferences)."""

from __future__ import annotations

from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QLabel,
    QSpinBox,
    QVBoxLayout,
)
from shrec_eval.outputs.figures import PRESET_TEXT, PRESETS

from .printing import FORMATS, LEGEND_PLACES, FigureSettings

FORMAT_NAMES = {"png": "PNG image", "svg": "SVG drawing (vector)", "pdf": "PDF (vector)"}


#: plots whose figure grows downwards with what they show (the core's)
GROWS = {"class_heatmap": "classes", "ranked": "runs"}
#: plots the core draws with a legend (inside the axes or below them)
WITH_LEGEND = ("curves", "class_pr")


def size_text(settings: FigureSettings, which: str | None = None) -> str:
    """The size line of the dialog: the figure's size in the format's own
    units (pixels of a PNG, points of an SVG or PDF) and in cm, and for the
    plots that grow with the runs or classes, that the height is a least."""
    s = settings.checked()
    grows = GROWS.get(which or "")
    fmt = s.fmt.upper()

    def size(w: float, h: float, unit: str, digits: int, first: bool = True) -> str:
        if grows and first:
            least = f"{h:.{digits}f} {unit}"
            return f"{w:.{digits}f} {unit} wide, as tall as its {grows} need (at least {least})"
        if grows:
            return f"{w:.{digits}f} {unit} wide"
        return f"{w:.{digits}f} x {h:.{digits}f} {unit}"

    if s.preset != "custom":
        p = PRESETS[s.preset]
        text = f"{size(p.width_cm, p.height_cm, 'cm', 1)}, text {p.font_pt:g} pt; "
        if s.fmt == "png":
            w, h = (round(v / 2.54 * p.dpi) for v in (p.width_cm, p.height_cm))
            text += f"{size(w, h, 'px', 0, False)} in PNG at {p.dpi} dpi"
        else:
            text += f"{size(*p.size_pt, 'pt', 0, False)} in {fmt}"
        if which in WITH_LEGEND:
            text += "; the legend inside the axes where it covers no data, else below them"
        return text
    if s.fmt == "png":  # pixels; what they make on paper at 300 dpi
        cm = (s.width / 300 * 2.54, s.height / 300 * 2.54)
        return (
            f"{size(s.width, s.height, 'px', 0)}, text {s.font_px} px; printed at 300 dpi: "
            f"{size(*cm, 'cm', 1, False)}"
        )
    cm = (s.width / 96 * 2.54, s.height / 96 * 2.54)  # SVG and PDF: 96 px an inch
    return (
        f"{size(s.width * 0.75, s.height * 0.75, 'pt', 0)} in {fmt}, text {s.font_px * 0.75:g} "
        f"pt; {size(*cm, 'cm', 1, False)}"
    )


class FigureDialog(QDialog):
    """Asks how a figure is exported; ``settings()`` reads the answers.
    ``which``: the plot (its size line says whether it grows with the
    classes or runs and has a legend)."""

    def __init__(self, settings: FigureSettings, parent=None, which: str | None = None) -> None:
        super().__init__(parent)
        self.which = which
        self.setWindowTitle("Export figure")
        s = settings.checked()
        self.preset = QComboBox()
        for key in PRESETS:
            text = PRESET_TEXT[key] if key != "custom" else "custom size (below, in pixels)"
            self.preset.addItem(text[0].upper() + text[1:], key)
        self.preset.setCurrentIndex(self.preset.findData(s.preset))
        self.fmt = QComboBox()
        for key in FORMATS:
            self.fmt.addItem(FORMAT_NAMES[key], key)
        self.fmt.setCurrentIndex(self.fmt.findData(s.fmt))
        self.width_box = self._spin("width", s.width, " px")
        self.height_box = self._spin("height", s.height, " px")
        self.font_box = self._spin("font_px", s.font_px, " px")
        self.legend = QComboBox()
        for key, text in LEGEND_PLACES.items():
            self.legend.addItem(text, key)
        self.legend.setCurrentIndex(self.legend.findData(s.legend))
        self.print_size = QLabel()
        self.print_size.setWordWrap(True)
        for box in (self.width_box, self.height_box, self.font_box):
            box.valueChanged.connect(self._show_print_size)
        self.preset.currentIndexChanged.connect(self._show_print_size)
        self.fmt.currentIndexChanged.connect(self._show_print_size)
        form = QFormLayout()
        form.addRow("Preset:", self.preset)
        form.addRow("Format:", self.fmt)
        form.addRow("Width:", self.width_box)
        form.addRow("Height:", self.height_box)
        form.addRow("Font size:", self.font_box)
        form.addRow("Legend:", self.legend)
        form.addRow("", self.print_size)
        buttons = QDialogButtonBox(
            QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel
        )
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addLayout(form)
        lay.addWidget(buttons)
        self._show_print_size()

    def _spin(self, key: str, value: int, suffix: str) -> QSpinBox:
        lo, hi = FigureSettings.LIMITS[key]
        box = QSpinBox()
        box.setRange(lo, hi)
        box.setSingleStep(10 if key != "font_px" else 1)
        box.setSuffix(suffix)
        box.setValue(value)
        return box

    def _show_print_size(self) -> None:
        custom = self.preset.currentData() == "custom"
        for box in (self.width_box, self.height_box, self.font_box):
            box.setEnabled(custom)
        # the core draws the heatmap (no legend to place) at a custom size too
        self.legend.setEnabled(custom and self.which != "class_heatmap")
        self.print_size.setText(size_text(self.settings(), self.which))

    def settings(self) -> FigureSettings:
        return FigureSettings(
            width=self.width_box.value(),
            height=self.height_box.value(),
            font_px=self.font_box.value(),
            fmt=self.fmt.currentData(),
            legend=self.legend.currentData(),
            preset=self.preset.currentData(),
        ).checked()


def ask_figure_settings(
    parent, current: FigureSettings, which: str | None = None
) -> FigureSettings | None:
    """The export dialog filled with ``current`` (the last answers) for the
    plot ``which``; the new answers, or None when cancelled."""
    dialog = FigureDialog(current, parent, which)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog.settings()
