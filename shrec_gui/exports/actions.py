"""What the window exports: the tab shown as CSV (Ctrl+E), a plot as a
figure (the figure dialog) or the CSV of its data, and the report folder
(written on a file thread).  Files are written atomically; a failure is
told in the window's words (shrec_eval.service.user_message)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import TYPE_CHECKING, Any

from PySide6.QtCore import QObject, Signal
from PySide6.QtWidgets import QWidget
from shrec_eval.errors import ShrecEvalError
from shrec_eval.outputs import figures as print_figures
from shrec_eval.outputs.atomic import Output, gate_outputs, write_bytes
from shrec_eval.outputs.figures import figure_bytes
from shrec_eval.outputs.native import write_native
from shrec_eval.profiles import listed

from ..figures.dialog import ask_figure_settings
from ..figures.printing import FORMATS as FIGURE_FORMATS
from ..figures.printing import FigureSettings
from ..workers.file_tasks import FileTasks
from ..workers.scoring import user_message
from .drawers import KeptDrawers
from .report import report_preset, start_app_report_figures, write_app_report
from .writers import PLOT_FORMATS, plot_file, write_file

if TYPE_CHECKING:  # the type only: the exports get the controller from their host
    from ..state.controller import ContestController


def screen_copy_settings(figure: FigureSettings, preset, fmt: str) -> FigureSettings:
    """The copy of a plot that the core does not draw (ranked strip,
    significance charts) at a print preset's size and text: PDF and SVG on a
    96-dpi canvas (0.75 pt a pixel), PNG at the preset's dpi."""
    dpi = preset.dpi if fmt == "png" else 96
    return replace(
        figure,
        width=round(preset.width_cm / 2.54 * dpi),
        height=round(preset.height_cm / 2.54 * dpi),
        font_px=round(preset.font_pt / 72 * dpi),
        legend="below",
    )


#: plots the core draws at a custom size too: the heatmap's copy of the screen
#: names every k-th class only and has no colour scale
CORE_AT_ANY_SIZE = ("class_heatmap",)


@dataclass(frozen=True)
class ExportHost:
    """What the exports need of the window, and nothing more: the parent of
    their dialogs, the contest, the preferences, a line in the status bar,
    the file and folder questions, and the tabs (by name: summary,
    per_query, per_class, curves, ranked, checks, significance)."""

    parent: QWidget
    controller: ContestController
    prefs: Any  # the window's Preferences (remember_folder, figure, set_figure)
    say: Callable[[str], None]
    ask_save_path: Callable[[str, str, str], str]
    ask_output_folder: Callable[[str, str], str]
    tabs: Callable[[], dict]
    current_tab: Callable[[], Any]  # a tab (shrec_gui.tabs.Tab)


class ExportActions(QObject):
    """The export half of the File menu, for one main window (through its
    :class:`ExportHost`)."""

    #: a folder written on the file thread: what ("report", "native"), the
    #: folder, and "" or the message of why it was not written
    folderDone = Signal(str, str, str)
    #: a print figure drawn and written on the file thread: its path, and ""
    #: or the message of why it was not written
    figureDone = Signal(str, str)

    def __init__(self, host: ExportHost) -> None:
        super().__init__(host.parent)
        self.host = host
        #: single files (a tab's CSV, a plot copied from the screen): their
        #: content made here, on the GUI thread; written by a file task
        self.writes = FileTasks(self)
        self.report_tasks = FileTasks(self)
        self.report_tasks.done.connect(self._report_written)
        self.report_tasks.failed.connect(self._report_failed)
        self._report_folder = ""
        #: the processes drawing the reports' figures: started by the first
        #: export (their import of matplotlib while its folder is chosen),
        #: kept for every later one, ended with the contest or the window
        self.drawers = KeptDrawers()
        self.native_tasks = FileTasks(self)
        self.native_tasks.done.connect(self._native_written)
        self.native_tasks.failed.connect(self._native_failed)
        self._native_folder = ""
        # print figures: matplotlib draws them on a file thread (the first
        # one, importing it, took 3 s), never on the GUI thread
        self.figure_tasks = FileTasks(self)
        self.figure_tasks.done.connect(self._figure_written)
        self.figure_tasks.failed.connect(self._figure_failed)
        self._figures: dict[int, str] = {}  # request -> path
        #: exports of folders waiting for the runs to be scored with the
        #: options now chosen: (what, folder, the export to start again)
        self._waiting: list[tuple] = []
        c = host.controller
        c.changed.connect(self._resume)
        c.progress.connect(self._resume)
        c.closed.connect(self._forget_waiting)
        for another in (c.sessionOpened, c.assessmentOpened):
            another.connect(lambda *_: self.drawers.end(contest=True))
        c.ended.connect(self.drawers.end)

    def _results(self, what: str, folder: str, again) -> list | None:
        """The results an export shows: every readable run, scored with the
        options now chosen.  Results of other options (the options or the
        profile changed since) are scored first, as F5 scores them, and the
        export starts again once they are (``again(folder)``); None then, and
        the status says so."""
        c = self.host.controller
        entries = [e for e in c.readable_entries() if e.result is not None]
        if c.assessment is None or not entries:
            message = "Score runs first: the report shows their results."
            self.host.say(message)
            self.folderDone.emit(what, folder, message)
            return None
        if c.stale_entries() or c.busy:
            self._waiting.append((what, folder, again))
            if not c.busy:
                c.score()
            self.host.say("Scoring the runs with the current options first; the export follows.")
            return None
        return entries

    def _forget_waiting(self) -> None:
        """The contest closed: an export waiting for it is not for the next one."""
        waiting, self._waiting = self._waiting, []
        self.drawers.end(contest=True)
        for what, folder, _ in waiting:
            self.folderDone.emit(what, folder, "the contest was closed before it was scored")

    def _resume(self, *_) -> None:
        """Scoring done: the export that waited for it, or why it cannot go
        on (a run scoring did not bring to the current options: cancelled)."""
        c = self.host.controller
        if not self._waiting or not c.idle():
            return
        waiting, self._waiting = self._waiting, []
        for what, folder, again in waiting:
            if c.stale_entries():
                message = (
                    "the results are not all scored with the current options "
                    "(scoring was stopped): press F5, then export again"
                )
                self.host.say(f"The {what} was not written: {message}.")
                self.folderDone.emit(what, folder, message)
            else:
                again(folder)

    def export_native_dialog(self) -> None:
        path = self.host.ask_output_folder("Export native files (a folder)", "native")
        if path:
            self.export_native(path)

    def export_native(self, folder: str) -> None:
        """The evaluator's own files (as ``shrec-eval evaluate --native``),
        written on a file thread.  The profile and the folder are checked
        before the runs are scored with the options chosen (as the command
        line's gate: a folder of other files refused before any work)."""
        c = self.host.controller
        contest = c.contest()
        if contest is not None:  # else: nothing to write yet (_results says so)
            profile = c.options.rules
            if profile.native is None:
                having = " and ".join(p.name for p in listed() if p.native is not None)
                self.host.say(f"The {profile.name} profile has no native files ({having} have).")
                self.folderDone.emit("native", folder, "the profile has no native files")
                return
            try:  # as the command line's --native: the gate before, each file as written
                contest.gate_outputs(native=folder)
            except ShrecEvalError as exc:
                self._native_folder = folder
                self._native_failed(0, user_message(exc, folder))
                return
        entries = self._results("native", folder, self.export_native)
        if entries is None:
            return
        self._native_folder = folder
        self.host.say(f"Writing the native files to {folder}…")
        self.native_tasks.start(
            partial(write_native, inputs=contest.inputs()),
            folder,
            self.host.controller.assessment,
            [e.result for e in entries],
        )

    def _native_written(self, _request: int, _paths) -> None:
        self.host.prefs.remember_folder(self._native_folder)
        self.host.say(f"Wrote the native files to {self._native_folder}")
        self.folderDone.emit("native", self._native_folder, "")

    def _native_failed(self, _request: int, message: str) -> None:
        self.host.say("The native files were not written.")
        self.host.controller.problem.emit("Cannot write the native files", message)
        self.folderDone.emit("native", self._native_folder, message)

    def prepare_report(self, drawers=None) -> None:
        """Start the report's figures, when the runs are scored with the
        options chosen, in the drawers (kept from an earlier export, or
        started now; ``drawers``: started already, the headless export's, the
        window's from now): they need no folder, and the export finds them
        drawn if its results are these (drawers draw a figure once)."""
        if drawers is not None:
            self.drawers.give(drawers)
        c = self.host.controller
        if c.assessment is None or c.busy or c.stale_entries():
            return
        drawers = self.drawers.for_export()
        if drawers is None:
            return
        scored = [e for e in c.readable_entries() if e.result is not None]
        if scored:
            results, looks = self._report_runs(scored)
            start_app_report_figures(
                drawers,
                c.assessment,
                results,
                results[0].options,
                report_preset(self.host.prefs.figure()),
                looks,
            )

    def _report_runs(self, scored) -> tuple[list, dict]:
        """The results of the runs a report shows, and each one's look."""
        look_of = self.host.controller.looks()
        return [e.result for e in scored], {e.result.run_name: look_of[e.key] for e in scored}

    def export_report_dialog(self) -> None:
        self.prepare_report()
        path = self.host.ask_output_folder("Export report (a folder)", "report")
        if path:
            self.export_report(path)

    def _gate(self, what: str, path: str, kind: str = "file") -> None:
        """The output gate (as the command line's): never over an input of
        what is open, nor through a link to one, nor a device."""
        contest = self.host.controller.contest()
        gate_outputs([Output(what, path, kind)], contest.inputs() if contest else [])

    def export_report(self, folder: str) -> None:
        """The report folder (as ``shrec-eval evaluate --report``) with the
        figures: painted here, written on a file thread."""
        c = self.host.controller
        contest = c.contest()
        if contest is not None:
            try:  # the gate before the runs are scored (an earlier report is replaced)
                contest.gate_outputs(report=folder)
            except ShrecEvalError as exc:
                self._report_folder = folder
                self._report_failed(0, user_message(exc, folder))
                return
        scored = self._results("report", folder, self.export_report)
        if scored is None:
            return
        results, looks = self._report_runs(scored)
        self._report_folder = folder
        self.host.say(f"Writing the report to {folder}…")
        shapes = None
        if c.shapes.active:  # the gallery: the ranked lists of the runs the service read
            runs = [e.run for e in scored]
            shapes = (c.shapes.source, c.shapes.query_source, runs)
        self.prepare_report()
        self.report_tasks.start(
            write_app_report,
            folder,
            c.assessment,
            results,
            results[0].options,
            report_preset(self.host.prefs.figure()),
            looks,
            list(self.host.tabs()["summary"].keys),
            shapes,
            self.drawers.for_export(),  # kept: the next export uses them too
        )

    def _report_written(self, _request: int, _paths) -> None:
        self.host.prefs.remember_folder(self._report_folder)
        self.host.say(f"Wrote the report to {self._report_folder}")
        self.folderDone.emit("report", self._report_folder, "")

    def _report_failed(self, _request: int, message: str) -> None:
        self.host.say("The report was not written.")
        self.host.controller.problem.emit("Cannot write the report", message)
        self.folderDone.emit("report", self._report_folder, message)

    def export_tab_dialog(self) -> None:
        """Ctrl+E: the current tab exports what it shows."""
        tab = self.host.current_tab()
        name = tab.export_name()
        if name is None:
            self.host.say(f"Nothing to export on the {tab.title} tab yet.")
            return
        path = self.host.ask_save_path(f"Export {tab.title} as CSV", name, "CSV (*.csv)")
        if path:
            self.export_tab(tab, path)

    def export_tab(self, tab, path: str) -> None:
        self._written(path, tab.export_text)

    def _written(self, path: str, content) -> bool:
        """The file ``content()`` makes (on the GUI thread: it reads the
        tables and plots) written to ``path`` by a file task, through the
        output gate; a failure told as a problem."""
        try:
            self._gate("the export", path)
            self.writes.run(write_file, path, content())
        except (OSError, ShrecEvalError) as exc:
            self.host.controller.problem.emit("Cannot write the file", user_message(exc, path))
            return False
        self.host.prefs.remember_folder(path)
        self.host.say(f"Wrote {path}")
        return True

    def _plot_item(self, which: str):
        for tab in self.host.tabs().values():
            if which in tab.plot_items():
                return tab.plot_items()[which]
        raise KeyError(which)

    def _plot_name(self, which: str) -> str:
        if which == "curves":
            return (
                "bars"
                if self.host.tabs()["curves"].showing_bars()
                else self.host.tabs()["curves"].kind.currentData()
            )
        return which

    def export_plot_dialog(self, kind: str, which: str = "curves") -> None:
        """Export a plot: "figure" asks format, size, font and legend (the
        figure dialog, remembered), then the file; "csv" the file."""
        if which == "class_pr" and self.host.tabs()["per_class"].current_class is None:
            self.host.say("Click a class in the Per class table first: the plot shows its curves.")
            return
        figure = None
        fmt = "csv"
        if kind == "figure":
            figure = ask_figure_settings(self.host.parent, self.host.prefs.figure(), which)
            if figure is None:
                return
            self.host.prefs.set_figure(figure)
            fmt = figure.fmt
        path = self.host.ask_save_path(
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
            figure = figure or self.host.prefs.figure()
            figure = replace(figure, width=width or figure.width)
            custom = figure.checked().preset == "custom"
            if not custom or which in CORE_AT_ANY_SIZE:
                # the core's figure (a custom size: the pixels at 96 dpi)
                preset = figure.print_preset()
                draw = self._print_figure(which, preset)
                if draw is not None:
                    self._draw_figure(path, fmt, draw, 96 if custom else None)
                    return
                if not custom:
                    figure = screen_copy_settings(figure, preset, fmt)
        item = self._plot_item(which)
        self._written(path, lambda: plot_file(item, fmt, figure))

    def _draw_figure(self, path: str, fmt: str, draw, dpi: int | None = None) -> None:
        """``draw()`` (a core figure of data taken now) drawn and written to
        ``path`` (a PNG at ``dpi``, else the preset's) on a file thread;
        figureDone says when."""
        try:
            self._gate("the export", path)
        except ShrecEvalError as exc:
            message = user_message(exc, path)
            self.host.controller.problem.emit("Cannot write the file", message)
            self.figureDone.emit(path, message)
            return
        self.host.say(f"Drawing the figure for {path}…")
        request = self.figure_tasks.start(lambda: write_bytes(path, figure_bytes(draw(), fmt, dpi)))
        self._figures[request] = path

    def _figure_written(self, request: int, _value) -> None:
        path = self._figures.pop(request, "")
        self.host.prefs.remember_folder(path)
        self.host.say(f"Wrote {path}")
        self.figureDone.emit(path, "")

    def _figure_failed(self, request: int, message: str) -> None:
        path = self._figures.pop(request, "")
        self.host.say("The figure was not written.")
        self.host.controller.problem.emit("Cannot write the file", message)
        self.figureDone.emit(path, message)

    def _print_figure(self, which: str, preset):
        """What the core draws for a plot at a print preset (the Curves
        tab's mean curves and measure bars, the per-class heatmap and a
        class's curves, the ranked lists), as a function that makes the
        figure from data taken now (it runs on a file thread); None for the
        other plots (they are copied from the screen at the preset's size)."""
        if which == "curves":
            cw = self.host.tabs()["curves"]
            entries = [e for e in cw.entries if e[2] is not None]
            if not entries or cw.current_query() is not None:
                return None
            names = [n for n, _, _ in entries]
            results = [r for _, _, r in entries]
            if cw.showing_bars():
                keys = cw.bars.shown_measures()
                return lambda: print_figures.bars_figure(results, preset, keys, names=names)
            looks = [look for _, look, _ in entries]
            key = cw.kind.currentData()
            return lambda: print_figures.curve_figure(
                results, key, preset, names=names, looks=looks
            )
        if which == "class_heatmap":
            model = self.host.tabs()["per_class"].model
            if not model.entries:
                return None
            names = [n for _, n, _ in model.entries]
            results = [r for _, _, r in model.entries]
            measure = model.measure
            return lambda: print_figures.heatmap_figure(results, measure, preset, names=names)
        if which == "class_pr":  # the class's mean curves, as the tab draws them
            tab = self.host.tabs()["per_class"]
            query_class = tab.current_class
            if query_class is None or not tab.model.entries:
                return None
            look_of = self.host.controller.looks()
            entries = tab.model.entries
            names = [n for _, n, _ in entries]
            looks = [look_of[k] for k, _, _ in entries]
            results = [r for _, _, r in entries]
            return lambda: print_figures.curve_figure(
                results, "pr", preset, names=names, looks=looks, query_class=query_class
            )
        if which == "ranked":  # the strips shown, over the ranks in view
            tab = self.host.tabs()["ranked"]
            runs = [r for r in tab.shown_runs() if r.error is None]
            if not runs:
                return None
            lists = [(r.name, r.gains) for r in runs]
            lo, hi = tab.plot.getPlotItem().vb.viewRange()[0]
            ranks = (max(1, round(lo + 0.5)), max(1, round(hi - 0.5)))
            title = tab.plot.getPlotItem().titleLabel.text or None
            top = tab.top_grade
            return lambda: print_figures.ranked_lists_figure(
                lists, top, preset, ranks=ranks, title=title
            )
        return None
