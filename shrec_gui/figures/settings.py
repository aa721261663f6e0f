"""What a figure export is asked for (File > Export figure, the export
buttons): size, font size, format, legend place and print preset, kept in
QSettings."""

from __future__ import annotations

from dataclasses import dataclass, replace

from shrec_eval.outputs.figures import PRESETS, FigurePreset

FORMATS = {"png": "PNG image (*.png)", "svg": "SVG drawing (*.svg)", "pdf": "PDF document (*.pdf)"}
LEGEND_PLACES = {"inside": "inside the plot", "right": "right of the plot", "below": "below"}


@dataclass(frozen=True)
class FigureSettings:
    """What a figure export is asked for: pixel size of the PNG (and the
    canvas of SVG and PDF, at 96 dpi), font size in those pixels, format,
    and where the legend goes."""

    width: int = 1200
    height: int = 800
    font_px: int = 20
    fmt: str = "png"
    legend: str = "right"
    #: a print preset of shrec_eval.outputs.figures (column, two-columns, slide: the
    #: figure is drawn from the results by the core, as in the report), or
    #: "custom": the width, height and font above
    preset: str = "custom"

    LIMITS = {"width": (200, 20000), "height": (150, 20000), "font_px": (6, 200)}

    def checked(self) -> FigureSettings:
        """The settings with every number in its range and known choices."""
        fix = {
            k: int(min(max(int(getattr(self, k)), lo), hi)) for k, (lo, hi) in self.LIMITS.items()
        }
        fmt = self.fmt if self.fmt in FORMATS else "png"
        legend = self.legend if self.legend in LEGEND_PLACES else "inside"
        preset = self.preset if self.preset in PRESETS else "custom"
        return replace(self, fmt=fmt, legend=legend, preset=preset, **fix)

    def print_preset(self) -> FigurePreset:
        """The core's print preset: a named one, or for "custom" the pixel
        size at 96 dpi (0.75 pt a pixel) with the font in points."""
        s = self.checked()
        if s.preset != "custom":
            return PRESETS[s.preset]
        return FigurePreset(
            "custom", s.width / 96 * 2.54, s.height / 96 * 2.54, s.font_px * 0.75
        ).checked()

    @classmethod
    def load(cls, qsettings) -> FigureSettings:
        d = cls()
        got = {}
        for key in ("width", "height", "font_px"):
            try:
                got[key] = int(qsettings.value(f"figure/{key}", getattr(d, key)))
            except (TypeError, ValueError):
                got[key] = getattr(d, key)
        got["fmt"] = str(qsettings.value("figure/fmt", d.fmt))
        got["legend"] = str(qsettings.value("figure/legend", d.legend))
        got["preset"] = str(qsettings.value("figure/preset", d.preset))
        return cls(**got).checked()

    def save(self, qsettings) -> None:
        for key in ("width", "height", "font_px", "fmt", "legend", "preset"):
            qsettings.setValue(f"figure/{key}", getattr(self, key))
