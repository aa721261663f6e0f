"""One module per tab of the main window; each tab reads the
:class:`~shrec_gui.state.controller.ContestController` it is given, refreshes on
its signals, and knows how to export itself (:class:`Tab`)."""

from __future__ import annotations

from ..exports.writers import csv_text


class Tab:
    """What the main window asks of a tab (a mixin of its QWidget)."""

    title = ""

    def refresh(self) -> None:
        """Show the controller's current runs and results."""

    def on_changed(self) -> None:
        """The runs or results changed: the tab shown refreshes now; a
        hidden one waits until it is shown, or (once no job runs) its turn
        among the hidden tabs, one per pass of the event loop
        (``MainWindow.catch_up``): refreshing them all at once stalled the
        window for a third of a second at the end of a job."""
        self._stale = not self.isVisible()
        if not self._stale:
            self.refresh()

    @property
    def missed_changes(self) -> bool:
        """Hidden while the runs or results changed (not refreshed yet)."""
        return getattr(self, "_stale", False)

    def refresh_if_stale(self) -> None:
        """Shown: catch up with what changed while hidden."""
        if getattr(self, "_stale", False):
            self._stale = False
            self.refresh()

    def table(self):
        """The CopyTable that Ctrl+C copies from, or None."""
        return None

    def selected_run_keys(self) -> list[int]:
        """The run keys of the selected rows (what Del removes)."""
        return []

    def plot_items(self) -> dict:
        """name -> pyqtgraph PlotItem of the plots the tab can export."""
        return {}

    def export_name(self) -> str | None:
        """File name offered by Ctrl+E (CSV), or None: nothing to export."""
        return "table.csv" if self.table() is not None else None

    def export_text(self) -> str:
        """What the tab shows, as CSV text (Ctrl+E): made on the GUI thread,
        written by a file task (exports/actions.py)."""
        return csv_text(self.table().table_rows())

    def set_dark(self, dark: bool) -> None:
        """Follow the light or dark theme."""
