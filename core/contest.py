"""A contest as one value: where its files are and how to read them, and how
to score them.  The command line builds one from its arguments; the bundled
demo (``resources/demo/contest.json``) and the desktop app's sessions are one
written as JSON, paths relative to the file::

    {"version": 2, "name": "...",
     "assessment": {"path": "target.cla", "queries": "queries.cla", "graded": true},
     "runs": [{"path": "alice.trec", "name": "Alice", "format": "trec",
               "colour": "#1f77b4"}, ...],
     "options": {"ranks": [5, 10], ...},
     "shapes": {"path": "shapes", "layout": null},
     "view": {...}}

Every setting but ``path`` may be left out (its default applies).  ``view``
is what the desktop app shows (columns, sorting, curve kind): JSON data this
module keeps as it is, never reads.  A file of a newer ``version`` than
:data:`CONTEST_VERSION` is refused; an older one is migrated on reading
(version 1 spelt a run's colour ``"color"`` and had no ``view``; version 2
had no ``shapes`` or ``query_shapes``: the folders of the collection's shapes
and of the queries' shapes or images, :mod:`shrec_eval.shapes.index`).
"""

from __future__ import annotations

import copy
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from .contest_options import (  # noqa: F401  (tests read the kinds here)
    evaluator_from,
    evaluator_of,
    options_from_dict,
    profile_of,
)
from .errors import FileAccessError, FormatError, OptionsError
from .model.assessment import Assessment
from .model.runs import Run
from .options import MAX_COLLECTION, EvalOptions
from .outputs.atomic import Output, gate_outputs, write_text
from .outputs.native import native_holds, native_plan
from .outputs.tables import REPORT_FILES
from .profiles import DEFAULT as DEFAULT_PROFILE
from .reading.contest_fields import (  # noqa: F401
    BOOL,
    COLOUR,
    CONTEST_VERSION,
    INT,
    PATH,
    STR,
    VIEW,
    as_path,
    checked_fields,
    migrated_contest,
    one_of,
    path_of,
    path_text,
    relative_path,
)
from .reading.formats.source import open_source
from .reading.readers import (
    ASSESSMENT_FORMATS,
    MATRIX_ORDERS,
    METRICS,
    RANKLIST_VARIANTS,
    RUN_FORMATS,
    load_run,
)
from .shapes.index import ShapesSource, check_layout

__all__ = ["CONTEST_VERSION", "AssessmentSource", "RunSource", "Contest", "ShapesSource"]

#: the most a contest file may hold (a session with its view is a few kB)
CONTEST_LIMIT = 1 << 26

# -- the sources -----------------------------------------------------------------------------


@dataclass(frozen=True)
class AssessmentSource:
    """Where the relevance side of a contest is and how to read it (the
    parameters of :func:`~shrec_eval.reading.readers.load_assessment`)."""

    path: Path
    format: str | None = None
    queries: Path | None = None
    graded: bool = False
    collection_size: int | None = None
    collection: Path | None = None
    normalize_ids: bool = True
    #: how matrices map onto the assessment: "listing" or "id"
    #: (:mod:`shrec_eval.reading.formats.order`); None: not said (the
    #: profile's rule, else listing); a profile may fix it
    matrix_order: str | None = None

    KINDS = {
        "path": PATH,
        "format": STR,
        "queries": PATH,
        "graded": BOOL,
        "collection_size": INT,
        "collection": PATH,
        "normalize_ids": BOOL,
        "matrix_order": (f"one of {', '.join(MATRIX_ORDERS)}", lambda v: v in MATRIX_ORDERS),
    }

    def __post_init__(self) -> None:
        for name in ("path", "queries", "collection"):
            as_path(self, name)

    def reader_settings(self) -> dict:
        """The user's reading settings, as :func:`~shrec_eval.reading.readers.load_assessment`
        takes them (a profile's rules go over them)."""
        return {
            "format": self.format,
            "queries": self.queries,
            "graded": self.graded,
            "collection_size": self.collection_size,
            "collection": self.collection,
            "normalize_ids": self.normalize_ids,
            "matrix_order": self.matrix_order,
        }

    def load(self, profile=DEFAULT_PROFILE) -> Assessment:
        """Read the assessment by the rules of ``profile`` (a Profile, or its
        name; the contest's: :meth:`Contest.load_assessment`)."""
        return profile_of(profile).load_assessment(self)

    def to_dict(self, base=None) -> dict:
        """Every setting; paths relative to ``base`` when given (the matrix
        order only when it is not the default)."""
        d = {
            "path": relative_path(self.path, base),
            "format": self.format,
            "queries": relative_path(self.queries, base),
            "graded": self.graded,
            "collection_size": self.collection_size,
            "collection": relative_path(self.collection, base),
            "normalize_ids": self.normalize_ids,
        }
        if self.matrix_order not in (None, "listing"):
            d["matrix_order"] = self.matrix_order
        return d

    @classmethod
    def from_dict(cls, d, base=None, *, source=None) -> AssessmentSource:
        """The source a dict describes (relative paths are relative to
        ``base``); a FormatError naming ``source`` when it cannot be one."""
        d = checked_fields(d, "assessment", cls.KINDS, source, optional=set(cls.KINDS) - {"path"})
        if "path" not in d:
            raise FormatError(source, 'the "assessment" object needs a "path"')
        one_of(d.get("format"), ASSESSMENT_FORMATS, "assessment format", source)
        size = d.get("collection_size")
        if size is not None and not 1 <= size <= MAX_COLLECTION:
            raise FormatError(
                source,
                f"the collection size must be a positive whole number up to {MAX_COLLECTION}, "
                f"not {size}",
            )
        return cls(
            path_of(d["path"], base),
            format=d.get("format"),
            queries=path_of(d["queries"], base) if d.get("queries") is not None else None,
            graded=bool(d.get("graded") or False),
            collection_size=d.get("collection_size"),
            collection=path_of(d["collection"], base) if d.get("collection") is not None else None,
            normalize_ids=d.get("normalize_ids") is not False,
            matrix_order=d.get("matrix_order"),
        )


@dataclass(frozen=True)
class RunSource:
    """Where one participant's run is and how to read it (the parameters of
    :func:`~shrec_eval.reading.readers.load_run`), with the name and colour it is
    shown with.  ``normalize_ids`` None follows the assessment."""

    path: Path
    format: str | None = None
    variant: str | None = None
    trec_order: bool = False
    normalize_ids: bool | None = None
    name: str | None = None
    colour: str | None = None
    #: embedding runs: the distance (None: cosine), the file naming a
    #: .npy's rows, and how many results of each query are kept
    metric: str | None = None
    ids: Path | None = None
    top_k: int | None = None

    KINDS = {
        "path": PATH,
        "format": STR,
        "variant": STR,
        "trec_order": BOOL,
        "normalize_ids": BOOL,
        "name": STR,
        "colour": COLOUR,
        "metric": STR,
        "ids": PATH,
        "top_k": INT,
    }

    def __post_init__(self) -> None:
        as_path(self, "path")
        if self.ids is not None:
            as_path(self, "ids")

    def reader_settings(self) -> dict:
        """The user's reading settings, as :func:`~shrec_eval.reading.readers.load_run`
        takes them (a profile's rules go over them)."""
        settings: dict[str, object] = {
            "format": self.format,
            "variant": self.variant,
            # unset (False): the profile's rule, else file order
            "trec_order": self.trec_order or None,
            "name": self.name,
            "normalize_ids": self.normalize_ids,
        }
        settings.update(
            (k, v)
            for k, v in (("metric", self.metric), ("ids", self.ids), ("top_k", self.top_k))
            if v is not None
        )
        return settings

    def load(self, assessment: Assessment, profile=None, **reader_parameters) -> Run:
        """Read the run by the rules of ``profile`` (None: those of the
        profile the assessment was read under); ``reader_parameters`` are how
        to read, not what (e.g. ``chunk_size``, the bytes of text parsed at a
        time)."""
        if profile is not None:
            return profile_of(profile).load_run(self, assessment, **reader_parameters)
        return load_run(self.path, assessment, **{**self.reader_settings(), **reader_parameters})

    def to_dict(self, base=None) -> dict:
        """Every setting; the path relative to ``base`` when given."""
        return {
            "path": relative_path(self.path, base),
            "format": self.format,
            "variant": self.variant,
            "trec_order": self.trec_order,
            "normalize_ids": self.normalize_ids,
            "name": self.name,
            "colour": self.colour,
            # an embedding run's settings, written only when set
            **{
                k: v
                for k, v in (
                    ("metric", self.metric),
                    ("ids", relative_path(self.ids, base) if self.ids is not None else None),
                    ("top_k", self.top_k),
                )
                if v is not None
            },
        }

    def reader_dict(self) -> dict:
        """The reading settings only (no path, name or colour)."""
        d = self.to_dict()
        for k in ("path", "name", "colour"):
            del d[k]
        return d

    @classmethod
    def from_dict(cls, d, base=None, *, source=None) -> RunSource:
        d = checked_fields(d, "run", cls.KINDS, source, optional=set(cls.KINDS) - {"path"})
        if "path" not in d:
            raise FormatError(source, 'every run needs a "path"')
        one_of(d.get("format"), RUN_FORMATS, "run format", source)
        one_of(d.get("variant"), RANKLIST_VARIANTS, "rank-list variant", source)
        one_of(d.get("metric"), METRICS, "metric", source)
        if d.get("top_k") is not None and d["top_k"] < 1:
            raise FormatError(source, f'a run\'s "top_k" must be at least 1, not {d["top_k"]}')
        return cls(
            path_of(d["path"], base),
            format=d.get("format"),
            variant=d.get("variant"),
            trec_order=bool(d.get("trec_order") or False),
            normalize_ids=d.get("normalize_ids"),
            name=d.get("name"),
            colour=d.get("colour"),
            metric=d.get("metric"),
            ids=path_of(d["ids"], base) if d.get("ids") is not None else None,
            top_k=d.get("top_k"),
        )


_SHAPES_KINDS = {"path": PATH, "layout": STR, "normalize_ids": BOOL}


def _shapes_to_dict(s: ShapesSource | None, base) -> dict | None:
    if s is None:
        return None
    return {
        "path": relative_path(s.path, base),
        "layout": s.layout,
        "normalize_ids": s.normalize_ids,
    }


def _shapes_from_dict(d, what: str, base, source) -> ShapesSource | None:
    """A shapes folder of a contest file (``what``: its key) or None."""
    if d is None:
        return None
    d = checked_fields(d, what, _SHAPES_KINDS, source, optional={"layout"})
    if "path" not in d:
        raise FormatError(source, f'the "{what}" object needs a "path"')
    check_layout(d.get("layout"), source)
    return ShapesSource(
        path_of(d["path"], base), d.get("layout"), normalize_ids=d.get("normalize_ids") is not False
    )


# -- the contest -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Contest:
    """The assessment, the runs (with names and colours) and the engine
    options of a contest, where its shapes are (``shapes``, and
    ``query_shapes`` when the queries are not collection items: images,
    sketches, or meshes of their own), and (``view``) what an app showed of
    it: JSON data kept as it is (core never reads it)."""

    assessment: AssessmentSource
    runs: tuple[RunSource, ...] = ()
    options: EvalOptions = field(default_factory=EvalOptions)
    name: str = ""
    description: str = ""
    view: dict = field(default_factory=dict, hash=False)
    shapes: ShapesSource | None = None
    query_shapes: ShapesSource | None = None

    KINDS = {
        "version": INT,
        "name": STR,
        "description": STR,
        "assessment": ("an object", lambda v: isinstance(v, dict)),
        "runs": ("a list of objects", lambda v: isinstance(v, list)),
        "options": ("an object", lambda v: isinstance(v, dict)),
        "view": VIEW,
        "shapes": ("an object", lambda v: isinstance(v, dict)),
        "query_shapes": ("an object", lambda v: isinstance(v, dict)),
        "evaluator": (
            "the path of an evaluator file (.toml) or its table",
            lambda v: isinstance(v, dict) or path_text(v),
        ),
    }

    def __post_init__(self) -> None:
        object.__setattr__(self, "runs", tuple(self.runs))
        if not VIEW[1](self.view):
            raise TypeError(f"Contest.view must be {VIEW[0]}, not {self.view!r}")
        object.__setattr__(self, "view", copy.deepcopy(self.view))  # the caller's stays its own

    @property
    def profile(self):
        """The profile the contest is scored under (its options', resolved
        when they were made)."""
        return self.options.rules

    def load_assessment(self) -> Assessment:
        """The contest's assessment, read by its profile's rules."""
        return self.profile.load_assessment(self.assessment)

    def refuse_fixed(self) -> None:
        """An OptionsError when a reading setting the contest states (its
        assessment's matrix order) is one its profile fixes otherwise,
        naming both values.  The scoring options are not asked of it: they
        keep the user's choices beneath the profile (the app shows them
        greyed while a profile fixes them)."""
        stated = {"matrix_order": self.assessment.matrix_order}
        self.profile.refuse_others(stated, lambda name, value: f'"{name}": {json.dumps(value)}')

    def to_dict(self, base=None) -> dict:
        d = {"version": CONTEST_VERSION, "name": self.name}
        if self.description:
            d["description"] = self.description
        d["assessment"] = self.assessment.to_dict(base)
        d["runs"] = [r.to_dict(base) for r in self.runs]
        evaluator = evaluator_of(self.options.rules, base)
        if evaluator is not None:  # a profile of an evaluator file: its path, or its table
            d["evaluator"] = evaluator
        d["options"] = self.options.to_dict()
        for key in ("shapes", "query_shapes"):
            if getattr(self, key) is not None:
                d[key] = _shapes_to_dict(getattr(self, key), base)
        if self.view:
            d["view"] = copy.deepcopy(self.view)
        return d

    @classmethod
    def from_dict(cls, d, base=None, *, source=None) -> Contest:
        """The contest a dict describes (of this version or an older one);
        a FormatError naming ``source`` when it cannot be one (unknown
        settings, wrong types, newer version)."""
        if not isinstance(d, dict) or "assessment" not in d:
            raise FormatError(source, 'a contest file needs an "assessment" object with a "path"')
        d = checked_fields(migrated_contest(d, source), "contest", cls.KINDS, source)
        profile = evaluator_from(d.get("evaluator"), base, source)
        contest = cls(
            AssessmentSource.from_dict(d["assessment"], base, source=source),
            tuple(RunSource.from_dict(r, base, source=source) for r in d.get("runs", [])),
            options_from_dict(d.get("options", {}), source, profile),
            name=d.get("name", Path(source).stem if source is not None else ""),
            description=d.get("description", ""),
            view=d.get("view", {}),
            shapes=_shapes_from_dict(d.get("shapes"), "shapes", base, source),
            query_shapes=_shapes_from_dict(d.get("query_shapes"), "query_shapes", base, source),
        )
        try:
            contest.refuse_fixed()
        except OptionsError as exc:
            raise FormatError(source, str(exc)) from None
        return contest

    @classmethod
    def read(cls, path) -> Contest:
        """Read a contest file (JSON) through the readers' input gate (a pipe
        read once, a device refused, at most :data:`CONTEST_LIMIT` bytes);
        relative paths are relative to the folder it really is in (its
        links followed, as :meth:`write` writes them)."""
        src = open_source(path, "JSON contest file", limit=CONTEST_LIMIT)
        path = Path(src.path)
        if src.kind == "folder":
            raise FileAccessError(path, "this is a folder; a JSON contest file was expected")
        if src.size > CONTEST_LIMIT:
            raise FormatError(
                path, f"{src.size} bytes is more than a contest file holds ({CONTEST_LIMIT})"
            )
        try:
            text = src.read().decode("utf-8")
        except UnicodeDecodeError:
            raise FormatError(
                path, "not a UTF-8 text file; a JSON contest file was expected"
            ) from None
        try:
            doc = json.loads(text)
            base = path.parent if src.kind == "pipe" else Path(os.path.realpath(path)).parent
            return cls.from_dict(doc, base, source=path)
        except json.JSONDecodeError as exc:
            raise FormatError(
                path, f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
            ) from None
        except RecursionError:
            raise FormatError(path, "the JSON is nested too deeply for a contest file") from None

    def inputs(self) -> list[Path]:
        """Every path the contest reads: the assessment, its query and
        collection files, the runs (and the files naming embeddings' rows),
        the shapes folders (no output is written into them), its evaluator file."""
        a = self.assessment
        ids = [r.ids for r in self.runs]
        shapes = [s.path for s in (self.shapes, self.query_shapes) if s is not None]
        rules = self.options.rules  # its evaluator file is an input too
        evaluator = [Path(rules.path)] if rules.origin == "evaluator file" and rules.path else []
        files = (a.path, a.queries, a.collection, *(r.path for r in self.runs), *ids)
        return [p for p in (*files, *shapes, *evaluator) if p]

    def gate_outputs(
        self, *, json=None, csv=None, report=None, native=None, more=()
    ) -> list[Output]:
        """Every output of a scoring of this contest through the one output
        gate (:func:`shrec_eval.outputs.atomic.gate_outputs`), before any scoring:
        ``json`` a file (``-``: standard output), ``csv`` and ``report``
        folders written whole, ``native`` the profile's native files (their
        names planned from the runs), ``more`` any other
        :class:`~shrec_eval.outputs.atomic.Output` (a session, figures...).  A
        folder holding other files than its output writes (an earlier report,
        the profile's native files) is refused too.  Returns the outputs; an
        OutputError naming the first one refused."""
        gate = [
            Output("--json", json),
            Output("--csv", csv, "folder", holds=REPORT_FILES),
            Output("--report", report, "folder", holds=REPORT_FILES),
        ]
        if native is not None:
            names = native_plan(self.profile, self.profile.native_groups(self.runs))
            gate.append(Output("--native", native, "tree", names, native_holds(self.profile)))
        return gate_outputs([*gate, *more], self.inputs())

    def write(self, path) -> None:
        """Write the contest file atomically, paths relative to the folder
        it really is in (its links followed)."""
        path = Path(path)
        # through the output gate: never over one of the contest's own files
        gate_outputs([Output("the contest file", path)], self.inputs())
        base = path.resolve().parent
        write_text(path, json.dumps(self.to_dict(base), indent=2, ensure_ascii=False) + "\n")
