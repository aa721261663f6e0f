"""``shrec-eval``: batch scoring, submission checks, reports and the demo.

This module is what the command line accepts (the commands and their
options, shared through parent parsers) and :func:`main`, the one place
where a user error (:class:`~shrec_eval.errors.ShrecEvalError`) becomes one
line on stderr; what each command does is :mod:`shrec_eval.cli.commands`.

Never imports Qt.  Exit codes: 0 success, 1 submission problems (``check``),
2 usage or format error (one line on stderr; ``--debug`` shows the
traceback), 130 interrupted, 143 terminated, 141 output pipe closed.
"""

from __future__ import annotations

import argparse
import difflib
import os
import signal
import sys
from collections.abc import Sequence

# Only light modules here: --help and --version answer without numpy (the
# commands, the engine and the readers are imported once a command runs).
from .._version import __version__
from ..errors import ShrecEvalError, UsageError, shown, user_message
from ..model.names import name_bytes
from ..option_args import engine_parser as _engine_parser
from ..option_args import given_options as given_args
from ..option_args import profile_parser as _profile_parser
from ..outputs.atomic import stream_fd
from ..outputs.figure_start import server_started
from ..scoring.memory import keep_freed_blocks
from .command_parsers import (  # noqa: F401
    MEASURE_NAMES,
    check_args,
    compare_args,
    demo_args,
    distances_args,
    evaluate_args,
    examples_args,
    examples_text,
    inputs_help,
    measures_args,
    profiles_args,
    thumbnails_args,
)
from .option_groups import (  # noqa: F401
    Parser,
    output_parser,
    reading_parser,
    shapes_parser,
)

PROG = "shrec-eval"
COMMAND_NAMES = (
    "evaluate",
    "distances",
    "check",
    "compare",
    "measures",
    "profiles",
    "demo",
    "examples",
    "thumbnails",
)


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--debug", action="store_true", help="show tracebacks")
    reading, engine, output = reading_parser(), _engine_parser(), output_parser()
    profile, shapes = _profile_parser(), shapes_parser()
    p = Parser(
        prog=PROG,
        description="Score 3D shape retrieval contests (SHREC, PSB, ShapeNet) and TREC runs.",
        parents=[common],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=examples_text(
            ("shrec-eval demo", "score the bundled demo contest and print its table"),
            (
                "shrec-eval evaluate psb_test.cla alice.matrix carol/ --report out/",
                "score two runs of a PSB contest and write a report folder "
                "(shrec-eval examples DIR: these files)",
            ),
            (
                "shrec-eval evaluate qrels.txt run.trec --profile trec_eval --columns map,P_10",
                "score a TREC run as trec_eval does, with trec_eval's names",
            ),
            ("shrec-eval evaluate --help", "a command's options, inputs and examples"),
        ),
    )
    p.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", parser_class=Parser)
    evaluate_args(sub, common, reading, engine, profile, output, shapes)
    distances_args(sub, common)
    check_args(sub, common, reading, profile)
    compare_args(sub, common, reading, engine, profile)
    measures_args(sub, common)
    profiles_args(sub, common)
    demo_args(sub, common, engine, profile, output, shapes)
    examples_args(sub, common)
    thumbnails_args(sub, common)
    assert tuple(sub.choices) == COMMAND_NAMES
    return p


def _option_strings(parser: argparse.ArgumentParser) -> list[str]:
    return [o for a in parser._actions for o in a.option_strings if o.startswith("--")]


def parse_args(
    argv: Sequence[str], parser: argparse.ArgumentParser | None = None
) -> argparse.Namespace:
    """The command line parsed (by ``parser``, one :func:`build_parser`
    made; None: a new one); an unknown option names the command's help and
    the nearest option of that command."""
    parser = parser if parser is not None else build_parser()
    args, rest = parser.parse_known_args(argv)
    if rest and hasattr(args, "runs") and not any(r.startswith("-") for r in rest):
        # RUN... may be empty (ASSESSMENT alone is a contest file), so argparse
        # gives RUN nothing from the first group of file names when options
        # follow ASSESSMENT (evaluate A.cla --queries Q.cla R1 R2): the file
        # names it left over are the runs, in order
        args.runs = list(args.runs) + rest
        rest = []
    if rest:
        command = getattr(args, "command", None)
        assert parser._subparsers is not None  # the commands'
        commands = parser._subparsers._group_actions[0].choices
        assert isinstance(commands, dict)  # a subparsers action's: name -> parser
        sub = commands.get(command) if command else None
        where = f"{PROG} {command}" if sub is not None else PROG
        unknown = next((r for r in rest if r.startswith("-")), rest[0])
        near = difflib.get_close_matches(
            unknown.split("=", 1)[0], _option_strings(sub or parser), n=1, cutoff=0.6
        )
        hint = f"; did you mean {near[0]}?" if near else ""
        what = "option" if unknown.startswith("-") else "argument"
        raise UsageError(f"unknown {what} {unknown!r}{hint} (see {where} --help)")
    return args


def main(argv: Sequence[str] | None = None, out=None) -> int:
    out = out if out is not None else sys.stdout
    argv = list(sys.argv[1:] if argv is None else argv)
    debug = "--debug" in argv
    keep_freed_blocks()  # chunked reading without refaulting its arrays (core/scoring/memory.py)
    try:
        # the server of the report's drawing processes asked for before the
        # arguments are read where they name --report (their reading, 0.2 to 0.3 s
        # of processor time, now overlaps its import; an abbreviated --rep asks
        # for it once read, below); a command that fails first ends it
        with server_started(names_report(argv)):
            parser = build_parser()  # once: it parses the command line, then what it wrote
            args = parse_args(argv, parser)
            if not args.command:
                raise UsageError(
                    f"a command is needed: {', '.join(COMMAND_NAMES)} (see {PROG} --help)"
                )
            args.given = given_options(argv, parser)
            # with --report, the server of the report's drawing processes first: its
            # import of matplotlib runs while the commands are imported and the
            # contest read and scored (shrec_eval.outputs.figure_start)
            with server_started(bool(getattr(args, "report", None))):
                from .commands import COMMANDS  # the engine and readers, with numpy

                if out is sys.stdout and stream_fd(getattr(args, "json", None)) == 1:
                    out = sys.stderr  # --json - : the JSON alone on standard output
                guarded = _ClosablePipe(out)
                code = COMMANDS[args.command](args, guarded)
        return _output_closed(out) if guarded.gone else code
    except SystemExit as exc:  # --help and --version
        return int(exc.code or 0)
    except KeyboardInterrupt:
        sys.stderr.write(f"{PROG}: interrupted\n")
        return 130
    except Terminated:
        sys.stderr.write(f"{PROG}: terminated\n")
        return 143
    except BrokenPipeError:  # whoever read the output went away (| head): stop quietly
        return _output_closed(out)
    except Exception as exc:
        if debug:
            raise
        # the one place user errors are caught: in the words every face uses
        msg = user_message(exc)
        if not isinstance(exc, (ShrecEvalError, OSError)):
            msg += " (run with --debug for details)"
        sys.stderr.write(f"{PROG}: error: {shown(msg)}\n")
        return 2


def names_report(argv: Sequence[str]) -> bool:
    """Whether the command line, as written, asks for a report (``--report DIR``
    or ``--report=DIR``) before ``--`` (after it, a file's name), before it is read."""
    for a in argv:
        if a == "--":
            return False
        if a == "--report" or a.startswith("--report="):
            return True
    return False


def given_options(argv: Sequence[str], parser: argparse.ArgumentParser | None = None) -> set[str]:
    """The options written on ``shrec-eval``'s command line (argparse
    dests), told from those left at their defaults: a contest file's
    settings give way to the former only.  ``parser``: the one that parsed
    ``argv`` (None: a new one), which parses ``argv`` again here with no
    defaults (they are taken from it: it is of no other use after)."""
    parser = parser if parser is not None else build_parser()
    return given_args(argv, parser) - {"command", "assessment", "runs"}


class _ClosablePipe:
    """The stream the table goes to, as the commands see it: when whoever
    reads it has gone (``| head``, ``| true``), what is printed after is
    dropped and the command goes on, so that the files it was asked for
    are still written; it then ends with 141."""

    def __init__(self, stream) -> None:
        self.stream = stream
        self.gone = False

    def write(self, text: str) -> int:
        if not self.gone:
            try:  # names and ids that are not UTF-8 shown with U+FFFD
                return self.stream.write(shown(text))
            except BrokenPipeError:
                self._close()
        return len(text)

    def write_exact(self, text: str) -> int:
        """``text`` as the bytes it was read from (names and ids that are not
        UTF-8 as their own bytes, not U+FFFD): what ``--format trec_eval``
        prints, as trec_eval prints the bytes of its files."""
        if self.gone:
            return len(text)
        buffer = getattr(self.stream, "buffer", None)
        try:
            if buffer is None:  # a text stream only (io.StringIO): the text as it is
                return self.stream.write(text)
            self.stream.flush()
            buffer.write(name_bytes(text))
            buffer.flush()
        except BrokenPipeError:
            self._close()
        return len(text)

    def flush(self) -> None:
        if not self.gone:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._close()

    def _close(self) -> None:
        self.gone = True
        if self.stream is sys.stdout:
            _output_closed(self.stream)

    def __getattr__(self, name):
        return getattr(self.stream, name)


class Terminated(BaseException):
    """SIGTERM, raised where the program is so that every ``finally`` and
    clean-up (temporary files, half-built report folders) runs."""


def _terminate(signum, frame) -> None:
    raise Terminated()


def _output_closed(out) -> int:
    """Exit status 141 (128 + SIGPIPE, as a shell reports a command its pipe
    killed), with stdout pointed at the null device so that Python's own
    flush at exit does not fail again."""
    if out is sys.stdout:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        os.close(devnull)
    return 141


def entry_point() -> None:
    """The ``shrec-eval`` command: SIGINT and SIGTERM become exceptions, so
    that no temporary file is left behind (exit 130 and 143); a closed
    output pipe ends it quietly (141)."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _terminate)
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        code = _output_closed(sys.stdout)
    sys.exit(code)
