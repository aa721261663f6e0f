"""What the window exports: the tab shown as CSV (Ctrl+E), a plot as a
figure (the figure dialog) or the CSV of its data, and the report folder
(written on a file thread).  Files are written atomically; a failure is
told in the window's words (worker.user_message)."""

from __future__ import annotations

from dataclasses import replace

from PySide6.QtCore import QObject
from shrec_eval.errors import ShrecEvalError

from .exports import PLOT_FORMATS, write_plot
from .figure_dialog import ask_figure_settings
from .figures import FORMATS as FIGURE_FORMATS
from .figures import FigureSettings
from .report_export import report_figures, write_app_report
from .worker import FileTasks, user_message


class ExportActions(QObject):
    """The export half of the File menu, for one main window ``w``."""

    def __init__(self, window) -> None:
        super().__init__(window)
        self.w = window
        self.report_tasks = FileTasks(self)
        self.report_tasks.done.connect(self._report_written)
        self.report_tasks.failed.connect(self._report_failed)
        self._report_folder = ""

    def export_report_dialog(self) -> None:
        path = self.w.ask_save_path("Export report (a folder)", "report", "Folder (*)")
        if path:
            self.export_report(path)

    def export_report(self, folder: str) -> None:
        """The report folder (as ``shrec-eval evaluate --report``) with the
        figures: painted here, written on a file thread."""
        c = self.w.controller
        entries = [(e.name, e.colour, e.result) for e in c.readable_entries() if e.result]
        if c.assessment is None or not entries:
            self.w.status_label.setText("Score runs first: the report shows their results.")
            return
        figures = report_figures(entries, self.w.prefs.figure())
        results = [r for _, _, r in entries]
        self._report_folder = folder
        self.w.status_label.setText(f"Writing the report to {folder}…")
        shapes = None
        if c.shapes.active:  # the gallery: the runs are read again on the file thread
            runs = [e.source for e in c.readable_entries() if e.result]
            shapes = (c.shapes.source, c.shapes.query_source, runs)
        self.report_tasks.start(
            write_app_report,
            folder,
            c.assessment,
            results,
            results[0].options,
            figures,
            shapes,
        )

    def _report_written(self, _request: int, _paths) -> None:
        self.w.prefs.remember_folder(self._report_folder)
        self.w.status_label.setText(f"Wrote the report to {self._report_folder}")

    def _report_failed(self, _request: int, message: str) -> None:
        self.w.status_label.setText("The report was not written.")
        self.w.controller.problem.emit("Cannot write the report", message)

    def export_tab_dialog(self) -> None:
        """Ctrl+E: the current tab exports what it shows."""
        tab = self.w.current_tab()
        name = tab.export_name()
        if name is None:
            self.w.status_label.setText(f"Nothing to export on the {tab.title} tab yet.")
            return
        path = self.w.ask_save_path(f"Export {tab.title} as CSV", name, "CSV (*.csv)")
        if path:
            self.export_tab(tab, path)

    def export_tab(self, tab, path: str) -> None:
        self._written(path, lambda: tab.export(path))

    def _written(self, path: str, write) -> bool:
        try:
            write()
        except (OSError, ShrecEvalError) as exc:
            self.w.controller.problem.emit("Cannot write the file", user_message(exc, path))
            return False
        self.w.prefs.remember_folder(path)
        self.w.status_label.setText(f"Wrote {path}")
        return True

    def _plot_item(self, which: str):
        for tab in self.w.all_tabs():
            if which in tab.plot_items():
                return tab.plot_items()[which]
        raise KeyError(which)

    def _plot_name(self, which: str) -> str:
        if which == "curves":
            return "bars" if self.w.curves.showing_bars() else self.w.curves.kind.currentData()
        return which

    def export_plot_dialog(self, kind: str, which: str = "curves") -> None:
        """Export a plot: "figure" asks format, size, font and legend (the
        figure dialog, remembered), then the file; "csv" the file."""
        figure = None
        fmt = "csv"
        if kind == "figure":
            figure = ask_figure_settings(self.w, self.w.prefs.figure())
            if figure is None:
                return
            self.w.prefs.set_figure(figure)
            fmt = figure.fmt
        path = self.w.ask_save_path(
            "Export plot", f"{self._plot_name(which)}.{fmt}", PLOT_FORMATS[fmt]
        )
        if path:
            self.export_plot(path, fmt, which=which, figure=figure)

    def export_plot(
        self,
        path: str,
        fmt: str,
        width: int | None = None,
        which: str = "curves",
        figure: FigureSettings | None = None,
    ) -> None:
        """A plot (the curves or measure bars, the ranked strip, or the
        significance tab's "means" and "h2h") as a figure (png, svg, pdf:
        ``figure``, else the remembered settings; ``width`` overrides) or as
        CSV of its data."""
        if fmt in FIGURE_FORMATS:
            figure = figure or self.w.prefs.figure()
            figure = replace(figure, width=width or figure.width)
        item = self._plot_item(which)
        self._written(path, lambda: write_plot(item, path, fmt, figure))
