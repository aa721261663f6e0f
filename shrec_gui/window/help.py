"""The Help menu's pages: the keyboard shortcuts (read from the window's own
menus, so the list is never out of date), and the reference the app carries
with it: the measures (the registry, as docs/measures.md lists them), the
evaluator profiles and the file formats (the readers' own words).  The full
guide is the docs/ folder of the source (app.md, formats.md, measures.md...);
a wheel or the frozen app carries no docs folder, so these pages are made
from the code they describe."""

from __future__ import annotations

from html import escape

from PySide6.QtGui import QAction, QKeySequence
from PySide6.QtWidgets import QDialog, QDialogButtonBox, QTabWidget, QTextBrowser, QVBoxLayout
from shrec_eval.profiles import listed
from shrec_eval.reading.formats.rules import describe
from shrec_eval.reading.readers import ASSESSMENT_FORMATS, RANKLIST_VARIANTS, RUN_FORMATS
from shrec_eval.scoring.families import FAMILY_LIST
from shrec_eval.scoring.measures import ALIASES, FAMILIES, MEASURES, binding_of, owner

PAGES = ("shortcuts", "measures", "profiles", "formats")
TITLES = {
    "shortcuts": "Keyboard shortcuts",
    "measures": "Measures",
    "profiles": "Evaluator profiles",
    "formats": "File formats",
}

#: keys that no menu entry shows: (where, keys, what they do)
OTHER_KEYS = (
    ("Welcome page", "Alt+D / Alt+A / Alt+O", "open the demo, an assessment, a session"),
    ("Welcome page", "Enter, Del", "open the recent file selected, take it off the list"),
    ("Tabs", "Ctrl+Tab / Ctrl+Shift+Tab", "the next / previous tab"),
    ("Tables", "a click on a column's head", "sort by it (best first), again: reverse"),
    ("Tables", "arrow keys; Tab", "move between cells; go on to the next control"),
    (
        "Summary",
        "Enter in Add column",
        "add the measure typed (a key, a label, map, P@10, ndcg(gain=exp2)@10...)",
    ),
    ("Unsaved-changes question", "Alt+S / Alt+D / Esc", "save the session, discard, cancel"),
)


def _plain(text: str) -> str:
    return text.replace("&&", "\0").replace("&", "").replace("\0", "&")


def menu_shortcuts(menu_bar) -> list[tuple[str, str, str]]:
    """(menu, entry, keys) of every menu entry with a shortcut, in menu order."""
    rows = []

    def walk(menu, path: str) -> None:
        for a in menu.actions():
            if a.menu() is not None:
                walk(a.menu(), f"{path} > {_plain(a.text())}")
            elif not a.isSeparator() and a.shortcuts():
                # every binding (a standard key may have several: Ctrl+W and Ctrl+F4)
                keys = ", ".join(
                    k.toString(QKeySequence.SequenceFormat.NativeText) for k in a.shortcuts()
                )
                rows.append((path, _plain(a.text()).rstrip("…").rstrip("."), keys))

    for top in menu_bar.actions():
        if top.menu() is not None:
            walk(top.menu(), _plain(top.text()))
    return rows


def _table(head: tuple[str, ...], rows) -> str:
    th = "".join(f"<th align='left'>{escape(h)}</th>" for h in head)
    body = "".join(
        "<tr>" + "".join(f"<td valign='top'>{cell}</td>" for cell in row) + "</tr>" for row in rows
    )
    return f"<table cellspacing='0' cellpadding='4' border='1'><tr>{th}</tr>{body}</table>"


def shortcuts_html(menu_bar) -> str:
    rows = [(escape(m), escape(e), f"<b>{escape(k)}</b>") for m, e, k in menu_shortcuts(menu_bar)]
    rows += [(escape(w), escape(what), f"<b>{escape(k)}</b>") for w, k, what in OTHER_KEYS]
    return "<h3>Keyboard shortcuts</h3>" + _table(("Where", "What", "Keys"), rows)


def measures_html() -> str:
    rows = []
    for m in MEASURES:
        names = ", ".join(
            f"{escape(a.name.replace('{k}', 'K'))} ({escape(a.tool)})"
            for a in ALIASES
            if a.key == m.key
        )
        b = binding_of(m, owner(m))
        rows.append(
            (
                f"<tt>{escape(m.key.replace('{k}', 'K'))}</tt>",
                escape(m.label.replace("{k}", "K")),
                escape(FAMILIES.get(m.family, m.family)),
                escape(m.definition.replace("{k}", "K")),
                escape(owner(m).name if owner(m) is not None else "all"),
                names,
                "" if b is None else f"<tt>{escape(b.name().replace('{k}', 'K'))}</tt>",
            )
        )
    return (
        "<h3>Measures</h3><p>Every measure of the registry (K: each rank of Scoring &gt; "
        "Options). The Summary's Columns menu and its Add column box take a key, a label or "
        "another tool's name.</p>"
        + _table(
            ("Key", "Label", "Family", "Definition", "Profiles", "Other names", "With parameters"),
            rows,
        )
        + families_html()
    )


def families_html() -> str:
    """The measure families and their parameters (the Add column box takes them)."""
    rows = []
    for f in FAMILY_LIST:
        params = "<br>".join(
            f"<tt>{escape(p.name)}</tt>: "
            + "; ".join(
                f"<tt>{'<b>' if v == p.default else ''}{escape(v)}"
                f"{'</b>' if v == p.default else ''}</tt>: {escape(t)}"
                for v, t in p.values.items()
            )
            + ("; <tt>2</tt>, <tt>3</tt>, ...: grade &gt;= that number" if p.grade else "")
            for p in f.params
        )
        rows.append(
            (
                f"<tt>{escape(f.name)}</tt>",
                f"{escape(f.label)}: {escape(f.definition)}",
                escape(f.cutoffs()),
                params,
            )
        )
    return (
        "<h3>Measures with parameters</h3><p>Typed in the Summary's Add column box as "
        "<tt>FAMILY(PARAM=VALUE,...)@K</tt> (<tt>@R</tt>: the query's relevant items; no "
        "<tt>@</tt>: the whole list), e.g. "
        "<tt>ndcg(gain=exp2,discount=log2_from_1,ideal=retrieved)@10</tt>: the measure is "
        "added to the scoring options and scored (Edit &gt; Undo takes it back). Defaults "
        "in bold; a key of the table above is the measure its last column names.</p>"
        + _table(("Family", "What it is", "Cutoff", "Parameters"), rows)
    )


def profiles_html() -> str:
    rows = []
    for p in listed():
        name = p.name
        fixed = ", ".join(
            f"{k.replace('_', ' ')} = {('on' if v else 'off') if isinstance(v, bool) else v}"
            for k, v in p.options.items()
        )
        why = f"{fixed}: {p.why}" if fixed and p.why else fixed
        reads = "; ".join(describe(k, v) for k, v in p.reading.items())
        what = "<br>".join(
            t for t in (escape(why), f"It reads {escape(reads)}." if reads else "") if t
        )
        rows.append((f"<b>{escape(name)}</b>", escape(p.label), escape(p.help), what))
    return (
        "<h3>Evaluator profiles</h3><p>A profile reads and scores a contest as one "
        "evaluator does (Scoring &gt; Options); the numbers are the command line's "
        "<tt>shrec-eval evaluate --profile NAME</tt>.</p>"
        + _table(("Profile", "Evaluator", "What it is", "What it fixes, how it reads files"), rows)
    )


def formats_html() -> str:
    assessments = [(f"<tt>{escape(k)}</tt>", escape(v)) for k, v in ASSESSMENT_FORMATS.items()]
    runs = [(f"<tt>{escape(k)}</tt>", escape(v)) for k, v in RUN_FORMATS.items()]
    variants = [(f"<tt>{escape(k)}</tt>", escape(v)) for k, v in RANKLIST_VARIANTS.items()]
    return (
        "<h3>File formats</h3><p>Files are told apart by their content (open them, or drop "
        "them on the window); a run that fits several formats is asked about.</p>"
        "<h4>Assessments</h4>"
        + _table(("Format", "What it is"), assessments)
        + "<h4>Runs</h4>"
        + _table(("Format", "What it is"), runs)
        + "<h4>Rank-list folders</h4>"
        + _table(("Variant", "Each file"), variants)
        + "<p>Sessions (<tt>.json</tt>, contest files) hold the assessment, the runs, the "
        "options, the shapes folders and the view; the command line reads them too.</p>"
    )


class HelpDialog(QDialog):
    """The Help pages, one tab each; ``show_page(name)`` picks one."""

    def __init__(self, window, parent=None) -> None:
        super().__init__(parent or window)
        self.setWindowTitle("SHREC evaluation help")
        self.tabs = QTabWidget()
        self.pages: dict[str, QTextBrowser] = {}
        html = {
            "shortcuts": shortcuts_html(window.menuBar()),
            "measures": measures_html(),
            "profiles": profiles_html(),
            "formats": formats_html(),
        }
        for name in PAGES:
            page = QTextBrowser()
            page.setOpenExternalLinks(True)
            page.setHtml(html[name])
            self.pages[name] = page
            self.tabs.addTab(page, TITLES[name])
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Close)
        buttons.rejected.connect(self.reject)
        lay = QVBoxLayout(self)
        lay.addWidget(self.tabs)
        lay.addWidget(buttons)
        self.resize(900, 600)

    def show_page(self, name: str) -> None:
        self.tabs.setCurrentWidget(self.pages[name])


def help_actions(window, menu) -> list[QAction]:
    """The Help menu's entries (F1: the shortcuts), each opening its page."""
    out = []
    for name, keys in zip(PAGES, ("F1", None, None, None)):
        a = QAction(f"{TITLES[name]}…", window)
        if keys:
            a.setShortcut(QKeySequence(keys))
        a.triggered.connect(lambda _=False, n=name: open_help(window, n))
        menu.addAction(a)
        out.append(a)
    return out


def open_help(window, name: str = "shortcuts") -> HelpDialog:
    """Show the help (one dialog per window, its child, kept), at page ``name``."""
    dialog = window.findChild(HelpDialog)
    if dialog is None:
        dialog = HelpDialog(window)
    dialog.show_page(name)
    dialog.show()
    dialog.raise_()
    return dialog
