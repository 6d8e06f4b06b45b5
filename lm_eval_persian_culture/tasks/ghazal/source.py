"""GhazalBench's release files and the docs built from them.

The authors' repository states no license, so the pack ships none of its files: they are read at run time
from raw URLs pinned to a commit, or from a local data dir (``<data_dir>/ghazal/<file>``, as
../shared/data/ghazal holds them). Every doc carries the prompt it is asked with (``prompt``) and the gold
second hemistich (``gold``).

Prompts. The Hafez and Shakespeare files hold each item's whole prompt (the ``Question (...)`` columns), used
as released. The Saadi completion file's ``Question`` columns are a copy of the Hafez file's (the first 438
rows, Hafez's couplets; the last 60 empty): the Saadi completion prompts were not released. They are built
here from the Hafez template of each cue (read from the Hafez file: the Hafez question with its couplet's
texts taken out, which must be the same for all 438 rows) with حافظ replaced by سعدی, as the released Saadi
recognition prompts are; the paraphrase and the shuffled second hemistich come from the Saadi recognition
file (its ``(+ Para)`` prose and its ``Shuffled`` option; for Hafez both equal the completion file's, all 438
rows). Saadi has no salient-words cue: no file holds Saadi's salient words.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from lm_eval_persian_culture.data.sources import Column, DataSchemaError, Schema, SourceFile, load_rows

RELEASE_COMMIT = "c8a505770bb839b77fd8d1aa5aa87551ed06ab86"
REPO_URL = "https://github.com/kalhorghazal/GhazalBench"
RAW = f"https://raw.githubusercontent.com/kalhorghazal/GhazalBench/{RELEASE_COMMIT}/Poem Access/"

POETS = {"hafez": "حافظ", "saadi": "سعدی"}
SEPARATOR = " / "  # "first hemistich / second hemistich" in Couplet Text

# cue -> the completion file's question column
COMPLETION_CUES = {
    "name": "Question (Name)",
    "prose": "Question (Name + Prose)",
    "para": "Question (Name + Para)",
    "salient": "Question (Name + Salient)",
    "shuffle": "Question (Name + Shuffle)",
}
ENGLISH_CUES = ("name", "salient", "shuffle")  # the sonnet file has no prose or paraphrase cue
SAADI_CUES = ("name", "prose", "para", "shuffle")  # no Saadi salient words were released
# recognition cue -> (question column, answer-key column)
RECOGNITION_CUES = {
    "baseline": ("Question (Baseline)", "Answer Key"),
    "prose": ("Question (+ Prose)", "Answer Key"),
    "para": ("Question (+ Para)", "Answer Key"),
    "shuffle": ("Question (+ Shuffle)", "Answer Key (+ Shuffle)"),
}
ROLES = ("Correct", "Same Poet", "Same Ghazal", "Shuffled")
LETTERS = ("الف", "ب", "ج")


def _couplet_problem(value: str) -> str | None:
    if value.count(SEPARATOR) != 1:
        return f"expected 'first hemistich{SEPARATOR}second hemistich' (one {SEPARATOR.strip()!r}), got {value!r}"
    return None


def _answer_key_problem(value: str) -> str | None:
    try:
        key = ast.literal_eval(value)
    except (ValueError, SyntaxError):
        return f"is not a dict literal: {value!r}"
    if not isinstance(key, dict) or list(key.values()).count("Correct") != 1:
        return f"expected a dict letter -> role with one 'Correct', got {value!r}"
    bad = [(k, v) for k, v in key.items() if k not in LETTERS or v not in ROLES]
    return f"has unknown letters or roles {bad} (letters {list(LETTERS)}, roles {list(ROLES)})" if bad else None


_IDS = (Column("Ghazal Number", kind=int), Column("Couplet Number", kind=int))
_COUPLET = (*_IDS, Column("Couplet Text", check=_couplet_problem), Column("Prose"))
HAFEZ_COMPLETION = Schema((*_COUPLET, *(Column(c) for c in COMPLETION_CUES.values())))
SAADI_COMPLETION = Schema(_COUPLET)  # its Question columns are Hafez's (see the module docstring): not read
RECOGNITION = Schema(
    (
        *_COUPLET,
        *(Column(q) for q, _ in RECOGNITION_CUES.values()),
        Column("Answer Key", check=_answer_key_problem),
        Column("Answer Key (+ Shuffle)", check=_answer_key_problem),
    )
)
ENGLISH = Schema(
    (
        Column("Sonnet Number", kind=int),
        Column("Couplet Number", kind=int),
        Column("First Line"),
        Column("Second Line"),
        *(Column(COMPLETION_CUES[c]) for c in ENGLISH_CUES),
    )
)


def _source(filename: str, schema: Schema) -> SourceFile:
    return SourceFile("ghazal", filename, schema, url=RAW + filename)


SOURCES = {
    "completion_hafez": _source("completionQsHafez.xlsx", HAFEZ_COMPLETION),
    "completion_saadi": _source("completionQsSaadi.xlsx", SAADI_COMPLETION),
    "completion_english": _source("completionQsEnglish.xlsx", ENGLISH),
    "recognition_hafez": _source("multipleChoiceQsHafez.xlsx", RECOGNITION),
    "recognition_saadi": _source("multipleChoiceQsSaadi.xlsx", RECOGNITION),
}


# --------------------------------------------------------------------------- reading the prompts' parts
def tagged(text: str, tag: str) -> str | None:
    """The content of the last ``<tag>...</tag>`` in a prompt (the item's own; few-shot examples come first)."""
    start = text.rfind(f"<{tag}>")
    if start < 0:
        return None
    end = text.find(f"</{tag}>", start)
    return text[start + len(tag) + 2 : end] if end >= 0 else None


def _replace_last(text: str, tag: str, value: str, placeholder: str, origin: str) -> str:
    start = text.rfind(f"<{tag}>")
    end = text.find(f"</{tag}>", start)
    if start < 0 or end < 0 or text[start + len(tag) + 2 : end] != value:
        raise DataSchemaError(f"{origin}: <{tag}> does not hold the row's own text {value!r}")
    return text[: start + len(tag) + 2] + placeholder + text[end:]


def options(question: str) -> dict[str, str]:
    """{letter: option text} of a recognition question (its ``الف) ...`` lines)."""
    return dict(re.findall(rf"^({'|'.join(LETTERS)})\) (.*)$", question, flags=re.M))


def salient_words(words: list[str]) -> str:
    return json.dumps(words, ensure_ascii=False)  # the files' form: ["تفاوت", "کجا"]


def completion_template(hafez_rows: list[Mapping[str, Any]], cue: str, origin: str) -> str:
    """The Hafez completion prompt of ``cue`` with ``{first}``, ``{prose}``, ``{shuffled}``, ``{words}`` in place
    of the item's texts; every row must give the same template (else the file is not the release's)."""
    column = COMPLETION_CUES[cue]
    templates: dict[str, int] = {}
    for i, row in enumerate(hafez_rows, start=1):  # rows counted from 1, as data/sources.py counts them
        where = f"{origin}: row {i}: field {column!r}"
        text = _replace_last(row[column], "first_verse", row["Couplet Text"].split(SEPARATOR)[0], "{first}", where)
        if cue in ("prose", "para"):
            text = _replace_last(text, "couplet_prose", tagged(text, "couplet_prose") or "", "{prose}", where)
        if cue == "shuffle":
            shuffled = tagged(text, "shuffled_second_verse") or ""
            text = _replace_last(text, "shuffled_second_verse", shuffled, "{shuffled}", where)
        if cue == "salient":
            text = text.rpartition("\n")[0] + "\n{words}"
        templates.setdefault(text, i)
    if len(templates) != 1:
        rows = sorted(templates.values())[:2]
        raise DataSchemaError(f"{origin}: field {column!r}: rows {rows[0]} and {rows[1]} use different templates")
    return next(iter(templates))


def _render(template: str, **parts: str) -> str:
    for name, value in parts.items():
        template = template.replace("{" + name + "}", value)
    return template


# --------------------------------------------------------------------------- docs
def _doc(poet: str, cue: str, poem: int, couplet: int, first: str, gold: str, prompt: str, **extra) -> dict:
    return {
        "poet": poet,
        "cue": cue,
        "poem": poem,
        "couplet": couplet,
        "first": first,
        "gold": gold,
        "prompt": prompt,
        **extra,
    }


def completion_docs(poet: str, cue: str, settings: Mapping[str, Any] | None = None) -> tuple[list[dict], str]:
    """(docs, provenance) of one completion task: ``poet`` hafez, saadi or shakespeare; ``cue`` a cue key."""
    if poet == "shakespeare":
        rows, provenance = load_rows(SOURCES["completion_english"], settings)
        column = COMPLETION_CUES[cue]
        docs = [
            _doc(poet, cue, r["Sonnet Number"], r["Couplet Number"], r["First Line"], r["Second Line"], r[column])
            for r in rows
        ]
        return docs, provenance
    hafez, hafez_provenance = load_rows(SOURCES["completion_hafez"], settings)
    if poet == "hafez":
        column = COMPLETION_CUES[cue]
        docs = [
            _doc(poet, cue, r["Ghazal Number"], r["Couplet Number"], *r["Couplet Text"].split(SEPARATOR), r[column])
            for r in hafez
        ]
        return docs, hafez_provenance
    if poet != "saadi" or cue not in SAADI_CUES:
        raise ValueError(f"no GhazalBench completion task for poet {poet!r} and cue {cue!r}")
    saadi, provenance = load_rows(SOURCES["completion_saadi"], settings)
    recognition, recognition_provenance = load_rows(SOURCES["recognition_saadi"], settings)
    origin = SOURCES["completion_saadi"].filename
    if len(recognition) != len(saadi):
        raise DataSchemaError(
            f"{origin}: {len(saadi)} rows, but {SOURCES['recognition_saadi'].filename} has {len(recognition)}"
        )
    template = completion_template(hafez, cue, SOURCES["completion_hafez"].filename).replace(
        POETS["hafez"], POETS["saadi"]
    )
    docs = []
    for i, (row, mc) in enumerate(zip(saadi, recognition), start=1):
        same = (row["Ghazal Number"], row["Couplet Number"], row["Couplet Text"]) == (
            mc["Ghazal Number"],
            mc["Couplet Number"],
            mc["Couplet Text"],
        )
        if not same:
            raise DataSchemaError(
                f"{origin}: row {i}: field 'Couplet Text' differs from {SOURCES['recognition_saadi'].filename} row {i}"
            )
        first, gold = row["Couplet Text"].split(SEPARATOR)
        parts = {"first": first}
        if cue == "prose":
            parts["prose"] = row["Prose"]
        elif cue == "para":
            parts["prose"] = tagged(mc["Question (+ Para)"], "couplet_prose") or ""
        elif cue == "shuffle":
            key = ast.literal_eval(mc["Answer Key (+ Shuffle)"])
            letter = next(k for k, v in key.items() if v == "Shuffled")
            parts["shuffled"] = options(mc["Question (+ Shuffle)"]).get(letter, "")
        docs.append(
            _doc(poet, cue, row["Ghazal Number"], row["Couplet Number"], first, gold, _render(template, **parts))
        )
    return docs, f"{provenance}; {recognition_provenance}; template from {hafez_provenance}"


def recognition_docs(poet: str, cue: str, settings: Mapping[str, Any] | None = None) -> tuple[list[dict], str]:
    """(docs, provenance) of one recognition task: the released question, its options and each option's role."""
    rows, provenance = load_rows(SOURCES[f"recognition_{poet}"], settings)
    question_column, key_column = RECOGNITION_CUES[cue]
    origin = SOURCES[f"recognition_{poet}"].filename
    docs = []
    for i, r in enumerate(rows, start=1):
        key = ast.literal_eval(r[key_column])
        found = options(r[question_column])
        if list(found) != list(key):
            raise DataSchemaError(
                f"{origin}: row {i}: field {question_column!r} lists options {list(found)}, the key {list(key)}"
            )
        first, gold = r["Couplet Text"].split(SEPARATOR)
        correct = next(k for k, v in key.items() if v == "Correct")
        if found[correct] != gold:
            raise DataSchemaError(f"{origin}: row {i}: field {key_column!r}: option {correct} is not the couplet's")
        docs.append(
            _doc(
                poet,
                cue,
                r["Ghazal Number"],
                r["Couplet Number"],
                first,
                gold,
                r[question_column],
                letters=list(key),
                option_texts=[found[k] for k in key],
                roles=[key[k] for k in key],
                answer=correct,
            )
        )
    return docs, provenance
