"""A contest described in one JSON file (the bundled demo, and the desktop
app's sessions): the assessment and its reader options, the runs with their
formats, and the engine options.  Paths are relative to the file.

    {"name": "...", "assessment": {"path": "target.cla", "queries": "queries.cla",
                                   "graded": true},
     "runs": [{"path": "alice.trec", "name": "Alice", "format": "trec"}, ...],
     "options": {"ranks": [5, 10], ...}}
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

from .errors import FileAccessError, FormatError
from .model import Assessment, Run
from .options import EvalOptions, OptionsError
from .readers import load_assessment, load_run

ASSESSMENT_KEYS = {
    "path",
    "queries",
    "graded",
    "collection_size",
    "collection",
    "format",
    "normalize_ids",
}
RUN_KEYS = {"path", "name", "format", "variant", "trec_order", "color"}


@dataclass
class ContestSpec:
    path: Path
    name: str
    assessment: dict
    runs: list[dict]
    options: dict = field(default_factory=dict)

    def resolve(self, rel) -> Path:
        p = Path(rel)
        return p if p.is_absolute() else (self.path.parent / p)


def read_contest(path) -> ContestSpec:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise FileAccessError.wrap(path, exc) from exc
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as exc:
        raise FormatError(
            path, f"not valid JSON: {exc.msg}", line=exc.lineno, column=exc.colno
        ) from None
    if (
        not isinstance(doc, dict)
        or not isinstance(doc.get("assessment"), dict)
        or not isinstance(doc.get("assessment", {}).get("path"), str)
    ):
        raise FormatError(path, 'a contest file needs an "assessment" object with a "path"')
    runs = doc.get("runs", [])
    if not isinstance(runs, list) or not all(
        isinstance(r, dict) and isinstance(r.get("path"), str) for r in runs
    ):
        raise FormatError(path, '"runs" must be a list of objects, each with a "path"')
    for what, keys, objs in (
        ("assessment", ASSESSMENT_KEYS, [doc["assessment"]]),
        ("run", RUN_KEYS, runs),
    ):
        for o in objs:
            extra = set(o) - keys
            if extra:
                raise FormatError(
                    path,
                    f"unknown {what} setting(s) {', '.join(sorted(extra))}; "
                    f"known: {', '.join(sorted(keys))}",
                )
    types = {
        "graded": bool,
        "normalize_ids": bool,
        "trec_order": bool,
        "collection_size": int,
        "path": str,
        "queries": str,
        "collection": str,
        "format": str,
        "name": str,
        "variant": str,
        "color": str,
    }
    for o in [doc["assessment"]] + runs:
        for k, v in o.items():
            if (
                v is not None
                and k in types
                and (not isinstance(v, types[k]) or (types[k] is int and isinstance(v, bool)))
            ):
                raise FormatError(
                    path, f"setting {k!r} must be a {types[k].__name__}, not {json.dumps(v)}"
                )
    options = doc.get("options", {})
    if not isinstance(options, dict):
        raise FormatError(path, '"options" must be an object')
    return ContestSpec(path, str(doc.get("name", path.stem)), doc["assessment"], runs, options)


def options_of(spec: ContestSpec) -> EvalOptions:
    try:
        return EvalOptions(**spec.options)
    except TypeError as exc:
        raise FormatError(spec.path, f'unknown option in "options": {exc}') from None
    except OptionsError as exc:
        raise FormatError(spec.path, str(exc)) from None


def load_contest_assessment(spec: ContestSpec) -> Assessment:
    a = spec.assessment
    return load_assessment(
        spec.resolve(a["path"]),
        format=a.get("format"),
        queries=spec.resolve(a["queries"]) if a.get("queries") else None,
        graded=bool(a.get("graded", False)),
        collection_size=a.get("collection_size"),
        collection=spec.resolve(a["collection"]) if a.get("collection") else None,
        normalize_ids=bool(a.get("normalize_ids", True)),
    )


def load_contest_run(spec: ContestSpec, entry: dict, assessment: Assessment) -> Run:
    return load_run(
        spec.resolve(entry["path"]),
        assessment,
        format=entry.get("format"),
        variant=entry.get("variant"),
        trec_order=bool(entry.get("trec_order", False)),
        name=entry.get("name"),
    )
