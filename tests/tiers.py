"""The suite's tiers and subjects, applied by ``tests/conftest.py``.

Two tiers (docs/development.md, "Which tests to run when"):

* the **fast tier**, what a bare ``pytest -q`` runs: every test but those of
  :data:`SLOW` and those marked ``slow`` or ``bundle`` in their module, with
  the hypothesis profile ``fast`` (a tenth of each property test's examples);
  every subject of :data:`SUBJECTS` keeps tests in it (conftest checks this
  whenever the whole folder is collected);
* the **full tier**, ``pytest -q --full`` (what CI runs): every test, with the
  hypothesis profile ``ci`` (each property test's own number of examples).

Every test is also marked by what it needs, so that ``-m`` picks them:
``app`` (Qt: the desktop app), ``subprocess`` (starts a process of ours),
``latex`` (pdflatex), ``packaging`` (builds a wheel or the bundle), ``dask``
(a Dask cluster), ``slow`` (the full tier only).  Examples:
``pytest -q -m app``, ``pytest -q --full -m "not packaging"``.
"""

from __future__ import annotations

import functools
import inspect
import re

#: the markers conftest gives (pyproject.toml declares none of them again)
MARKERS = {
    "app": "the desktop app (Qt; skipped without PySide6)",
    "subprocess": "starts a process of ours (the command line, the app, python)",
    "latex": "compiles LaTeX with pdflatex",
    "packaging": "builds a wheel or the PyInstaller bundle",
    "dask": "starts a Dask cluster",
    "slow": "the full tier only (pytest --full): tests/tiers.py says why",
    "figure_server": "the figure server's own lifecycle: run without the session's kept server "
    "(conftest's _one_figure_server), each report or window starting and ending its own",
}

#: test-file prefix -> subject (docs/development.md, "Where a test goes")
SUBJECTS = {
    "test_reading_": "reading",
    "test_measures_": "measures",
    "test_scoring_": "scoring",
    "test_profile_": "profiles",
    "test_outputs_": "outputs",
    "test_shapes_": "shapes",
    "test_embeddings": "embeddings",
    "test_cli": "cli",
    "test_app": "app",
    "test_project_": "project",
}

#: tests of the full tier only (file::function, every parametrisation, or
#: file::function[case], that one), with why: each takes 8 s or more on a
#: 2-core machine, or 2 s or more where a faster test of the fast tier holds
#: the same promise (its reason names that test: "held by ...").  Their
#: subjects keep faster tests of the same promises in the fast tier.
SLOW = {
    "test_app_profile_parity.py::test_app_and_command_line_write_the_same_files": (
        "18 whole reports, each written by the app and by the command line"
    ),
    "test_app_monkey.py::test_more_seeds_of_the_monkey": "four more monkey runs",
    "test_app_monkey.py::test_the_monkey_finds_no_crash_no_exception_no_orphan": (
        "three monkey runs at once (32 s, 40 s of CPU); held by "
        "test_one_monkey_finds_no_crash_no_exception_no_orphan (seed 1, the same checks)"
    ),
    "test_outputs_gallery.py::test_the_demo_report_has_a_gallery": (
        "the demo's whole report with a gallery (7 s); held by "
        "test_gallery_holds_the_right_images_at_the_right_ranks (drawn meshes in each strip)"
    ),
    "test_app_lifecycle.py::test_killing_the_app_leaves_no_process[SIGTERM]": (
        "the demo app in a process (4 s); held by [SIGKILL] and [ctrl-c] (no helper left) and "
        "test_sigterm_while_the_quit_question_is_open_ends_the_app_keeping_the_work"
    ),
    # the gate through the headless export: one case of each test stays in the fast tier
    "test_app_headless.py::test_headless_gate_refuses_before_reading_the_contest[report-m.txt-this is a file; --report writes a folder]": (  # noqa: E501
        "a headless export (3 s); held by its [native----native holds the input] case "
        "and test_outputs_gate.py (the command line's gate, every refusal)"
    ),
    "test_app_headless.py::test_headless_gate_refuses_before_reading_the_contest[native-/dev/null-this is a file; --native writes a folder]": (  # noqa: E501
        "a headless export (3 s); held by its [native----native holds the input] case "
        "and test_outputs_gate.py (the command line's gate, every refusal)"
    ),
    "test_app_headless.py::test_headless_gate_refuses_before_reading_the_contest[report-nat---report and --native]": (  # noqa: E501
        "a headless export (3 s); held by its [native----native holds the input] case "
        "and test_outputs_gate.py (the command line's gate, every refusal)"
    ),
    "test_app_headless.py::test_headless_refuses_a_folder_of_other_files_before_reading_the_contest[native]": (  # noqa: E501
        "a headless export (2.5 s); held by its [report] case and test_outputs_native.py "
        "(a folder of other files refused before anything is read)"
    ),
    "test_outputs_unchanged.py::test_every_output_is_byte_identical_to_before_the_restructure": (
        "every output of every profile written and compared"
    ),
    "test_outputs_gate_property.py::test_hostile_inputs_and_outputs_leave_every_input_as_it_was": (
        "a report per example"
    ),
    "test_outputs_hostile_names.py::test_hostile_names_through_every_output_of_a_report": (
        "a report with its figures and gallery"
    ),
    "test_outputs_hostile_names.py::test_latex_tables_compile_with_any_name": ("pdflatex per name"),
    "test_outputs_hostile_names.py::test_long_names_are_shortened_in_figures_and_whole_in_the_tables": (  # noqa: E501
        "a report with its figures"
    ),
    "test_outputs_hostile_names.py::test_names_are_drawn_as_written_never_as_mathtext": (
        "a figure per name"
    ),
    "test_app_profiles.py::test_a_new_assessment_asks_whether_to_keep_the_runs": (
        "the demo scored twice per case"
    ),
    "test_app_profiles.py::test_each_profile_scores_in_the_app": "the demo under each profile",
    "test_app_profiles.py::test_export_after_a_profile_change_scores_first_and_writes_the_command_lines_files": (  # noqa: E501
        "an export after scoring, against the command line"
    ),
    "test_app_profiles.py::test_stale_results_say_so_until_f5": "the demo scored twice",
    "test_app_profiles.py::test_switching_to_trec_eval_and_back_reads_the_files_again": (
        "the demo scored three times"
    ),
    "test_app_profiles.py::test_profile_is_scored_named_and_saved": "the demo scored twice",
    "test_scoring_distributed.py::test_a_worker_lost_midway_changes_no_byte": (
        "a cluster whose worker is killed"
    ),
    "test_scoring_distributed.py::test_a_cla_contest_is_the_same_bytes_on_the_cluster": (
        "a cluster per profile"
    ),
    "test_scoring_distributed.py::test_the_command_lines_own_local_cluster": (
        "the command line starting its own cluster"
    ),
    "test_outputs_print_figures.py::test_report_writes_every_figure_in_three_formats": (
        "every figure in three formats"
    ),
    "test_outputs_print_figures.py::test_cli_figure_preset": "a report per preset",
    "test_app_figures.py::test_export_report_writes_the_cli_folder_and_the_figures": (
        "a whole report from the app and from the command line"
    ),
    "test_outputs_hostile.py::test_d13_signal_mid_write_leaves_old_output_and_no_temp": (
        "a process signalled mid-report, per signal"
    ),
    "test_project_qt_optional.py::test_gui_tests_skip_without_qt": (
        "the app's tests collected in a venv without Qt"
    ),
    "test_project_packaging.py::test_the_wheel_carries_the_license_and_no_bundle_only_file": (
        "builds a wheel"
    ),
    "test_reading_chunks.py::test_a_large_run_is_never_held_in_memory_whole": (
        "a 37 MB run read in a process"
    ),
    "test_app_lifecycle.py::test_the_headless_export_leaves_no_temporary_folder": (
        "a headless export in a process"
    ),
    "test_app_lifecycle.py::test_sigterm_ends_the_headless_export_quietly": (
        "a headless export in a process"
    ),
    "test_shapes_bounds.py::test_thumbnails_and_reports_carry_on_past_an_image_bomb": (
        "a report with thumbnails"
    ),
    "test_shapes_bounds.py::test_links_out_of_the_shapes_folder_are_not_followed": (
        "a report with thumbnails"
    ),
    "test_app_per_class.py::test_heatmap_plot_exports_as_a_figure": "a figure in three formats",
    "test_outputs_gate.py::test_e04_closed_stdout_still_writes_every_file": (
        "a report in a process"
    ),
    "test_outputs_print_figures.py::test_heatmap_55_classes_labels_colour_bar_and_contrast": (
        "a 55-class heatmap"
    ),
    "test_shapes_gates.py::test_outputs_beside_the_shapes_folder_are_written": (
        "a report with thumbnails"
    ),
    "test_app_command_line_options.py::test_the_installed_command_takes_the_profile": (
        "the app and the command line in processes"
    ),
    "test_app_outputs.py::test_outputs_of_a_contest_default_to_its_folder": "a whole report",
    "test_app_outputs.py::test_ctrl_e_exports_the_tab_shown": "an export per tab",
    "test_cli.py::test_csv_and_report_outputs": "a whole report",
    "test_app_outputs.py::test_outputs_of_the_demo_default_to_the_documents_folder": (
        "a whole report"
    ),
    "test_outputs_print_figures.py::test_every_figure_text_at_least_7_pt_and_lines_in_points": (
        "every figure at every preset"
    ),
    "test_app_figures.py::test_export_figure_at_a_print_preset_is_the_core_figure": (
        "a figure at each preset"
    ),
    # the demo's case stays in the fast tier
    "test_app_looks.py::test_the_headless_export_writes_the_command_lines_figures_byte_for_byte[many]": (  # noqa: E501
        "28 runs' report written by the app and by the command line"
    ),
    "test_app_looks.py::test_the_curves_draw_every_run_in_a_look_of_its_own_the_reports[40]": (
        "40 runs drawn (28 stay in the fast tier)"
    ),
    "test_app_file_roles.py::test_a_run_after_the_assessment_is_scored_as_the_command_line_scores_it": (  # noqa: E501
        "a headless export against the command line's report"
    ),
    "test_cli.py::test_reports_escape_participant_text": (
        "a whole report of two runs (2.5 s); held by test_outputs_hostile_names.py::"
        "test_report_files_escape_hostile_run_and_class_names (run and class names escaped "
        "in the report's Markdown, HTML, CSV and LaTeX)"
    ),
    "test_cli.py::test_custom_ranks_reach_the_reports": "whole reports",
    "test_cli.py::test_compare_prints_ranking_matrix_and_writes_json_and_report": (
        "a comparison report"
    ),
    "test_app_small_screen.py::test_a_geometry_saved_on_a_larger_screen_opens_inside_a_smaller_one": (  # noqa: E501
        "two app processes at scale 2"
    ),
    "test_app_per_class.py::test_light_and_dark_screenshots_differ_as_the_theme_says": (
        "the demo drawn in both themes"
    ),
    "test_outputs_palette.py::test_the_report_takes_the_contests_looks": "a report with figures",
    "test_app_session.py::test_the_theme_recolours_the_missing_files": (
        "the recent list drawn in both themes"
    ),
    "test_project_docs.py::test_the_commands_of_the_page_run_as_written": (
        "a page's shell commands as processes (the examples copied, reports, a Dask cluster)"
    ),
    # a 70 KB run read a byte at a time, in trec_eval's order: two layouts of four go to
    # the full tier, the tokenizer that places the fields being the file order's
    "test_reading_hostile.py::test_d01_whitespace_runs_never_shift_columns[True-after_qid]": (
        "a 70 KB run read a byte at a time (3 s); held by its [False-after_qid] case (the "
        "same layout through the same tokenizer) and [True-tabs] (trec_eval's order)"
    ),
    "test_reading_hostile.py::test_d01_whitespace_runs_never_shift_columns[True-before_rank]": (
        "a 70 KB run read a byte at a time (3 s); held by its [False-before_rank] case (the "
        "same layout through the same tokenizer) and [True-tabs] (trec_eval's order)"
    ),
    "test_project_packaging.py::test_the_app_imports_none_of_the_modules_the_bundle_leaves_out": (  # noqa: E501
        "every feature of the app and the command line in processes, traced (27 s at a load "
        "of 6); the bundle's own tests (full tier too) run the frozen app and command line"
    ),
    "test_app_outputs.py::test_the_windows_drawers_start_with_its_first_export_serve_every_export_and_end_with_it": (  # noqa: E501
        "four exports of reports and three drawing servers started (58 s at a load of 5)"
    ),
    "test_outputs_figure_jobs.py::test_a_helper_killed_while_drawing_leaves_the_figures_whole[spawned]": (  # noqa: E501
        "spawned drawers, one killed (12 s at a load of 5); held by its [forked] case (the same "
        "figures drawn here that the lost process did not send)"
    ),
    "test_app_headless.py::test_headless_starts_the_drawers_server_before_it_imports_the_app": (
        "three headless exports in processes (10 s at a load of 5); held by test_outputs_"
        "figure_jobs.py::test_the_command_line_starts_the_drawers_server_before_it_imports_the_"
        "engine (the same server_started, its failures and its end) and test_headless_starts_the_"
        "figure_processes_before_its_window (the headless export's order)"
    ),
    "test_project_bundle.py::test_the_deb_installs_opens_contests_and_is_removed_cleanly": (
        "the bundle packaged as a .deb, installed with apt, checked and removed"
    ),
    "test_project_bundle.py::test_the_bundle_stays_within_its_size_and_holds_both_commands": (
        "the bundle built"
    ),
}

#: test modules whose tests share one process over several (pytest-xdist's
#: ``--dist loadgroup``, which conftest gives): a module fixture too costly
#: to make in each process.  conftest's scheduler groups them by the file's
#: name (xdist's own ``xdist_group`` suffix on node ids is lost under pytest
#: 9.2, pytest-xdist issue 1386) and hands the largest group out first
GROUPS = {
    "test_project_bundle.py": "bundle",  # the bundle, built once (5 minutes of both cores)
}

#: what a test's source (or its module's helpers it calls) shows it needs
_NEEDS = {
    "subprocess": re.compile(r"\bsubprocess\.|\bsys\.executable\b|\bPopen\b"),
    "latex": re.compile(r"pdflatex|\bcompile_tex\b|\blatex_compiles\b"),
    "dask": re.compile(r"\bdask\b|LocalCluster|--dask"),
    "packaging": re.compile(r"PyInstaller|pyinstaller|pip\b.*\bwheel\b|\bbdist_wheel\b|\bbundle\b"),
}

#: modules whose every test needs one of these
_MODULE_NEEDS = {
    "test_project_bundle.py": ("packaging", "subprocess"),
    "test_scoring_distributed.py": ("dask",),
    "test_outputs_latex.py": ("latex",),
}


def examples(n: int) -> int:
    """A property test's number of examples under the loaded hypothesis
    profile: ``n`` under ``ci`` (max_examples 100), a tenth under ``fast``
    (at least 2), ten times under ``thorough``."""
    from hypothesis import settings

    return max(2, round(n * settings.default.max_examples / 100))


def group(node_id: str) -> str | None:
    """The group of :data:`GROUPS` a test belongs to, from its node id
    (``tests/test_project_bundle.py::test_x``, with or without xdist's
    ``@group`` suffix), or None."""
    return GROUPS.get(node_id.split("::", 1)[0].rsplit("/", 1)[-1])


#: a test module's source that makes a fixture once per module (its own,
#: or conftest's ``demo``: the demo scored in a window)
_MODULE_FIXTURE = re.compile(r"scope=[\"']module[\"']|\bdef \w+\([^)]*\bdemo\b")


@functools.cache
def shares_a_module_fixture(path) -> bool:
    """Whether a test module makes a fixture once for its tests (a window
    with the demo scored, a cluster, a contest written): over several
    processes its tests are one unit of work (conftest's scheduler), so
    that one process makes it, not each process given some of its tests."""
    try:
        with open(path, encoding="utf-8") as fh:
            return bool(_MODULE_FIXTURE.search(fh.read()))
    except OSError:
        return False


def subject(file_name: str) -> str | None:
    """The subject of a test file, from its name (None: not a test file of a subject)."""
    return next((s for p, s in SUBJECTS.items() if file_name.startswith(p)), None)


#: tests of the fast tier only (file::function): each stands in for a test of
#: :data:`SLOW` that runs all of it again with the same checks (named first in
#: its reason), so that the full tier runs that one and not both
STAND_INS = {
    "test_app_monkey.py::test_one_monkey_finds_no_crash_no_exception_no_orphan": (
        "test_app_monkey.py::test_the_monkey_finds_no_crash_no_exception_no_orphan: seed 1's "
        "run of 100 actions among its three, each checked by the same check() (20 s, 30 s of CPU)"
    ),
}


def stand_in_entry(file_name: str, function: str) -> str | None:
    """The entry of :data:`STAND_INS` naming this test, if any."""
    key = f"{file_name}::{function}"
    return key if key in STAND_INS else None


def slow_entries(file_name: str, function: str, name: str = "") -> set[str]:
    """The entries of :data:`SLOW` that name this test: its function (every
    parametrisation) or its one parametrisation (``name``)."""
    return {k for k in (f"{file_name}::{function}", f"{file_name}::{name}") if k in SLOW}


def is_slow(file_name: str, function: str, own_markers, name: str = "") -> bool:
    """Whether a test belongs to the full tier only: its function (every
    parametrisation) or its one parametrisation (``name``, ``test_x[case]``)
    listed in :data:`SLOW`, or marked slow or bundle in its module."""
    return (
        f"{file_name}::{function}" in SLOW
        or (name and f"{file_name}::{name}" in SLOW)
        or "slow" in own_markers
        or "bundle" in own_markers
    )


@functools.cache
def _source(obj) -> str:
    """The source of a function, read once per session (each case of a
    parametrised test and each test naming a helper ask for it again: read
    every time, the sources were half of the collection's time)."""
    try:
        return inspect.getsource(obj)
    except (OSError, TypeError):
        return ""


def needs(file_name: str, fn, fixture_names=()) -> set[str]:
    """The markers of what a test needs, from its module and its source: the
    test function's, and that of the functions and fixtures of its module it
    names (one level: a helper that starts a process marks its callers)."""
    return set(_needs(file_name, fn, tuple(fixture_names)))


@functools.cache
def _needs(file_name: str, fn, fixture_names: tuple) -> frozenset[str]:
    """:func:`needs`, worked out once per test function (each case of a
    parametrised test asks again with the same function and fixtures)."""
    out = set(_MODULE_NEEDS.get(file_name, ()))
    if file_name.startswith("test_app"):
        out.add("app")
    module = inspect.getmodule(fn)
    out |= _source_needs(fn)
    names = set(getattr(getattr(fn, "__code__", None), "co_names", ())) | set(fixture_names)
    for name in sorted(names):
        obj = getattr(module, name, None)
        if inspect.isfunction(obj) or hasattr(obj, "__wrapped__"):
            out |= _source_needs(getattr(obj, "__wrapped__", obj))
    return frozenset(out)


@functools.cache
def _source_needs(obj) -> frozenset[str]:
    """The markers of :data:`_NEEDS` one function's source shows, searched
    once per session (a helper many tests name is searched once, not once
    per test: the searches were most of conftest's share of the collection)."""
    src = _source(obj)
    return frozenset(marker for marker, pattern in _NEEDS.items() if pattern.search(src))
