"""PerCul's data: the hub release ``teias-ai/percul`` (gated) or a local copy, validated.

This module is the benchmark's data contract, also used by TARAZ's PerCul-SAQ task; keep
its interface stable:

* ``CATEGORIES``: the 11 categories as the data spells them;
* ``SPLITS``: language -> split (``{"fa": "original_persian", "en": "gpt_english_translation"}``);
* ``load_items(split, settings=None) -> (items, provenance)``: validated items, each
  ``{"id": str, "category": one of CATEGORIES, "topic": str, "story": str,
  "options": [4 str], "answer_index": int 0-3}``, and the provenance string of the source.

Where the data comes from (``lm_eval_persian_culture.data.sources``): a local copy when a data dir
is set (``--metadata '{"data_dir": ...}'`` or ``PERSIAN_CULTURE_DATA_DIR``), laid out like
the hub, ``<data_dir>/percul/<split>.jsonl`` (or ``.csv`` / ``.parquet``) with the hub's
column names (ID, Category, Topic, Story, Choice 1-4, Correct Choice); otherwise the hub.
The tests' fixture data dir is ``tests/percul/fixtures`` (``percul/original_persian.jsonl``
and ``percul/gpt_english_translation.jsonl``).

Every row is checked before any model time: a category outside the 11, a Correct Choice
outside 1-4, an empty option or story, or a repeated ID is one error naming the file, row
and field. A gated or unreachable hub is one line saying what to do (no traceback through
``lm-eval-persian``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lm_eval_persian_culture.data.sources import (
    DATA_DIR_ENV,
    Column,
    DataNotFoundError,
    DataSchemaError,
    HubSource,
    Schema,
    SourceFile,
    id_problem,
    load_rows,
    resolve_data_dir,
)

BENCHMARK = "percul"
HUB_REPO = "teias-ai/percul"
HUB_URL = f"https://huggingface.co/datasets/{HUB_REPO}"
# The hub was unreachable from the machines this pack was written on, so the revision could
# not be read: pin it to the commit sha on the first networked run (tasks/percul/README.md).
HUB_REVISION = "main"

# The data's spelling (from the dataset card); the paper's tables write "Vis. Behavior",
# "Icon. Figs.", "Instit.". Matching ignores case and spacing, so "Visible Behavior" is read
# as "Visible behavior"; anything else is a schema error.
CATEGORIES = (
    "Foods",
    "Visible behavior",
    "Iconic figures",
    "Institution",
    "Architecture",
    "Objects",
    "Appropriacy",
    "Dress",
    "Music",
    "Art",
    "Rituals",
)
SPLITS = {"fa": "original_persian", "en": "gpt_english_translation"}
LOCAL_SUFFIXES = (".jsonl", ".csv", ".parquet")
OPTION_COLUMNS = ("Choice 1", "Choice 2", "Choice 3", "Choice 4")


def _key(text: str) -> str:
    return " ".join(str(text).split()).casefold()


_CATEGORY_BY_KEY = {_key(c): c for c in CATEGORIES}


def canonical_category(value: Any) -> str | None:
    """The category as CATEGORIES spells it, or None when it is not one of the 11."""
    return _CATEGORY_BY_KEY.get(_key(value)) if isinstance(value, str) else None


def _category_problem(value: str) -> str | None:
    if canonical_category(value) is None:
        return f"has value {value!r}, expected one of the 11 PerCul categories {list(CATEGORIES)}"
    return None


SCHEMA = Schema(
    (
        Column("ID", kind=object, check=id_problem),
        Column("Category", check=_category_problem),
        Column("Topic", allow_empty=True),
        Column("Story"),
        *(Column(name) for name in OPTION_COLUMNS),
        Column("Correct Choice", kind=int, choices=(1, 2, 3, 4)),
    )
)


def _check_split(split: str) -> None:
    if split not in SPLITS.values():
        raise ValueError(f"PerCul split {split!r}: expected one of {list(SPLITS.values())}")


def source_file(split: str, settings: Mapping | None = None) -> SourceFile:
    """The SourceFile of a split: the local copy that exists (.jsonl, .csv, .parquet) or the hub."""
    _check_split(split)
    hub = HubSource(HUB_REPO, HUB_REVISION, split=split)
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        folder = data_dir / BENCHMARK
        for suffix in LOCAL_SUFFIXES:
            if (folder / f"{split}{suffix}").is_file():
                return SourceFile(BENCHMARK, f"{split}{suffix}", SCHEMA, hub=hub)
        names = ", ".join(f"{split}{s}" for s in LOCAL_SUFFIXES)
        raise DataNotFoundError(
            f"{folder / (split + '.jsonl')}: not found. The data dir {data_dir} must hold "
            f"{BENCHMARK}/{split}.jsonl (or .csv / .parquet; looked for {names}) with the hub's columns; "
            f"unset data_dir/{DATA_DIR_ENV} to read {HUB_REPO} from the hub instead."
        )
    return SourceFile(BENCHMARK, f"{split}.jsonl", SCHEMA, hub=hub)


def _origin(source: SourceFile, settings: Mapping | None) -> str:
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        return str(data_dir / source.benchmark / source.filename)
    return f"hf:{HUB_REPO}@{HUB_REVISION} split={source.hub.split}"


def _is_gated(err: BaseException) -> bool:
    """A refusal for lack of access: gated repo, 401/403, or datasets' 'gated dataset' message."""
    seen = set()
    while err is not None and id(err) not in seen:
        seen.add(id(err))
        name = type(err).__name__
        text = str(err).lower()
        status = getattr(getattr(err, "response", None), "status_code", None)
        if name == "GatedRepoError" or "gated" in text or status in (401, 403):
            return True
        err = err.__cause__ or err.__context__
    return False


def hub_error(split: str, err: BaseException) -> DataNotFoundError:
    """One line telling the user what to do when the hub refuses or cannot be reached."""
    local = f'or pass a local copy: --metadata \'{{"data_dir": "DIR"}}\' with DIR/{BENCHMARK}/{split}.jsonl'
    if _is_gated(err):
        return DataNotFoundError(
            f"PerCul ({HUB_REPO}) is a gated dataset: accept its terms on {HUB_URL} while logged in, then log in "
            f"here with `huggingface-cli login` (or set HF_TOKEN); {local}."
        )
    return DataNotFoundError(
        f"PerCul ({HUB_REPO}@{HUB_REVISION}, split {split}) could not be read from the hub "
        f"({type(err).__name__}: {' '.join(str(err).split())[:300]}); check the connection and that "
        f"HF_HUB_OFFLINE/HF_DATASETS_OFFLINE are unset, {local}."
    )


def _check_unique_ids(rows, origin: str) -> None:
    seen: dict[str, int] = {}
    for i, row in enumerate(rows, start=1):  # rows counted from 1
        key = str(row["ID"]).strip()
        if key in seen:
            raise DataSchemaError(f"{origin}: row {i}: field 'ID' value {row['ID']!r} repeats row {seen[key]}")
        seen[key] = i


def load_items(split: str, settings: Mapping | None = None) -> tuple[list[dict], str]:
    """Validated items of one split (see the module docstring) and the provenance string."""
    source = source_file(split, settings)
    try:
        rows, provenance = load_rows(source, settings)
    except (DataSchemaError, DataNotFoundError):
        raise
    except Exception as err:  # the hub refused (gated), is unreachable, or has no such split
        if resolve_data_dir(settings) is not None:
            raise
        raise hub_error(split, err) from None
    _check_unique_ids(rows, _origin(source, settings))
    items = [
        {
            "id": str(row["ID"]).strip(),
            "category": canonical_category(row["Category"]),
            "topic": str(row["Topic"]).strip(),
            "story": str(row["Story"]).strip(),
            "options": [str(row[c]).strip() for c in OPTION_COLUMNS],
            "answer_index": int(row["Correct Choice"]) - 1,
        }
        for row in rows
    ]
    return items, provenance


__all__ = ["CATEGORIES", "SPLITS", "HUB_REPO", "HUB_REVISION", "canonical_category", "load_items", "source_file"]
