"""``shrec-eval profiles``: the evaluator profiles there are (built in, in
the user's config folder, of installed packages, loaded) with where each
comes from; ``profiles check FILE...`` says every problem of evaluator files
with its line; ``profiles show NAME`` prints a profile's evaluator file (a
built-in's: the file it is made from, which ``--profile FILE`` reads to the
same numbers and bytes)."""

from __future__ import annotations

from pathlib import Path

from ..errors import ShrecEvalError, UsageError
from ..model.number_text import text_grid
from ..options import EvalOptions
from ..profiles import broken, listed, name_taken
from ..profiles.evaluator_file import EvaluatorFileError, build, parse_text, read_text

__all__ = ["cmd_profiles"]


def cmd_profiles(args, out) -> int:
    words = list(args.words)
    action = words.pop(0) if words else "list"
    if action == "list":
        if words:
            raise UsageError(f"'profiles' lists them all; 'profiles {words[0]}' is not a command")
        return _list(out)
    if not words:
        raise UsageError(
            f"'profiles {action}' needs "
            + ("an evaluator file (FILE.toml)" if action == "check" else "a profile's name")
        )
    if action == "check":
        return max(_check(Path(w), out) for w in words)
    return _show(words, out)


def _list(out) -> int:

    rows = [("NAME", "FROM", "FILE", "WHAT IT IS")]
    for p in listed():
        rows.append((p.name, p.origin, p.path if p.origin != "built in" else "", p.label))
    for name, (found, exc) in broken().items():
        rows.append((name, found.origin, found.path or "", f"cannot be used: {exc}"))
    out.write("".join(line + "\n" for line in text_grid(rows, left=4)))
    out.write(
        "\n--profile NAME scores under a profile; --profile FILE.toml under an evaluator file's. "
        "Evaluator files are also found in the config folder and in installed packages "
        "(the entry-point group shrec_eval.evaluators).\n"
    )
    return 0


def _check(path: Path, out) -> int:
    """Every problem of an evaluator file, one a line (``FILE:LINE: what``);
    1 when there is one."""
    try:
        text = read_text(path)
        profile = build(parse_text(text, path), text=text, source=path)
    except EvaluatorFileError as exc:
        for problem in exc.problems:
            where = f"{path}:{problem.line}" if problem.line else f"{path}"
            out.write(f"{where}: {problem.message}\n")
        return 1
    except ShrecEvalError as exc:
        out.write(f"{exc}\n")
        return 1
    taken = name_taken(profile)
    if taken is not None:
        out.write(f"{path}: {taken}\n")
        return 1
    out.write(f"{path}: ok: the profile {profile.name} ({profile.label})\n")
    return 0


def _show(words: list[str], out) -> int:

    for word in words:
        try:
            profile = EvalOptions(profile=word).rules
        except ShrecEvalError as exc:
            raise UsageError(str(exc)) from None
        if profile.path is None:
            raise UsageError(
                f"the {profile.name} profile has no evaluator file (it is {profile.origin}'s)"
            )
        out.write(Path(profile.path).read_text(encoding="utf-8"))
    return 0
