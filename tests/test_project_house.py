"""The shape of the core (core/, installed as shrec_eval), read from its
source with ast: modules meet at public names (a private name taken from
another module is listed here with the reason), project modules are
imported at the top of a module (one imported inside a function is listed
here and says why on its line), and no module is over 500 lines.

The app (shrec_gui/) keeps its own checks of the same kind; the late
imports of the two together are counted here."""

import ast
from pathlib import Path

import test_project_app_house as app_house

ROOT = Path(__file__).resolve().parents[1]
CORE = ROOT / "core"
PROJECT = ("shrec_eval", "shrec_gui")
MAX_LINES = 500

#: (importer, name, reason): the private names a module of core/ may take
#: from another project module (none: every seam is a public name)
PRIVATE_ALLOWED: list[tuple[str, str, str]] = []
MAX_PRIVATE = 6

#: (module, imported module, reason): the project imports inside functions
#: in core/; each also says why on its line (or the line above)
LATE_ALLOWED: list[tuple[str, str, str]] = [
    (
        "shrec_eval.cli.parser",
        "shrec_eval.cli.commands",
        "--help without numpy: the commands (the engine, the readers) once one runs",
    ),
    (
        "shrec_eval.cli.steps",
        "shrec_eval.cli.report_step",
        "the report's figures' processes and gallery (multiprocessing, thumbnails) once "
        "--report asks for a report: evaluate --json or --format trec_eval starts sooner",
    ),
    (
        "shrec_eval.option_args",
        "shrec_eval.profiles",
        "--help without numpy: --profile's value looked up in the registry when read",
    ),
    (
        "shrec_eval.option_schema",
        "shrec_eval.scoring.measures",
        "--help without numpy: the measures' names looked up when the options are made",
    ),
    (
        "shrec_eval.options",
        "shrec_eval.profiles",
        "the profiles import the options; --help without numpy (made once a command runs)",
    ),
]
MAX_LATE = 5
#: the late project imports of the whole project, core/ and the app
#: (shrec_gui/, tests/test_project_app_house.py) together (issue 44)
MAX_LATE_PROJECT = 10


def module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    parts[0] = "shrec_eval"
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported_module(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute name of the module a ``from ... import`` names."""
    if node.level == 0:
        return node.module or ""
    base = module.split(".")
    if path.name != "__init__.py":
        base.pop()
    base = base[: len(base) - (node.level - 1)]
    return ".".join([*base, node.module] if node.module else base)


def sources(folder: Path = CORE):
    for path in sorted(folder.rglob("*.py")):
        text = path.read_text(encoding="utf-8")
        yield path, module_name(path), text, ast.parse(text)


def private_imports(folder: Path = CORE) -> list[tuple[str, str]]:
    """(importer, name) of every ``from PROJECT_MODULE import _name``."""
    found = []
    for path, module, _, tree in sources(folder):
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                source = imported_module(module, path, node)
                if source.split(".")[0] in PROJECT:
                    found += [
                        (module, a.name)
                        for a in node.names
                        if a.name.startswith("_") and not a.name.startswith("__")
                    ]
    return found


class _Late(ast.NodeVisitor):
    """The project imports inside a function of one module."""

    def __init__(self, module: str, path: Path, lines: list[str]):
        self.module, self.path, self.lines = module, path, lines
        self.depth = 0
        self.found: list[tuple[str, str, int, bool]] = []

    def visit_FunctionDef(self, node):
        self.depth += 1
        self.generic_visit(node)
        self.depth -= 1

    visit_AsyncFunctionDef = visit_FunctionDef

    def _add(self, node, source: str) -> None:
        if self.depth and source.split(".")[0] in PROJECT:
            here = self.lines[node.lineno - 1]
            above = self.lines[node.lineno - 2].strip() if node.lineno > 1 else ""
            said = "#" in here or above.startswith("#")
            self.found.append((self.module, source, node.lineno, said))

    def visit_ImportFrom(self, node):
        source = imported_module(self.module, self.path, node)
        if not node.module and node.names:  # from . import figures
            source = ".".join([source, node.names[0].name]) if source else node.names[0].name
        self._add(node, source)

    def visit_Import(self, node):
        for alias in node.names:
            self._add(node, alias.name)


def late_imports(folder: Path = CORE) -> list[tuple[str, str, int, bool]]:
    """(module, imported module, line, whether the line says why)."""
    found = []
    for path, module, text, tree in sources(folder):
        visitor = _Late(module, path, text.splitlines())
        visitor.visit(tree)
        found += visitor.found
    return found


def test_the_allowances_stay_small_and_say_why():
    assert len(PRIVATE_ALLOWED) <= MAX_PRIVATE
    assert len(LATE_ALLOWED) <= MAX_LATE
    assert all(reason.strip() for *_, reason in PRIVATE_ALLOWED + LATE_ALLOWED)


def test_modules_meet_at_public_names():
    allowed = {(importer, name) for importer, name, _ in PRIVATE_ALLOWED}
    taken = private_imports()
    assert [pair for pair in taken if pair not in allowed] == []
    assert sorted(allowed - set(taken)) == []  # a stale allowance is removed


def test_project_modules_are_imported_at_the_top_or_say_why():
    late = late_imports()
    allowed = {(module, source) for module, source, _ in LATE_ALLOWED}
    assert [(m, s, line) for m, s, line, _ in late if (m, s) not in allowed] == []
    assert [(m, s, line) for m, s, line, said in late if not said] == []
    assert sorted(allowed - {(m, s) for m, s, *_ in late}) == []


def test_the_whole_project_has_few_late_imports():
    """Core's late imports and the app's, each import statement once: at
    most MAX_LATE_PROJECT, and as many as the two lists allow with reasons."""
    core = {(module, line) for module, _, line, _ in late_imports()}
    app = {
        (module, line)
        for module, found in app_house.late_imports(app_house.modules()).items()
        for line, *_ in found
    }
    assert len(core) + len(app) <= MAX_LATE_PROJECT, sorted(core | app)
    assert len(LATE_ALLOWED) + len(app_house.LATE_ALLOWED) <= MAX_LATE_PROJECT


def test_no_module_of_core_is_over_500_lines():
    long = {
        str(path.relative_to(ROOT)): n
        for path, _, text, _ in sources()
        if (n := len(text.splitlines())) > MAX_LINES
    }
    assert long == {}


def test_the_checks_see_what_they_look_for(tmp_path):
    """The scanners find a private name taken across modules, a late import
    with and without its reason, and count lines as wc does."""
    pkg = tmp_path / "core"
    (pkg / "sub").mkdir(parents=True)
    (pkg / "__init__.py").write_text("")
    (pkg / "sub" / "__init__.py").write_text("")
    (pkg / "sub" / "a.py").write_text(
        "from ..b import _hidden, shown\n"
        "from . import c\n\n"
        "def f():\n"
        "    from ..b import shown  # late: a reason\n"
        "    from .c import thing\n"
        "    import os\n"
        "    return shown, thing, os\n"
    )
    global ROOT
    saved, ROOT = ROOT, tmp_path
    try:
        assert private_imports(pkg) == [("shrec_eval.sub.a", "_hidden")]
        assert late_imports(pkg) == [
            ("shrec_eval.sub.a", "shrec_eval.b", 5, True),
            ("shrec_eval.sub.a", "shrec_eval.sub.c", 6, False),
        ]
    finally:
        ROOT = saved
