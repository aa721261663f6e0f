"""What each ``shrec-eval`` command does, once :mod:`shrec_eval.cli.parser` has
parsed its arguments: the contest the arguments name (:func:`contest_of`),
reading and scoring with a progress bar, the table and the files asked for.
Every command is ``cmd_NAME(args, out) -> exit code`` (:data:`COMMANDS`);
errors meant for the user are ShrecEvalErrors, which
:func:`shrec_eval.cli.parser.main` reports.  The scoring commands
(evaluate, demo, check) and measures are here; compare is
:mod:`.compare_command`, distances, examples and thumbnails
:mod:`.file_commands`, profiles :mod:`.profiles_command`.
"""

from __future__ import annotations

import importlib
import textwrap
from dataclasses import replace
from pathlib import Path
from typing import Any

from .. import __version__
from ..contest import Contest, RunSource
from ..errors import ContestFileError, ShrecEvalError, UsageError
from ..model.number_text import text_grid
from ..option_args import profile_options as _profile_options
from ..options import EvalOptions
from ..outputs.json_pieces import write_json
from ..profiles import listed
from ..resources import demo_manifest
from ..scoring.measures import (
    all_aliases,
    expand,
    holds_under,
    key_bindings,
    owner,
)
from ..scoring.params import family_lines
from ..service import PROBLEMS, load_assessment, score_runs
from .arguments import (  # noqa: F401
    OPTION_FIELDS,
    check_gallery_options,
    check_keys,
    contest_of,
    guard_outputs,
    guard_shapes,
    guarded_contest,
    is_contest_file,
    options_of_args,
    shapes_args,
    table_keys,
    write_contest_file,
)
from .profiles_command import cmd_profiles
from .steps import (  # noqa: F401
    PROG,
    Progress,
    dask_client,
    figure_drawers,
    legend,
    native_files,
    no_own_reader,
    run_scoring,
    write_outputs,
)

# -- commands ------------------------------------------------------------------------


def cmd_evaluate(args, out) -> int:
    if args.format == "table" and args.per_query:
        formats = " or ".join(p.text_format for p in listed() if p.text_format)
        raise UsageError(f"--per-query (-q) goes with --format {formats}")
    contest = guarded_contest(
        args,
        options_of_args(args),  # --format NAME: the profile's own text output, checked there
        *("json", "csv", "report", "native", "save_contest"),
        check=lambda c: check_gallery_options(args, c),
    )
    shapes = guard_shapes(contest, report=args.report)
    assessment = None
    runs: list = []
    if contest.profile.contest_reader is None:  # shapenet17: an assessment per dataset
        assessment = load_assessment(contest)
        table_keys(args, assessment, contest.options)
    with figure_drawers(args) as drawers:
        with dask_client(args) as client:
            assessment, results = run_scoring(contest, assessment, runs, client)
        # the contest file once its runs were read: never one that cannot be scored
        write_contest_file(args, contest)
        write_outputs(
            args, contest, assessment, results, out, runs=runs, shapes=shapes, drawers=drawers
        )
    return 0


def cmd_demo(args, out) -> int:
    if args.format != "table" or args.per_query:
        raise UsageError("demo prints its table; --format trec_eval and -q go with evaluate")
    manifest = demo_manifest()
    contest = Contest.read(manifest)
    contest = replace(contest, options=options_of_args(args), **shapes_args(args, contest))
    no_own_reader(contest.options, "demo")
    check_gallery_options(args, contest)
    guard_outputs(contest, json=args.json, csv=args.csv, report=args.report, native=args.native)
    shapes = guard_shapes(contest, report=args.report)
    assessment = load_assessment(contest)
    table_keys(args, assessment, contest.options)
    runs: list = []
    with figure_drawers(args) as drawers:
        _, results = run_scoring(contest, assessment, runs)
        out.write(
            f"{contest.name}: {assessment.n_queries} queries, collection of "
            f"{assessment.collection_size}, {assessment.kind}\n\n"
        )
        write_outputs(
            args,
            contest,
            assessment,
            results,
            out,
            base=Path(manifest).parent,
            runs=runs,
            shapes=shapes,
            drawers=drawers,
        )
    return 0


def _alias_names(cm, profile) -> list[str]:
    """The other tools' names of a concrete measure (those that hold under
    ``profile``, a Profile, when one is given)."""
    out = []
    for a in all_aliases():
        if a.key != cm.measure.key and a.key != cm.key:
            continue
        if not holds_under(a, profile):
            continue
        out.append(a.name.replace("{k}", str(cm.k)) if cm.k is not None else a.name)
    return out


def cmd_measures(args, out) -> int:
    opts = None
    if args.profile is not None:  # its name, or its evaluator file
        try:
            opts = EvalOptions(ranks=args.ranks, profile=args.profile)
        except ShrecEvalError as exc:
            raise UsageError(str(exc)) from None
    profile = opts.rules if opts is not None else None
    if profile is None:
        listed()  # the profiles found (config folder, packages): their measures too
    if args.params:
        return _measure_params(profile, out)
    own = profile.overrides if profile is not None else {}
    rows = [("KEY", "LABEL", "ALSO KNOWN AS", "DEFINITION")]
    for m in expand(args.ranks, profile):
        only = owner(m.measure)
        definition = m.definition + (f" [profile {only.name} only]" if only else "")
        if profile is not None and (m.key in own or m.measure.key in own):
            definition += f" [computed as {profile.name} does: see docs/profiles.md]"
        rows.append((m.key, m.label, ", ".join(_alias_names(m, profile)), definition))
    out.write("".join(line + "\n" for line in text_grid(rows, left=4)))
    note = (
        "Also known as: trec_eval's and ir_measures' names give trec_eval's numbers under "
        "--profile trec_eval; NN, FT, ST, E, DCG are the SHREC toolkits' and psbTable's "
        "columns. Any name is accepted by --columns, --rank-by and compare --measure; an @K "
        "name of another rank (P_20, p@20) adds that rank. Definitions and sources: "
        "docs/measures.md."
    )
    out.write("\n" + textwrap.fill(note, 100) + "\n")
    if profile is not None:
        keys, rank_key = profile.table(None, opts)
        rank = (
            rank_key if profile.rank_key else f"{rank_key} (adr for sister-class grades of a .cla)"
        )
        out.write(
            f"Profile {profile.name}:\n  table columns: {', '.join(keys)}\n  ranked by: {rank}\n"
        )
    return 0


def _measure_params(profile, out) -> int:
    """``measures --params``: the families, their parameters, and the keys
    that are measures with parameters (under ``profile`` when given)."""
    intro = (
        "Measures with parameters: FAMILY(PARAM=VALUE,...)@K (@R: the query's relevant items; "
        "no @: the whole list), the parameters in any order, a default left out, e.g. "
        "ndcg(gain=exp2,discount=log2_from_1)@10. --columns, --rank-by, compare --measure "
        "and the app's column search take them; a key's name is its canonical form."
    )
    out.write(textwrap.fill(intro, 100) + "\n\n")
    out.write("".join(line + "\n" for line in family_lines()))
    where = f" under --profile {profile.name}" if profile is not None else ""
    out.write(f"\nKeys that are measures with parameters{where}:\n")
    rows = [(key.replace("{k}", "K"), b.replace("{k}", "K")) for key, b in key_bindings(profile)]
    out.write("".join(f"  {k} = {b}\n" for k, b in rows))
    return 0


def check_run(
    assessment, source: RunSource, options: EvalOptions, strict: bool = False, client=None
) -> dict:
    """Read and check one submission; every finding as a dict (a notice is
    a problem too when ``strict``)."""
    entry: dict[str, Any] = {
        "path": str(source.path),
        "name": source.name,
        "format": None,
        "problems": [],
        "notices": [],
    }
    # the engine runs every data check (coverage, truncation, ties) as it scores
    try:
        (outcome,) = score_runs(assessment, [source], options, client=client)
    except ContestFileError as exc:
        entry["problems"].append(
            {"code": "unreadable", "message": str(exc), "count": 1, "examples": []}
        )
        entry["verdict"] = "cannot be read"
        return entry
    run, result = outcome.run, outcome.result
    assert run is not None and result is not None  # errors raise
    entry["result"] = result
    entry.update(
        name=run.name,
        format=run.format,
        queries=len(run.query_ids),
        assessment_queries=assessment.n_queries,
    )
    for w in result.warnings:
        if w.code in ("no_relevant", "no_highly_relevant", "psb_class_cutoff"):
            continue  # about the assessment, not the submission
        strict_problem = strict and w.code not in ("self_match", "top_k")  # what was asked
        kind = "problems" if w.code in PROBLEMS or strict_problem else "notices"
        entry[kind].append(w.to_dict())
    entry["verdict"] = "problems" if entry["problems"] else "ok"
    return entry


def cmd_check(args, out) -> int:
    options = EvalOptions(remove_self=not args.keep_self, **_profile_options(args))
    contest = guarded_contest(args, options, "json", "native", "save_contest")
    no_own_reader(contest.options, "check")
    write_contest_file(args, contest)
    assessment = load_assessment(contest)
    size = contest.options.collection_size or assessment.collection_size
    report: dict[str, Any] = {
        "tool": {"name": PROG, "version": __version__},
        "profile": contest.options.profile,
        "assessment": {
            "path": str(contest.assessment.path),
            "kind": assessment.kind,
            "queries": assessment.n_queries,
            "collection_size": size,
        },
        "runs": [],
    }
    out.write(
        f"assessment {contest.assessment.path}: {assessment.kind}, "
        f"{assessment.n_queries} queries, collection of {size}; "
        f"profile {contest.options.profile}\n"
    )
    results = []
    paths = args.runs or [str(r.path) for r in contest.runs]
    with dask_client(args) as client:
        entries = [
            check_run(assessment, source, contest.options, args.strict, client)
            for source in contest.runs
        ]
    for path, e in zip(paths, entries):
        if "result" in e:
            results.append(e.pop("result"))
        report["runs"].append(e)
        out.write(f"\n{path}\n")
        if e["format"]:
            out.write(
                f"  format: {e['format']}\n  queries: {e['queries']} in the run, "
                f"{e['assessment_queries']} in the assessment\n"
            )
        for kind in ("problems", "notices"):
            for w in e[kind]:
                ex = f" (e.g. {', '.join(w['examples'])})" if w["examples"] else ""
                label = "problem" if kind == "problems" else "notice"
                text = (
                    w["message"]
                    if w["code"] == "unreadable"
                    else f"{w['message']}: {w['count']}{ex}"
                )
                out.write(f"  {label}: {text}\n")
        out.write(f"  verdict: {'OK' if e['verdict'] == 'ok' else e['verdict'].upper()}\n")
    if args.json:
        write_json(args.json, report)
    if results:
        native_files(args, assessment, results, contest)
    return 1 if any(e["verdict"] != "ok" for e in report["runs"]) else 0


def _elsewhere(module: str, name: str):
    """The command ``name`` of the command line's module ``module``,
    imported when it runs, as the formats' table names the module that
    reads each format (:class:`shrec_eval.choices.FormatRow`): compare's
    paired tests and the file commands' thumbnails are imported by none
    of the commands above."""

    path = f"{__package__}.{module}"

    def command(args, out) -> int:
        return getattr(importlib.import_module(path), name)(args, out)

    command.__name__ = name
    # the module imported by name, which PyInstaller does not follow: the
    # bundle's spec collects it (tests/test_project_packaging.py checks)
    command.module = path  # type: ignore[attr-defined]
    return command


#: each command's function (those of other modules imported when they run)
COMMANDS = {
    "evaluate": cmd_evaluate,
    "distances": _elsewhere("file_commands", "cmd_distances"),
    "check": cmd_check,
    "compare": _elsewhere("compare_command", "cmd_compare"),
    "measures": cmd_measures,
    "profiles": cmd_profiles,
    "demo": cmd_demo,
    "examples": _elsewhere("file_commands", "cmd_examples"),
    "thumbnails": _elsewhere("file_commands", "cmd_thumbnails"),
}
