"""The main window's tabs, some made when first shown or asked for.

The tabs of ``MADE_AT_ONCE`` are made with the window; every other tab has
an empty page of its title in the tab bar until then, replaced by the tab
at the same place before anything is painted (the Ranked list, with its
thumbnails' strip, and the Data checks: a user who opens a contest sees
one tab at a time).  A tab made late is given the theme
and shows the contest as it is then, as a tab made early and kept up to
date would; code that asks a tab for what it shows (an export, a session's
view state) makes it first."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QApplication, QTabWidget, QWidget

from ..tabs.checks import ChecksTab
from ..tabs.curves import CurvesTab
from ..tabs.per_class import PerClassTab
from ..tabs.per_query import PerQueryTab
from ..tabs.ranked_list import RankedListTab
from ..tabs.significance import SignificanceTab
from ..tabs.summary import SummaryTab

#: made with the window: the Summary (shown first), and the tabs whose
#: choices a session's view state keeps (Per class's measure, Per query's run
#: or measure, the curve kind, Significance's measure): each is the one made
#: with the window's first options, as before (a Per class made after the
#: demo opened chose the demo's measure, adr, for ap_trec_r), and the view
#: state saved every few seconds reads them without making a tab (made by
#: the autosave, Significance's run lists were measured empty and cut the
#: runs' names)
MADE_AT_ONCE = ("summary", "per_query", "per_class", "curves", "significance")


class TabSlot(QWidget):
    """The page of a tab not made yet: its title (what the tab bar and a
    session's view state read), nothing drawn."""

    def __init__(self, name: str, title: str) -> None:
        super().__init__()
        self.name = name
        self.title = title


class TabPages(Mapping):
    """The tabs of a QTabWidget by name, in the order of ``makers``
    (name -> (title, a function that makes the tab)); ``made`` is called
    with each tab once it is made and in its place (its theme, its first
    refresh).  Reading a tab (``pages[name]``) makes it; ``made_tabs``
    are those made so far."""

    def __init__(
        self,
        widget: QTabWidget,
        makers: dict[str, tuple[str, Callable[[], QWidget]]],
        made: Callable[[QWidget], None],
    ) -> None:
        self.widget = widget
        self._makers = makers
        self._made_hook = made
        self._tabs: dict[str, QWidget] = {}
        for name, (title, _) in makers.items():
            widget.addTab(TabSlot(name, title), title)
        widget.currentChanged.connect(self._shown)

    def __getitem__(self, name: str) -> QWidget:
        tab = self._tabs.get(name)
        return tab if tab is not None else self._make(name)

    def __contains__(self, name) -> bool:
        return name in self._makers  # a question, not a reading: nothing made

    def __iter__(self) -> Iterator[str]:
        return iter(self._makers)

    def __len__(self) -> int:
        return len(self._makers)

    def made_tabs(self) -> list[QWidget]:
        """The tabs made so far, in the tab bar's order."""
        return [self._tabs[n] for n in self._makers if n in self._tabs]

    def _shown(self, index: int) -> None:
        """A page shown: a tab made now, or one that missed changes caught up."""
        page = self.widget.widget(index)
        if isinstance(page, TabSlot):
            self._make(page.name)
        elif page is not None:
            page.refresh_if_stale()

    def _make(self, name: str) -> QWidget:
        title, make = self._makers[name]
        tab = make()
        # its sizes measured before it shows the contest, as the window's
        # first layout measured every tab made with it: a list box keeps the
        # size of what it held then (a run's long name made the window wider
        # than the screen when the Ranked list was made with 26 runs)
        if name not in MADE_AT_ONCE:
            tab.sizeHint()
            tab.minimumSizeHint()
        self._tabs[name] = tab
        slot = next(
            s
            for s in (self.widget.widget(i) for i in range(self.widget.count()))
            if isinstance(s, TabSlot) and s.name == name
        )
        index = self.widget.indexOf(slot)
        shown = self.widget.currentIndex() == index
        # the keyboard's focus, moved to the page shown (the slot) when the
        # page changed, goes into the tab as Qt gives it to a page shown
        focus = QApplication.focusWidget()
        focused = focus is not None and (focus is slot or slot.isAncestorOf(focus))
        # the tab in the slot's place; no page shown on the way (no signal:
        # removing the current page would show, and make, its neighbour)
        self.widget.blockSignals(True)
        try:
            self.widget.removeTab(index)
            self.widget.insertTab(index, tab, title)
            if shown:
                self.widget.setCurrentIndex(index)
        finally:
            self.widget.blockSignals(False)
        if shown and focused:
            _focus_into(tab)
        slot.deleteLater()
        self._made_hook(tab)
        return tab


def _focus_into(page: QWidget) -> None:
    """The keyboard's focus on the first widget of ``page`` that takes it by
    the Tab key (the page itself where none does), as QTabWidget gives it
    to a page it shows when the page before had it."""
    w = page.nextInFocusChain()
    while w is not page and w is not None:
        if (
            page.isAncestorOf(w)
            and w.isEnabled()
            and w.isVisibleTo(page)
            and w.focusPolicy() & Qt.FocusPolicy.TabFocus
        ):
            w.setFocus(Qt.FocusReason.TabFocusReason)
            return
        w = w.nextInFocusChain()
    page.setFocus(Qt.FocusReason.TabFocusReason)


class TabOf:
    """A main window's tab as an attribute named as the tab (``window.curves``):
    read, it is made if it is not yet (``TabPages``)."""

    def __set_name__(self, owner, name: str) -> None:
        self.name = name

    def __get__(self, window, owner=None):
        return self if window is None else window.tab_pages[self.name]


def window_tabs(w) -> dict[str, tuple[str, Callable[[], QWidget]]]:
    """The tabs of a main window ``w`` in their order: name -> (title, what
    makes the tab and wires it to the window)."""
    c = w.controller

    def summary():
        tab = SummaryTab(c, w.prefs.summary_columns())
        tab.columnsChanged.connect(w.prefs.set_summary_columns)
        return tab

    def per_query():
        tab = PerQueryTab(c, w.summary)
        tab.view.doubleClicked.connect(
            lambda index: w.show_query(str(index.sibling(index.row(), 0).data()))
        )
        return tab

    def per_class():
        tab = PerClassTab(c)
        tab.classSelected.connect(w.per_query.set_class_filter)
        tab.classActivated.connect(lambda _: w.tabs.setCurrentWidget(w.per_query))
        tab.exportRequested.connect(lambda which, kind: w.exports.export_plot_dialog(kind, which))
        return tab

    def curves():
        tab = CurvesTab(c)
        tab.exportRequested.connect(lambda kind: w.exports.export_plot_dialog(kind, "curves"))
        return tab

    def ranked():
        tab = RankedListTab(c)
        tab.exportRequested.connect(lambda kind: w.exports.export_plot_dialog(kind, "ranked"))
        return tab

    def significance():
        tab = SignificanceTab(c)
        tab.exportRequested.connect(lambda which, kind: w.exports.export_plot_dialog(kind, which))
        tab.querySelected.connect(w.show_query)
        return tab

    return {
        "summary": (SummaryTab.title, summary),
        "per_query": (PerQueryTab.title, per_query),
        "per_class": (PerClassTab.title, per_class),
        "curves": (CurvesTab.title, curves),
        "ranked": (RankedListTab.title, ranked),
        "checks": (ChecksTab.title, lambda: ChecksTab(c)),
        "significance": (SignificanceTab.title, significance),
    }
