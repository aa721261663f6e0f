"""The figure export dialog: a print preset (column, two columns, slide:
drawn by the core from the results, as the report's figures) or a custom
size (format, width and height, font size, where the legend goes); the main
window remembers the answers (settings.Preferences)."""

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
from shrec_eval.figures import PRESET_TEXT, PRESETS

from .figures import FORMATS, LEGEND_PLACES, FigureSettings

FORMAT_NAMES = {"png": "PNG image", "svg": "SVG drawing (vector)", "pdf": "PDF (vector)"}


class FigureDialog(QDialog):
    """Asks how a figure is exported; ``settings()`` reads the answers."""

    def __init__(self, settings: FigureSettings, parent=None) -> None:
        super().__init__(parent)
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
        for box in (self.width_box, self.height_box):
            box.valueChanged.connect(self._show_print_size)
        self.preset.currentIndexChanged.connect(self._show_print_size)
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
        key = self.preset.currentData()
        custom = key == "custom"
        for box in (self.width_box, self.height_box, self.font_box, self.legend):
            box.setEnabled(custom)
        if not custom:
            p = PRESETS[key]
            self.print_size.setText(
                f"{p.width_cm:.1f} x {p.height_cm:.1f} cm, text {p.font_pt:g} pt; PNG at "
                f"{p.dpi} dpi; the legend outside the axes where it would cover data"
            )
            return
        w, h = self.width_box.value(), self.height_box.value()
        self.print_size.setText(
            f"{w / 300 * 2.54:.1f} x {h / 300 * 2.54:.1f} cm at 300 dpi; "
            f"SVG and PDF: {w * 0.75:.0f} x {h * 0.75:.0f} pt"
        )

    def settings(self) -> FigureSettings:
        return FigureSettings(
            width=self.width_box.value(),
            height=self.height_box.value(),
            font_px=self.font_box.value(),
            fmt=self.fmt.currentData(),
            legend=self.legend.currentData(),
            preset=self.preset.currentData(),
        ).checked()


def ask_figure_settings(parent, current: FigureSettings) -> FigureSettings | None:
    """The export dialog filled with ``current`` (the last answers); the new
    answers, or None when cancelled."""
    dialog = FigureDialog(current, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return dialog.settings()
