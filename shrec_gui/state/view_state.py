"""What a session keeps of the window besides the contest: the tab shown,
the Summary's columns (Per query's one-run mode shows the same), the sort
column and order of the Summary, Per query and Per class tables, Per query's
mode and run or measure, the Per class and Significance measures, and the
Curves tab's curve kind.  Plain JSON data, stored by ``shrec_eval.contest``
under ``"view"`` without reading it; read back here, where whatever no longer
fits (a measure of other ranks, a run gone, a hand-edited value) is passed over.

    {"tab": "Per query",
     "summary": {"columns": ["nn", "ft"], "sort": {"column": "ft", "order": "descending"}},
     "per_query": {"mode": "measure", "choice": "ft",
                   "sort": {"column": "run:Alice", "order": "ascending"}},
     "per_class": {"measure": "ft", "sort": {...}}, "curves": {"kind": "pr"},
     "significance": {"measure": "ap_trec_r"}}
"""

from __future__ import annotations

from PySide6.QtCore import Qt
from shrec_eval.scoring.measures import columns

#: window attribute (the tab) -> its combo boxes kept, in the order they are set back
COMBOS = {
    "summary": (),
    "per_query": ("mode", "choice"),
    "per_class": ("measure",),
    "curves": ("kind",),
    "significance": ("measure",),
}
#: the tabs whose table's sort is kept (its model names columns by COLUMN_ROLE)
SORTED = ("summary", "per_query", "per_class")
ORDERS = {"ascending": Qt.SortOrder.AscendingOrder, "descending": Qt.SortOrder.DescendingOrder}


def _plain(value) -> bool:
    return value is None or isinstance(value, (str, int, float, bool))


def capture(window) -> dict:
    """The view state of ``window`` (a MainWindow), as JSON data."""
    view: dict = {"tab": window.current_tab().title}
    for name, combos in COMBOS.items():
        tab = getattr(window, name)
        part = {}
        for attr in combos:
            value = getattr(tab, attr).currentData()
            if _plain(value):
                part[attr] = value
        sort = tab.table().sort_state() if name in SORTED else None
        if sort is not None and isinstance(sort[0], str):
            order = "descending" if sort[1] == Qt.SortOrder.DescendingOrder else "ascending"
            part["sort"] = {"column": sort[0], "order": order}
        view[name] = part
    view["summary"]["columns"] = list(window.summary.keys)
    return view


def restore(window, view) -> None:
    """Show ``view`` (from :func:`capture`, maybe of another version or
    edited by hand) in ``window``, as far as it fits what is open."""
    if not isinstance(view, dict):
        return
    summary = view.get("summary")
    if isinstance(summary, dict) and isinstance(summary.get("columns"), list):
        o = window.controller.options
        known = {m.key for m in columns(o)}
        keys = [k for k in summary["columns"] if isinstance(k, str) and k in known]
        if keys:  # none of them measured with these ranks: the columns shown stay
            window.summary.set_columns(keys)
    for name, combos in COMBOS.items():
        part = view.get(name)
        if not isinstance(part, dict):
            continue
        tab = getattr(window, name)
        tab.refresh_if_stale()  # its lists and table as they are now
        for attr in combos:
            if attr in part and _plain(part[attr]):
                combo = getattr(tab, attr)
                i = combo.findData(part[attr])
                if i >= 0:
                    combo.setCurrentIndex(i)
        sort = part.get("sort")
        if name in SORTED and isinstance(sort, dict) and sort.get("order") in ORDERS:
            tab.table().restore_sort((sort.get("column"), ORDERS[sort["order"]]))
    titles = [window.tabs.widget(i).title for i in range(window.tabs.count())]
    if view.get("tab") in titles:
        window.tabs.setCurrentIndex(titles.index(view["tab"]))
