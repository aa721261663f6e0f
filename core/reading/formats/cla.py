"""PSB classification files (``.cla``) and the assessments made from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import FormatError
from ...model.assessment import Assessment, make_warning
from .ids import IdNormalizer
from .source import open_source
from .tokens import Lines, decode_token, read_lines

ROOT = "0"


@dataclass
class ClassInfo:
    name: str
    parent: str | None
    models: list[str]
    line: int


@dataclass
class Classification:
    """A parsed ``.cla``: classes with their parents and models, and the
    models in file order (the row/column order of PSB and SHREC matrices)."""

    path: str
    version: int
    classes: list[ClassInfo]
    models: list[str]
    model_class: dict[str, str]
    notes: list = field(default_factory=list)
    #: model id -> the line of the file that lists it (for messages)
    model_lines: dict[str, int] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._by_name = {c.name: c for c in self.classes}

    def info(self, name: str) -> ClassInfo:
        return self._by_name[name]

    def class_path(self, name: str) -> str:
        """``animal/quadruped/dog``: the class and its ancestors."""
        parts = []
        c = self._by_name.get(name)
        while c is not None:
            parts.append(c.name)
            c = self._by_name.get(c.parent) if c.parent else None
        return "/".join(reversed(parts))

    def sisters(self, name: str) -> list[str]:
        """Classes sharing the (non-root) parent of ``name``."""
        c = self._by_name.get(name)
        if c is None or c.parent is None:
            return []
        return [d.name for d in self.classes if d.parent == c.parent and d.name != name]


class _Tokens:
    """Whitespace tokens of a file with their line and column (the one
    tokenizer of :mod:`.tokens`: lines end at ``\\n`` only)."""

    def __init__(self, lines: Lines, path) -> None:
        self.path = path
        line_of = lines.token_lines()
        data = lines.data
        self.toks: list[tuple[str, int, int]] = []
        for tok, n, off in zip(lines.tokens, line_of.tolist(), lines.offsets.tolist()):
            self.toks.append((decode_token(tok), n, off - (data.rfind(b"\n", 0, off) + 1) + 1))
        self.i = 0
        self.last_line = max(data.count(b"\n") + (not data.endswith(b"\n")), 1)

    def next(self, expected: str) -> tuple[str, int, int]:
        if self.i >= len(self.toks):
            raise FormatError(
                self.path, f"the file ends too early: {expected} was expected", line=self.last_line
            )
        t = self.toks[self.i]
        self.i += 1
        return t

    def integer(self, expected: str, minimum: int = 0) -> tuple[int, int]:
        tok, line, col = self.next(expected)
        try:
            if "_" in tok or not tok.isascii():  # 1_0 and Unicode digits: not C's numbers
                raise ValueError(tok)
            v = int(tok)
        except ValueError:
            raise FormatError(
                self.path,
                f"{expected} was expected, as a whole number",
                line=line,
                column=col,
                token=tok,
            ) from None
        if v < minimum:
            raise FormatError(
                self.path,
                f"{expected} must be at least {minimum}",
                line=line,
                column=col,
                token=tok,
            )
        return v, line

    def done(self) -> bool:
        return self.i >= len(self.toks)


def read_cla(path, *, normalize_ids: bool = True) -> Classification:
    """Parse a PSB ``.cla`` file; a :class:`FormatError` names the line of
    anything wrong (header, counts, duplicate class or model, parents)."""
    src = open_source(path, ".cla classification file")
    path = src.path
    tk = _Tokens(read_lines(src, ".cla classification file"), path)
    norm = IdNormalizer(normalize_ids)
    if tk.done():
        raise FormatError(path, "the file is empty; a PSB .cla file starts with 'PSB 1'", line=1)
    tok, line, col = tk.next("the header 'PSB 1'")
    if tok != "PSB":
        raise FormatError(
            path,
            "this is not a PSB classification file: the first line must be 'PSB <version>'",
            line=line,
            column=col,
            token=tok,
        )
    version, _ = tk.integer("the format version after 'PSB'")
    if version not in (1, 2):
        raise FormatError(
            path, "unknown PSB format version; 1 or 2 was expected", line=line, token=str(version)
        )
    n_classes, _ = tk.integer("the number of classes (line 2: numClasses numModels)")
    n_models, _ = tk.integer("the number of models (line 2: numClasses numModels)")
    classes: list[ClassInfo] = []
    names: dict[str, ClassInfo] = {}
    models: list[str] = []
    model_class: dict[str, str] = {}
    model_lines: dict[str, int] = {}
    while not tk.done():
        name, cline, ccol = tk.next("a class line 'className parentClassName numModels'")
        if len(classes) == n_classes:
            raise FormatError(
                path,
                f"more classes than the {n_classes} announced on line 2",
                line=cline,
                column=ccol,
                token=name,
            )
        if name in names:
            raise FormatError(
                path,
                f"class {name!r} is defined twice (first on line {names[name].line})",
                line=cline,
                column=ccol,
                token=name,
            )
        parent, pline, pcol = tk.next(f"the parent class of {name!r}")
        if parent != ROOT and parent not in names:
            raise FormatError(
                path,
                f"the parent {parent!r} of class {name!r} is not defined "
                "before it (use 0 for the root)",
                line=pline,
                column=pcol,
                token=parent,
            )
        count, _ = tk.integer(f"the number of models of class {name!r}")
        members: list[str] = []
        for _k in range(count):
            mid, mline, mcol = tk.next(f"{count - len(members)} more model ids of class {name!r}")
            mid = norm(mid)
            if mid in model_class:
                raise FormatError(
                    path,
                    f"model {mid} is listed twice (in class {model_class[mid]!r} and in "
                    f"{name!r}){norm.same_hint(mid)}",
                    line=mline,
                    column=mcol,
                    token=mid,
                )
            model_class[mid] = name
            model_lines[mid] = mline
            members.append(mid)
        info = ClassInfo(name, None if parent == ROOT else parent, members, cline)
        classes.append(info)
        names[name] = info
        models.extend(members)
    if len(classes) != n_classes:
        raise FormatError(
            path,
            f"line 2 announces {n_classes} classes but the file defines {len(classes)}",
            line=2,
        )
    if len(models) != n_models:
        raise FormatError(
            path, f"line 2 announces {n_models} models but the classes list {len(models)}", line=2
        )
    return Classification(
        str(path),
        version,
        classes,
        models,
        model_class,
        norm.note(f".cla file {Path(path).name}"),
        model_lines,
    )


def _csr(rows: list[tuple[np.ndarray, np.ndarray]]):
    lengths = [len(r[0]) for r in rows]
    indptr = np.concatenate(([0], np.cumsum(lengths))).astype(np.int64)
    items = np.concatenate([r[0] for r in rows]) if rows else np.zeros(0, np.int64)
    grades = np.concatenate([r[1] for r in rows]) if rows else np.zeros(0, np.int32)
    return indptr, items.astype(np.int64), grades.astype(np.int32)


def _class_judgments(
    target: Classification, index: dict[str, int], name: str, graded: bool, cache: dict
) -> tuple[np.ndarray, np.ndarray]:
    if name not in cache:
        try:
            members = target.info(name).models
        except KeyError:
            members = []
        items = [index[m] for m in members]
        grades = [2 if graded else 1] * len(items)
        if graded:
            for s in target.sisters(name):
                sis = [index[m] for m in target.info(s).models]
                items.extend(sis)
                grades.extend([1] * len(sis))
        order = np.argsort(items, kind="stable")
        cache[name] = (np.asarray(items, np.int64)[order], np.asarray(grades, np.int32)[order])
    return cache[name]


def _by_position(cla: Classification, queries: Classification) -> tuple[dict, list]:
    """Query class name -> the target class at the same place in its file
    (``class_match`` ``position``: SHREC 2021's evaluator indexes classes by
    their place), and a note where the names differ."""
    if len(queries.classes) > len(cla.classes):
        raise FormatError(
            queries.path,
            f"classes are matched by position, and this query file has {len(queries.classes)} "
            f"classes where the target file has {len(cla.classes)}",
        )
    pairs = [(qc.name, cla.classes[i].name) for i, qc in enumerate(queries.classes)]
    differ = [f"{q} = {t}" for q, t in pairs if q != t]
    notes = []
    if differ:
        notes.append(
            make_warning(
                "class_position",
                "classes are matched by their place in the files, and these names differ "
                "(query class = target class)",
                differ,
            )
        )
    return dict(pairs), notes


def assessment_from_cla(
    cla: Classification,
    *,
    graded: bool = False,
    queries: Classification | None = None,
    class_match: str = "name",
) -> Assessment:
    """Relevance from classes.

    With one file every model is a query (leave-one-out) and the models of
    its class are relevant.  With ``queries`` (a query ``.cla``) the queries
    are its models, external to the collection, and the targets whose class
    has the same name are relevant (``class_match="position"``: the target
    class at the same place in its file).  ``graded``: same class = 2, sister
    classes (same non-root parent in the target hierarchy) = 1, as SHREC
    2006 did; else binary.
    """
    index = {m: i for i, m in enumerate(cla.models)}
    cache: dict = {}
    src = queries if queries is not None else cla
    target_of: dict | None = None
    notes: list = []
    if queries is not None and class_match == "position":
        target_of, notes = _by_position(cla, queries)
    rows = [
        _class_judgments(
            cla,
            index,
            src.model_class[q] if target_of is None else target_of[src.model_class[q]],
            graded,
            cache,
        )
        for q in src.models
    ]
    indptr, items, grades = _csr(rows)
    if queries is None:
        query_items = np.arange(len(cla.models), dtype=np.int64)
        kind = "leave-one-out classes"
        source = cla.path
    else:
        query_items = np.full(len(queries.models), -1, dtype=np.int64)
        kind = "query and target classes"
        source = f"{queries.path} + {cla.path}"
    return Assessment(
        query_ids=tuple(src.models),
        item_ids=tuple(cla.models),
        indptr=indptr,
        judged_items=items,
        judged_grades=grades,
        query_items=query_items,
        collection_size=len(cla.models),
        top_grade=2 if graded else 1,
        query_classes=tuple(src.model_class[q] for q in src.models),
        kind=("graded " if graded else "binary ") + kind,
        source=source,
        notes=tuple(cla.notes)
        + (tuple(queries.notes) if queries is not None else ())
        + tuple(notes),
        classification=cla,
        query_classification=src,
    )
