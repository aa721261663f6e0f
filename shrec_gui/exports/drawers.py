"""The report's drawing processes of one window (issue 41: an export at
most three times the scoring): started by the window's first Export
report (their import of matplotlib runs while its folder is chosen, the
runs scored), kept while the window has the contest, and used by every
later export (which starts no process).  Not started when the runs are
scored: a window whose results are never exported starts no process (a
start costs about a second of processor time).  Forked from a
server that imports matplotlib once (Linux, not frozen; spawned elsewhere:
:class:`shrec_eval.outputs.figure_jobs.FigureDrawers`); no figure is drawn
before an export asks.  Closing the window, another contest and the app's
exit end them (and their server, and its folder); drawers that died (a
process killed) are started again by the next export, whose figures
meanwhile are drawn on its file thread."""

from __future__ import annotations

from shrec_eval.outputs.figure_jobs import FigureDrawers, start_drawers


class KeptDrawers:
    """One window's drawers, or those given to it (``shrec-gui
    --export-report`` starts its own before the window: they are kept
    through the contest's opening, and their giver ends them too)."""

    def __init__(self) -> None:
        self._drawers: FigureDrawers | None = None
        self._given = False

    def give(self, drawers: FigureDrawers) -> None:
        if drawers is not self._drawers:
            self.end()
            self._drawers, self._given = drawers, True

    def start(self) -> None:
        """The processes started, unless they run (their start is on a
        thread of their own: the GUI thread does not wait)."""
        if self._drawers is None:
            self._drawers = start_drawers(from_server=True)

    def for_export(self) -> FigureDrawers | None:
        """The drawers an export hands its figures to: those kept, else new
        ones (they died, or were never started); None where no process can
        start (the figures are drawn on the export's file thread)."""
        if self._drawers is not None and not self._drawers.running:
            self.end()
        self.start()
        return self._drawers

    def end(self, *, contest: bool = False) -> None:
        """The processes ended (at once: a drawing under way is then done on
        the export's file thread); ``contest``: only because another contest
        opened or this one closed, which given drawers outlive."""
        if contest and self._given:
            return
        drawers, self._drawers, self._given = self._drawers, None, False
        if drawers is not None:
            drawers.close()
