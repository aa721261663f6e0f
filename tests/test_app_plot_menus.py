"""The plots' right-click menus (shrec_gui/plots/plot_view.py): made when a
plot is first right-clicked, not with the window, and then the same menu as
pyqtgraph's (View All, the axes' controls showing the view's range, Mouse
Mode, Plot Options, the app's exports)."""

import pytest

pytest.importorskip("PySide6")
pytest.importorskip("pytestqt")

pg = pytest.importorskip("pyqtgraph")

from PySide6.QtCore import Qt  # noqa: E402
from PySide6.QtWidgets import QApplication, QMenu  # noqa: E402

from shrec_gui.plots.plot_view import LazyMenuViewBox, PlotView  # noqa: E402


def texts(menu) -> list[str]:
    return [a.text() for a in menu.actions() if a.text()]


def right_click(qtbot, plot) -> QMenu:
    """Right-click in the middle of a plot's view, as a user does: the
    menu that pops up."""
    vb = plot.getPlotItem().vb
    centre = plot.mapFromScene(vb.sceneBoundingRect().center())
    qtbot.mouseClick(plot.viewport(), Qt.MouseButton.RightButton, pos=centre)
    qtbot.waitUntil(lambda: isinstance(QApplication.activePopupWidget(), QMenu), timeout=3000)
    return QApplication.activePopupWidget()


def test_a_windows_plots_make_their_menus_when_first_opened(win, qtbot):
    """A new window made no plot menu (each cost a seventh of a window);
    every plot of the window is a PlotView whose first right-click makes
    its menu, and the next opening shows that same menu."""
    win.all_tabs()  # every tab made (a tab is made when first shown)
    plots = win.findChildren(pg.PlotWidget)
    assert len(plots) == 7
    for plot in plots:
        assert isinstance(plot, PlotView)
        vb = plot.getPlotItem().vb
        assert isinstance(vb, LazyMenuViewBox)
        assert vb.menu is None and vb.menuEnabled()
    win.pages.setCurrentWidget(win.contest_page)  # the tabs, without a contest
    win.tabs.setCurrentWidget(win.curves)
    plot = win.curves.plot
    menu = right_click(qtbot, plot)
    vb = plot.getPlotItem().vb
    assert menu is vb.menu and type(menu).__name__ == "ViewBoxMenu"
    shown = texts(menu)
    assert shown[:4] == ["View All", "X axis", "Y axis", "Mouse Mode"]
    assert "Plot Options" in shown  # the PlotItem's own menu, added by the scene
    assert [t for t in shown if t.startswith("Export")] == ["Export figure…", "Export CSV…"]
    menu.close()
    again = right_click(qtbot, plot)
    assert again is menu and texts(again) == shown  # made once, not at each opening
    again.close()
    # the other plots still made none
    assert [p for p in plots if p.getPlotItem().vb.menu is not None] == [plot]


def test_a_menu_made_late_shows_and_sets_the_views_range(qtbot):
    """The menu made after the view was zoomed shows the zoomed range in its
    axes' fields (pyqtgraph's made early followed it), follows later zooms,
    and its View All fits the data again."""
    plot = PlotView()
    qtbot.addWidget(plot)
    plot.resize(400, 300)
    plot.show()
    plot.addItem(pg.PlotDataItem([0.0, 1.0, 4.0], [0.0, 5.0, 3.0]))
    vb = plot.getPlotItem().vb
    vb.setXRange(2.0, 3.0, padding=0)
    vb.setYRange(1.0, 1.5, padding=0)
    assert vb.menu is None
    menu = vb.getMenu(None)
    assert type(menu).__name__ == "ViewBoxMenu"
    x, y = menu.ctrl
    assert (x.minText.text(), x.maxText.text()) == ("2", "3")
    assert (y.minText.text(), y.maxText.text()) == ("1", "1.5")
    assert x.manualRadio.isChecked() and y.manualRadio.isChecked()
    assert menu.mouseModes[0].isChecked()  # pan mode, the view's
    vb.setXRange(0.5, 0.75, padding=0)
    menu.updateState()  # what opening a menu marked out of date does
    assert (x.minText.text(), x.maxText.text()) == ("0.5", "0.75")
    menu.viewAll.trigger()
    (x0, x1), (y0, y1) = vb.viewRange()
    assert x0 <= 0.0 < 4.0 <= x1 and y0 <= 0.0 < 5.0 <= y1
    # its axis fields set the range as pyqtgraph's do
    x.minText.setText("1")
    x.maxText.setText("2")
    menu.xRangeTextChanged()
    assert vb.viewRange()[0] == pytest.approx([1.0, 2.0])
    # Mouse Mode "1 button": the view's rectangle zoom
    menu.mouseModes[1].trigger()
    assert vb.state["mouseMode"] == pg.ViewBox.RectMode


def test_a_plot_without_a_menu_makes_none(qtbot):
    """enableMenu=False (pyqtgraph's switch) still means no menu; turning
    it on makes one at once, as pyqtgraph's ViewBox does."""
    plot = PlotView(viewBox=LazyMenuViewBox(enableMenu=False))
    qtbot.addWidget(plot)
    vb = plot.getPlotItem().vb
    assert not vb.menuEnabled()
    assert vb.getMenu(None) is None and vb.getContextMenus(None) == []
    vb.setMenuEnabled(True)
    assert vb.menu is not None and texts(vb.menu)[0] == "View All"
    assert vb.getContextMenus(None) == vb.menu.actions()
