"""What a profile is: the rules of one evaluator, as data and small hooks
the engine calls at fixed points (docs/profiles.md).

A profile changes only list handling, definitions and averaging; readers,
checks and messages stay the project's own.  The default hooks are the
``shrec`` profile (measures.md unchanged).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace

import numpy as np

from ..errors import OptionsError, ShrecEvalError
from ..model.assessment import Assessment, DataWarning
from ..model.runs import Run
from ..reading.formats.rules import RULES, describe
from ..reading.readers import load_assessment, load_run
from ..scoring.base_measures import BASE_MEASURES, concrete
from .own_options import OWN_OPTIONS

#: the reading rules of assessment files, and those of assessments only
_ASSESSMENT_RULES = frozenset(k for k, r in RULES.items() if r.formats & {"cla", "qrels"})
_ASSESSMENT_ONLY = frozenset(k for k, r in RULES.items() if r.formats <= {"cla", "qrels"})


#: the columns of a summary when the profile names none
HEADLINE = ["nn", "ft_psb", "st_psb", "e_measure", "dcg_psb", "ap_trec_r", "adr", "ndcg@100"]


def default_rank_key(assessment: Assessment | None) -> str:
    """The measure that ranks runs when neither the profile nor the user
    says: ADR, as the SHREC 2006 report ranks, when the grades come from
    sister classes of a ``.cla`` (every query is graded the same way); else
    MAP (``ap_trec_r``).  The grades of single judgments never decide it: a
    qrels file with one grade-2 line is still ranked by MAP."""
    graded_classes = (
        assessment is not None
        and assessment.top_grade > 1
        and assessment.classification is not None
    )
    return "adr" if graded_classes else "ap_trec_r"


def _rules_given(settings: Mapping) -> dict:
    """The reading rules a caller gave explicitly (keywords not None); a
    source's settings are not among them: they are the user's beneath the
    profile, as the app keeps them."""
    return {k: v for k, v in settings.items() if k in RULES and v is not None}


def _keyword(name: str, value) -> str:
    return f"{name}={value!r}"


def _shown(value) -> str:
    return ("on" if value else "off") if isinstance(value, bool) else str(value)


def _setting(name: str, value) -> str:
    """A setting and its value in words (``matrix order = id``)."""
    return f"{name.replace('_', ' ')} = {_shown(value)}"


class ReadingError(ShrecEvalError, ValueError):
    """Files read by other reading rules than the profile that scores them."""


#: native file writer: (results of one group, assessment) -> {file: text}, a file
#: being one of the profile's ``native_files`` (``"table.txt"``) or, for a name
#: made from the data, a pattern of them and that name (``("table_*.txt", class)``:
#: shrec_eval.outputs.native makes the file names, never the writer)
NativeWriter = Callable[[list, Assessment], dict]


def no_queries_left_out(assessment: Assessment, options) -> tuple[np.ndarray, list[DataWarning]]:
    return np.ones(assessment.n_queries, dtype=bool), []


def all_included(assessment: Assessment, options, class_size, present) -> np.ndarray:
    included = np.ones(assessment.n_queries, dtype=bool)
    if options.psb_class_cutoff:
        included &= class_size > 2
    return included


def answered_queries(assessment: Assessment, options, class_size, present) -> np.ndarray:
    """trec_eval's averages: over the queries of the run (``-c``,
    ``complete_queries``: over every query of the assessment)."""
    out = np.ones(assessment.n_queries, dtype=bool) if options.complete_queries else present
    if options.psb_class_cutoff:
        out = out & (class_size > 2)
    return out


def each_run(result) -> str:
    """The native files of each run go in its own folder."""
    return result.run_name


def one_group(result) -> str:
    """Every run's lines in the same native files (a table of runs)."""
    return ""


def run_groups(runs) -> list:
    return [r.name for r in runs]


def contest_group(runs) -> list:
    return [""]


@dataclass(frozen=True)
class LeastRelevant:
    """A curve's rows of the queries with fewer than ``n`` relevant targets
    left out (NaN): the SHREC toolkits' precision-recall curve has no query
    with a single relevant target."""

    n: int

    def __call__(self, ctx, rows: np.ndarray) -> np.ndarray:
        rows = rows.copy()
        rows[ctx.cr < self.n] = np.nan
        return rows


@dataclass(frozen=True)
class Profile:
    """One evaluator's rules (built from its evaluator file:
    :mod:`shrec_eval.profiles.evaluator_file`, docs/evaluators.md).

    * ``options``: option values the evaluator fixes (applied over the
      user's options, and shown in the result's options);
    * ``reading``: the reading rules it fixes (rule -> value, see
      :data:`shrec_eval.reading.formats.rules.RULES`: TREC tie order, ids as
      written, numbers as C reads them, files to skip, matrix order, classes
      matched by position...): :meth:`load_assessment` and :meth:`load_run`
      read with them, and :meth:`check_reading` refuses what was read by
      other rules; ``run_formats``: the run formats it reads (empty: all);
    * ``scored(assessment, options)``: which queries are queries at all
      (the others get no value), with a note;
    * ``included(assessment, options, class_size, present)``: which scored
      queries enter the averages (``class_size`` = relevant items with the
      query itself, ``present`` = the run has the query);
    * ``overrides``: measure key (or the registry's ``{k}`` template) ->
      compute function of a chunk context (and the rank K), where the
      evaluator's definition differs from the registry's;
    * ``curve_rows``: curve key -> function (ctx, per-query rows) -> rows,
      e.g. queries an evaluator leaves out of a curve (NaN);
    * ``empty_levels_zero``: curves whose points no query defines print 0;
    * ``undefined_is_zero``: a measure undefined for a query (nothing to
      find) counts 0 in the averages, as trec_eval scores a query without
      relevant documents;
    * ``curves``: the evaluator's own curves (``Curve`` objects, computed
      next to the registry's);
    * ``query_data(assessment, options)``: per-query arrays its measures
      read from the chunk context's ``extra``;
    * ``native``: the evaluator's own output files, from the results of
      one ``group`` (default: each run alone).

    Two profiles made from the same evaluator file are equal; a profile
    pickles (a Dask worker receives it with the options).
    """

    name: str
    label: str
    source: str
    #: one line for a person choosing a profile (the app's Options, the CLI's help)
    help: str = ""
    #: why the evaluator fixes its ``options`` (shown next to them, greyed, in the app)
    why: str = ""
    options: Mapping[str, object] = field(default_factory=dict)
    reading: Mapping[str, object] = field(default_factory=dict)
    scored: Callable = no_queries_left_out
    included: Callable = all_included
    overrides: Mapping[str, Callable] = field(default_factory=dict)
    curve_rows: Mapping[str, Callable] = field(default_factory=dict)
    empty_levels_zero: tuple[str, ...] = ()
    undefined_is_zero: bool = False
    native: NativeWriter | None = None
    curves: tuple = ()
    #: options that belong to it alone (trec_eval's ``complete_queries``, -c):
    #: refused under the other profiles
    own_options: tuple[str, ...] = ()
    #: the name of its own text output of ``evaluate --format NAME`` (trec_eval's),
    #: written by ``text_writer(assessment, run, result, per_query=False)``, which
    #: needs the ranks ``text_ranks``
    text_format: str | None = None
    text_writer: Callable | None = None
    text_ranks: tuple[int, ...] = ()
    #: the measures it alone computes (``Measure`` objects; the registry's
    #: ``MEASURES`` lists them after the measures of every profile)
    measures: tuple = ()
    #: other tools' names that hold under it (``measures.Alias``: trec_eval's)
    aliases: tuple = ()
    #: the tool whose names the printed table's legend gives (an Alias's
    #: ``tool`` starts with it: "trec_eval", "SHREC")
    legend_tool: str | None = None
    query_data: Callable | None = None
    group: Callable = each_run
    #: the columns of the printed table and the ranking measure, when the
    #: evaluator reports its own (else the project's headline)
    headline: tuple[str, ...] = ()
    rank_key: str | None = None
    #: every file its native writer may write (relative to a run's folder):
    #: names, and patterns where ``*`` is a name from the data (a class, a
    #: method); a ``--native`` folder holding anything else is refused
    native_files: tuple[str, ...] = ()
    #: a profile that reads its contests its own way (shapenet17's method
    #: folders): (assessment path, run sources) -> (index of the source, its
    #: assessment, a run), one per result, which the service scores
    contest_reader: Callable | None = None
    #: what ``shrec-eval evaluate`` takes for such a contest (its usage line)
    contest_usage: str = ""
    #: the groups of a contest's run sources whose native files go together,
    #: named (None: known once read): each run alone by default
    native_groups: Callable = run_groups
    #: the evaluator's names of its table columns (its program's headings)
    headings: tuple[str, ...] = ()
    #: the measures with parameters its columns name that no registry key
    #: computes (canonical names), computed with its columns
    params_columns: tuple[str, ...] = ()
    #: the run formats it reads (empty: every one)
    run_formats: tuple[str, ...] = ()
    #: the program whose rules these are, as messages name it (experiments.py)
    program: str = ""
    #: --average -> the program's name of that average (the averages it computes)
    averages: Mapping[str, str] = field(default_factory=dict)
    #: the printf format of its numbers (its native tables' default)
    number_format: str = ""
    #: where it comes from: "built in", "evaluator file", "config folder",
    #: "package DIST" (``shrec-eval profiles``), and its file when it has one
    origin: str = field(default="built in", compare=False)
    path: str | None = field(default=None, compare=False)
    #: the evaluator file's content (TOML as data): what a contest file embeds,
    #: and what tells two profiles of one name apart
    document: Mapping | None = field(default=None, repr=False)
    #: where it comes in lists (the command line's, the app's): built-ins first
    position: int = 1000

    def __hash__(self) -> int:  # equal profiles have one name (their fields compared)
        return hash(self.name)

    def table(self, assessment: Assessment | None, options) -> tuple[list[str], str]:
        """The columns and the ranking measure of a summary when none are
        asked for: the profile's (trec_eval's own measures, psbTable's
        five...), else the :data:`HEADLINE` measures; the ranking measure is
        the profile's, else :func:`default_rank_key`.  Columns of ranks the
        options do not have are left out.  Every face's default table (the
        command line's, the app's Summary, the reports)."""
        rank_key = self.rank_key or default_rank_key(assessment)
        known = [m.key for m in concrete(options.ranks, BASE_MEASURES + tuple(self.measures))]
        known += self.params_columns  # measures with parameters it computes with its columns
        keys = [k for k in self.headline if k in known] or [k for k in HEADLINE if k in known]
        return keys, rank_key

    def fit(self, options):
        """``options`` with the options that belong to other profiles (a
        profile's ``own_options``: trec_eval's -c) back at their defaults:
        what switching to this profile keeps of the user's options."""
        from dataclasses import fields

        theirs = {o for o, name in OWN_OPTIONS.items() if name != self.name}
        theirs -= set(self.own_options)
        defaults = {f.name: f.default for f in fields(options) if f.name in theirs}
        changed = {k: v for k, v in defaults.items() if getattr(options, k) != v}
        return replace(options, **changed) if changed else options

    def forced(self, options) -> dict[str, object]:
        """The options the evaluator sets to other values than ``options``
        has (name -> the evaluator's value)."""
        return {k: v for k, v in self.options.items() if getattr(options, k) != v}

    def fixed(self) -> dict[str, object]:
        """Every setting the evaluator fixes: its options and its reading
        rules (name -> its value)."""
        return {**self.options, **self.reading}

    def refuse_others(self, given: Mapping[str, object], spell=None) -> None:
        """An OptionsError when a setting given explicitly (``given``: name ->
        the value asked for: a command-line option, a library keyword, a
        contest file's reading setting) is one this profile fixes, with
        another value: naming the profile's value and the one asked for
        (``spell(name, value)``: how the asker writes it, e.g.
        ``--matrix-order listing``).  The same value is fine."""
        fixed = self.fixed()
        for name, value in given.items():
            if name in fixed and value is not None and value != fixed[name]:
                asked = spell(name, value) if spell is not None else _setting(name, value)
                why = (
                    f"it reads {describe(name, fixed[name]).split(' (')[0]}"
                    if name in RULES
                    else self.why or self.help
                )
                raise OptionsError(
                    f"{asked}: the {self.name} profile fixes {_setting(name, fixed[name])} "
                    f"({why}), not {_shown(value)}; leave {asked} out, or choose another profile"
                )

    def apply(self, options):
        """The options with the evaluator's fixed values: what a result
        scored under this profile carries (``RunResult.options``)."""
        fixed = self.forced(options)
        return replace(options, **fixed) if fixed else options

    # -- reading ----------------------------------------------------------------------------

    def required(self, rule: str):
        """The value of a reading rule this profile scores with: its own,
        else the rule's default; None for a rule the user chooses and the
        profile leaves free (ids normalised or not, the matrix order)."""
        if rule in self.reading:
            return self.reading[rule]
        r = RULES[rule]
        return None if r.user else r.default

    def load_assessment(self, path, **settings) -> Assessment:
        """Read an assessment file (or an ``AssessmentSource``) by this
        profile's rules, over the reader ``settings`` given (format,
        queries, normalize_ids, matrix_order...): what the command line
        reads under ``--profile NAME``.  Runs read against it follow the
        profile (:meth:`load_run`, or ``readers.load_run`` / ``RunSource.load``)."""
        if self.contest_reader is not None:
            raise self._own_reader()
        self.refuse_others(_rules_given(settings), _keyword)
        if hasattr(path, "reader_settings"):  # an AssessmentSource
            settings = {**path.reader_settings(), **settings}
            path = path.path
        values = self._values(_ASSESSMENT_RULES, settings)
        return load_assessment(path, **{**settings, **values}, rules=self.reading)

    def load_run(self, path, assessment: Assessment, **settings) -> Run:
        """Read a run file or folder (or a ``RunSource``) against an
        assessment by this profile's rules, over the reader ``settings``
        given: what the command line reads under ``--profile NAME``."""
        if self.contest_reader is not None:
            raise self._own_reader()
        self.refuse_others(_rules_given(settings), _keyword)
        if hasattr(path, "reader_settings"):  # a RunSource
            settings = {**path.reader_settings(), **settings}
            path = path.path
        rules = [k for k in RULES if k not in _ASSESSMENT_ONLY]
        values = self._values(rules, {"normalize_ids": assessment.normalize_ids, **settings})
        if self.run_formats:
            settings["formats"] = self.run_formats
        return load_run(path, assessment, **{**settings, **values})

    def _values(self, rules, settings: dict) -> dict:
        """Every rule of ``rules`` as this profile reads: its own value, else
        the setting given, else the rule's default (never the rules of the
        profile an assessment was read under: only the low-level readers
        follow those)."""
        out = {}
        for k in rules:
            if k in self.reading:
                out[k] = self.reading[k]
            elif settings.get(k) is not None:
                out[k] = settings[k]
            else:
                out[k] = RULES[k].default
        return out

    def rereads(self, assessment: Assessment, source) -> bool:
        """Whether this profile reads ``source`` (an AssessmentSource) by
        other rules than ``assessment`` was read with (the app then reads it
        again when the profile changes)."""
        if self.contest_reader is not None or assessment.reading.get("reader"):
            return True
        expected = self._values(_ASSESSMENT_RULES, source.reader_settings())
        return any(
            assessment.reading[k] != v for k, v in expected.items() if k in assessment.reading
        )

    def _own_reader(self) -> ReadingError:
        return ReadingError(
            f"the {self.name} profile reads its contests itself ({self.help}); score one "
            f"with shrec_eval.service.score_contest(Contest(...)) or the command line "
            f"(shrec-eval evaluate {self.contest_usage} --profile {self.name})"
        )

    def check_reading(self, assessment: Assessment, run: Run | None = None) -> None:
        """A ReadingError when the assessment or the run was read by other
        rules than this profile's: scoring them would give other numbers
        than the command line gives for the same files under this profile."""
        reader = assessment.reading.get("reader")  # a profile's own reader (shapenet17)
        if reader != (self.name if self.contest_reader is not None else None):
            if self.contest_reader is not None:
                raise self._own_reader()
            raise ReadingError(
                f"the assessment was read by the {reader} profile's own reader; score it "
                f"under --profile {reader}"
            )
        for what, reading in (
            ("the assessment", assessment.reading),
            (f"run {getattr(run, 'name', '')!r}", getattr(run, "reading", {})),
        ):
            for rule, value in reading.items():
                if rule == "reader":
                    continue
                want = self.required(rule)
                if want is not None and value != want:
                    raise ReadingError(
                        f"{what} was read with {describe(rule, value)}; the {self.name} "
                        f"profile reads with {describe(rule, want)}, and the command line's "
                        f"numbers under --profile {self.name} come from that reading. Read the "
                        f"files under the profile: shrec_eval.load_assessment(path, "
                        f"profile={self.name!r}), then shrec_eval.load_run(path, assessment) "
                        f"(a run follows the profile of its assessment)"
                    )
