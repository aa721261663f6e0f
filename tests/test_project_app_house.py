"""The app's house (shrec_gui/), read from its source with ``ast``: role
folders with few modules at the top, public seams between modules (no
private name imported from another module), late imports only with their
reason (listed here; tests/test_project_house.py counts them with the
core's), no module over 500 lines, and no class built of mixins over 600
lines."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
GUI = ROOT / "shrec_gui"
#: the role folders (docs/development.md's code layout of the app)
ROLES = {"state", "workers", "models", "widgets", "plots", "figures", "exports", "window", "tabs"}
#: private names a module may take from another, with the reason:
#: (importer, name) -> reason; at most MAX_PRIVATE of them
PRIVATE_ALLOWED: dict[tuple[str, str], str] = {}
MAX_PRIVATE = 4
#: late project imports (inside a function): (module, what it imports) ->
#: why; each also says why in a comment on the lines just above it
LATE_ALLOWED: dict[tuple[str, str], str] = {
    ("shrec_gui.launch", ".app"): "the app imports Qt, known to be installed only once checked",
    ("shrec_gui.window", ".main"): (
        "the window (pyqtgraph, the tabs: 0.4 s) once one is wanted: shrec-gui's --help, "
        "--version and bad options answer without it"
    ),
}
#: late project imports a module may have
MAX_LATE = 1
MAX_LINES = 500
MAX_MIXIN_CLASS = 600


def modules() -> dict[str, tuple[Path, str, ast.Module]]:
    """Dotted name -> (path, source, tree) of every module of shrec_gui."""
    out = {}
    for f in sorted(GUI.rglob("*.py")):
        parts = f.relative_to(ROOT).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        src = f.read_text(encoding="utf-8")
        out[name] = (f, src, ast.parse(src, str(f)))
    return out


def resolve(importer: str, is_package: bool, node: ast.ImportFrom) -> str:
    """The absolute module an ``import from`` names."""
    if not node.level:
        return node.module or ""
    base = importer.split(".")
    base = base[: len(base) - node.level + (1 if is_package else 0)]
    return ".".join(base + ([node.module] if node.module else []))


def private_imports(mods) -> list[tuple[str, str, str]]:
    """(importer, module, name) of every private name taken from another
    module of the project."""
    found = []
    for name, (path, _, tree) in mods.items():
        for node in ast.walk(tree):
            if not isinstance(node, ast.ImportFrom):
                continue
            target = resolve(name, path.name == "__init__.py", node)
            if not target.startswith(("shrec_gui", "shrec_eval")):
                continue
            for alias in node.names:
                if alias.name.startswith("_") and not alias.name.startswith("__"):
                    found.append((name, target, alias.name))
    return found


def late_imports(mods) -> dict[str, list[tuple[int, str, bool]]]:
    """Module -> (line, what, whether a comment on the lines just above
    says why) of every project import inside a function."""
    found: dict[str, list] = {}
    for name, (_, src, tree) in mods.items():
        lines = src.splitlines()
        for fn in ast.walk(tree):
            if not isinstance(fn, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(fn):
                if isinstance(node, ast.ImportFrom):
                    what = "." * node.level + (node.module or "")
                    project = bool(node.level) or what.startswith(("shrec_gui", "shrec_eval"))
                elif isinstance(node, ast.Import):
                    what = node.names[0].name
                    project = what.startswith(("shrec_gui", "shrec_eval"))
                else:
                    continue
                if not project:
                    continue
                # the comment: on the import's line or in the block of comment
                # and import lines right above it
                i = node.lineno - 1
                said = "#" in lines[i]
                j = i - 1
                while (
                    j >= 0 and not said and lines[j].strip().startswith(("#", "from ", "import "))
                ):
                    said = lines[j].strip().startswith("#")
                    j -= 1
                found.setdefault(name, []).append((node.lineno, what, said))
    return found


def test_the_app_is_in_role_folders_with_few_modules_at_its_top():
    top = sorted(p.name for p in GUI.glob("*.py"))
    assert len(top) <= 12, top
    folders = {p.name for p in GUI.iterdir() if (p / "__init__.py").is_file()}
    assert folders == ROLES
    for role in ROLES:
        doc = ast.get_docstring(ast.parse((GUI / role / "__init__.py").read_text()))
        assert doc, f"shrec_gui/{role}/__init__.py says what the folder holds"


def test_no_private_name_crosses_modules_of_the_app():
    found = private_imports(modules())
    allowed = [f for f in found if (f[0], f[2]) in PRIVATE_ALLOWED]
    assert len(PRIVATE_ALLOWED) <= MAX_PRIVATE
    assert all(reason.strip() for reason in PRIVATE_ALLOWED.values())
    assert [f for f in found if f not in allowed] == []


def test_late_imports_are_few_and_say_why():
    found = late_imports(modules())
    for name, imports in found.items():
        assert len(imports) <= MAX_LATE, (name, imports)
        assert [i for i in imports if not i[2]] == [], f"{name}: a late import without its reason"
    pairs = {(name, what) for name, imports in found.items() for _, what, _ in imports}
    assert sorted(pairs - set(LATE_ALLOWED)) == []
    assert sorted(set(LATE_ALLOWED) - pairs) == []  # a stale allowance is removed
    assert all(reason.strip() for reason in LATE_ALLOWED.values())


def test_no_module_of_the_app_is_over_500_lines():
    long = {name: src.count("\n") for name, (_, src, _) in modules().items()}
    assert {k: v for k, v in long.items() if v > MAX_LINES} == {}


def test_no_class_of_the_app_is_built_of_mixins_over_600_lines():
    """A class with bases of its own project (mixins, not Qt's) counts its
    lines and its bases' lines: composition keeps each part small."""
    mods = modules()
    classes: dict[str, tuple[ast.ClassDef, str]] = {}
    for name, (_, _, tree) in mods.items():
        for node in tree.body:
            if isinstance(node, ast.ClassDef):
                classes[node.name] = (node, name)

    def size(node: ast.ClassDef) -> int:
        return node.end_lineno - node.lineno + 1

    built = {}
    for cname, (node, _) in classes.items():
        bases = [b.id for b in node.bases if isinstance(b, ast.Name) and b.id in classes]
        mixins = [b for b in bases if classes[b][0] is not node]
        if mixins:
            built[cname] = size(node) + sum(size(classes[b][0]) for b in mixins)
    assert {k: v for k, v in built.items() if v > MAX_MIXIN_CLASS} == {}


def test_the_checks_see_what_they_look_for(tmp_path):
    """The checks above on a made-up module: they find a private import, a
    late import without a reason and one with."""
    src = (
        "from .tables import _Base, Public\n"
        "def f():\n"
        "    from .window.main import MainWindow\n"
        "def g():\n"
        "    # late: the window only once wanted\n"
        "    from .window.main import MainWindow\n"
    )
    mods = {"shrec_gui.x": (tmp_path / "x.py", src, ast.parse(src))}
    assert private_imports(mods) == [("shrec_gui.x", "shrec_gui.tables", "_Base")]
    assert late_imports(mods) == {
        "shrec_gui.x": [(3, ".window.main", False), (6, ".window.main", True)]
    }
