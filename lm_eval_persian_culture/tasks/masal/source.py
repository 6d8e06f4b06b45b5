"""MasalBench's data: the authors' two CSV files at a pinned commit, read at run time, validated.

The repository (github.com/kalhorghazal/MasalBench) states no license, so the pack never ships these
files: they are read from raw URLs pinned to ``RELEASE_COMMIT`` (as TaarofBench's are), or from a local
data dir laid out like the repository (``<data_dir>/masal/contextualQuestions.csv``, ...).

Each file has two columns:

* ``Question``: the whole Persian prompt (instruction, the conversation or the proverb, the question, and
  the options, one per line after ``گزینه‌ها:``, as ``الف) ...``, ``ب) ...``): sent to the model verbatim;
* ``Answer Key``: a Python dict literal giving every option's role, e.g.
  ``{'الف': 'Correct', 'ب': 'Irrelevant', 'ج': 'Plausible but Wrong', 'د': 'Literal Trap'}``.

``load_items(part, settings) -> (items, provenance)`` gives, per row, ``{"id", "question", "letters",
"options", "roles", "answer_index"}``; every row is checked first (the option lines of the question, the
answer key's letters and roles, exactly one correct option) and a row that breaks a rule is one
``DataSchemaError`` naming the file, the row and the field, before any model time.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from lm_eval_persian_culture.data.sources import (
    Column,
    DataSchemaError,
    Schema,
    SourceFile,
    load_rows,
    resolve_data_dir,
)

BENCHMARK = "masal"
REPOSITORY = "kalhorghazal/MasalBench"
RELEASE_COMMIT = "493841a6eaf16e899278cd470c0bcce52d1ebe6b"  # "Add files", 2025-10-05: the data files' commit
RAW_BASE = f"https://raw.githubusercontent.com/{REPOSITORY}/{RELEASE_COMMIT}/"
# --metadata setting: a mirror of the repository's files at that commit (e.g. where GitHub is blocked); the
# URL read is logged with every doc (``provenance``)
BASE_URL_SETTING = "masal_base_url"

LETTERS = ("الف", "ب", "ج", "د")  # the options' labels, as the prompts write them
OPTIONS_HEADING = "گزینه‌ها:"  # "Options:", the line before the options in every prompt

CORRECT, LITERAL_TRAP, PLAUSIBLE, IRRELEVANT, EQUIVALENT = (
    "Correct",
    "Literal Trap",
    "Plausible but Wrong",
    "Irrelevant",
    "Equivalent",
)


@dataclass(frozen=True)
class Part:
    """One of the benchmark's two tasks and its file."""

    name: str  # "contextual" | "cross_cultural"
    filename: str
    n_options: int
    correct: str  # the role of the right option
    roles: tuple[str, ...]  # every role an option may have


CONTEXTUAL = Part("contextual", "contextualQuestions.csv", 4, CORRECT, (CORRECT, LITERAL_TRAP, PLAUSIBLE, IRRELEVANT))
CROSS_CULTURAL = Part("cross_cultural", "crossCulturalQuestions.csv", 2, EQUIVALENT, (EQUIVALENT, IRRELEVANT))
PARTS = {p.name: p for p in (CONTEXTUAL, CROSS_CULTURAL)}

SCHEMA = Schema((Column("Question"), Column("Answer Key")))


def source_file(part: Part, settings: Mapping | None = None) -> SourceFile:
    """The file of ``part``: at the pinned commit online (or the mirror ``masal_base_url``), or in a data dir."""
    base = str((settings or {}).get(BASE_URL_SETTING) or RAW_BASE)
    return SourceFile(BENCHMARK, part.filename, SCHEMA, url=base.rstrip("/") + "/" + part.filename)


def _origin(source: SourceFile, settings: Mapping | None) -> str:
    data_dir = resolve_data_dir(settings)
    return str(data_dir / source.benchmark / source.filename) if data_dir is not None else str(source.url)


def parse_options(question: str) -> tuple[list[str], list[str]] | str:
    """(letters, option texts) from the lines after ``گزینه‌ها:``, or the problem as text."""
    if OPTIONS_HEADING not in question:
        return f"has no line «{OPTIONS_HEADING}» before the options"
    block = question.rsplit(OPTIONS_HEADING, 1)[1]
    lines = [line.strip() for line in block.strip().splitlines() if line.strip()]
    letters, texts = [], []
    for i, line in enumerate(lines):
        expected = LETTERS[i] if i < len(LETTERS) else None
        if expected is None or not line.startswith(expected + ")"):
            want = f"«{expected}) ...»" if expected else f"at most {len(LETTERS)} options"
            return f"option line {i + 1} «{line[:40]}» is not {want}"
        text = line[len(expected) + 1 :].strip()
        if not text:
            return f"option «{expected}» is empty"
        letters.append(expected)
        texts.append(text)
    return letters, texts


def parse_answer_key(value: str) -> dict | str:
    """The answer key (a Python dict literal) as a dict, or the problem as text."""
    try:
        key = ast.literal_eval(value.strip())
    except (ValueError, SyntaxError):
        return f"is not a dict literal such as {{'الف': 'Correct', ...}}: {value[:60]!r}"
    if not isinstance(key, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in key.items()):
        return f"is not a dict of letter -> role: {value[:60]!r}"
    return {k.strip(): v.strip() for k, v in key.items()}


def check_row(row: Mapping, part: Part) -> tuple[list[str], list[str], list[str]] | tuple[str, str]:
    """(letters, options, roles) of a row, or (field, problem)."""
    parsed = parse_options(row["Question"])
    if isinstance(parsed, str):
        return "Question", parsed
    letters, options = parsed
    if len(letters) != part.n_options:
        return (
            "Question",
            f"has {len(letters)} options, expected {part.n_options} ({', '.join(LETTERS[: part.n_options])})",
        )
    key = parse_answer_key(row["Answer Key"])
    if isinstance(key, str):
        return "Answer Key", key
    if set(key) != set(letters):
        return "Answer Key", f"names options {list(key)}, the question has {letters}"
    roles = [key[letter] for letter in letters]
    unknown = [r for r in roles if r not in part.roles]
    if unknown:
        return "Answer Key", f"has role {unknown[0]!r}, expected one of {list(part.roles)}"
    if roles.count(part.correct) != 1:
        return "Answer Key", f"has {roles.count(part.correct)} options marked {part.correct!r}, expected exactly 1"
    return letters, options, roles


def load_items(part: Part, settings: Mapping | None = None) -> tuple[list[dict], str]:
    """Validated items of one part (see the module docstring) and the provenance string."""
    source = source_file(part, settings)
    rows, provenance = load_rows(source, settings)
    items = []
    for i, row in enumerate(rows):
        checked = check_row(row, part)
        if len(checked) == 2:  # rows counted from 1 in messages, as data/sources.py counts them
            field, problem = checked
            raise DataSchemaError(f"{_origin(source, settings)}: row {i + 1}: field {field!r} {problem}")
        letters, options, roles = checked
        items.append(
            {
                "id": f"{part.name}-{i:04d}",  # the row (0-based) in the authors' file; the release has no id
                "question": row["Question"],
                "letters": letters,
                "options": options,
                "roles": roles,
                "answer_index": roles.index(part.correct),
            }
        )
    return items, provenance


__all__ = ["CONTEXTUAL", "CROSS_CULTURAL", "PARTS", "RELEASE_COMMIT", "load_items", "source_file"]
