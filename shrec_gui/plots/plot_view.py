"""The app's plot widget: pyqtgraph's PlotWidget whose view makes its
right-click menu when it is first opened, not with the plot."""

from __future__ import annotations

import pyqtgraph as pg


class LazyMenuViewBox(pg.ViewBox):
    """pyqtgraph's ViewBox with its right-click menu (pyqtgraph's
    ViewBoxMenu: View All, the X and Y axes' controls, Mouse Mode) made when
    it is first asked for, not with the plot: a window's plots made theirs at
    start (a seventh of the window's making) and few are ever opened.  A menu
    made late reads the view's state then, as one made early read it again
    when it opened, so it opens the same; ``setMenuEnabled`` and
    ``menuEnabled`` are pyqtgraph's."""

    def __init__(self, *args, enableMenu: bool = True, **kwargs) -> None:
        super().__init__(*args, enableMenu=False, **kwargs)
        self.state["enableMenu"] = enableMenu  # pyqtgraph's flag; the menu comes in getMenu

    def getMenu(self, ev):
        if self.menu is None and self.menuEnabled():
            self._applyMenuEnabled()  # pyqtgraph's own way of making it (with its view list)
        return self.menu

    def getContextMenus(self, event):
        if self.menuEnabled():
            self.getMenu(event)
        return super().getContextMenus(event)


class PlotView(pg.PlotWidget):
    """A pyqtgraph PlotWidget whose view makes its menu on first use
    (``LazyMenuViewBox``); every plot of the app is one."""

    def __init__(self, parent=None, **kwargs) -> None:
        kwargs.setdefault("viewBox", LazyMenuViewBox())
        super().__init__(parent, **kwargs)
