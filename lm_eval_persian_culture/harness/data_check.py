"""``lm-eval-persian data``: where each benchmark's data comes from, what a user needs for it, and whether
it is ready in the current setup, before any model time.

The five benchmarks differ: TaarofBench, BLEnD and ISN are public files on GitHub pinned to a commit;
DivanBench is a Hugging Face hub dataset whose layout could not be verified from the machines the pack was
written on; PerCul is gated on the hub (a token and accepted terms); TARAZ's ISN-SAQ file and CAC's data
are not published where the pack can download them (bring your own copy in the documented layout).

With a data dir (``--data_dir``, ``--metadata '{"data_dir": ...}'`` or ``PERSIAN_CULTURE_DATA_DIR``) each
dataset is read and checked by the benchmark's own loader (the same schema checks a run makes). Without
one, the online release is probed with one request (no retries, a few seconds at most; the hub's access check
for gated data), unless the
hub/datasets offline switches are set or ``--no-network`` is given.
"""

from __future__ import annotations

import argparse
import os
import sys
import urllib.error
import urllib.request
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Mapping, Sequence

from lm_eval_persian_culture.data.sources import DATA_DIR_ENV, DataNotFoundError, DataSchemaError, resolve_data_dir

PROBE_TIMEOUT_S = 5.0
PUBLIC, GATED, UNPUBLISHED = "public", "gated (Hugging Face token)", "not published: bring your own copy"
OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


@dataclass(frozen=True)
class Dataset:
    """One dataset a group of the pack's tasks reads."""

    name: str
    tasks: tuple[str, ...]  # the tasks (and groups) that read it; a trailing * matches a prefix
    access: str  # PUBLIC, GATED or UNPUBLISHED
    online: str  # where the online release lives ("" when there is none)
    files: tuple[str, ...]  # under <data_dir>
    layout: str  # the file format and fields the loader expects
    load: Callable[[dict], str]  # reads and checks the data under these settings; returns what it found
    probe_url: str | None = None  # one URL whose answer tells whether the online release can be read
    hub_repo: str | None = None
    note: str = ""

    def serves(self, task: str) -> bool:
        return any(task == t or (t.endswith("*") and task.startswith(t[:-1])) for t in self.tasks)

    @property
    def needs(self) -> str:
        if self.access == PUBLIC:
            return "nothing: read online at run time; offline, a local copy in a data dir (layout above)"
        if self.access == GATED:
            return (f"accept the terms on https://huggingface.co/datasets/{self.hub_repo} and log in "
                    "(`huggingface-cli login` or HF_TOKEN); or a local copy in a data dir (layout above)")
        return "your own copy in a data dir, in the layout above"


# --------------------------------------------------------------------------- the loaders, one per dataset
def _rows(found: Sequence[tuple[str, int]]) -> str:
    return ", ".join(f"{name}: {n} rows" for name, n in found)


def _taarof(settings: dict) -> str:
    from lm_eval_persian_culture.data.sources import load_rows
    from lm_eval_persian_culture.tasks.taarof.utils import SOURCES

    return _rows([(s.filename, len(load_rows(s, settings)[0])) for s in SOURCES.values()])


def _divan(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.divan.utils import SOURCES, load_items

    return _rows([(SOURCES[k].filename, len(load_items(k, settings)[0])) for k in ("factual", "binary", "scenario")])


def _percul(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.percul import source

    return _rows([(source.source_file(split, settings).filename, len(source.load_items(split, settings)[0]))
                  for split in source.SPLITS.values()])


def _one_source(module: str, name: str) -> Callable[[dict], str]:
    def load(settings: dict) -> str:
        import importlib

        from lm_eval_persian_culture.data.sources import load_rows

        src = getattr(importlib.import_module(module), name)
        return _rows([(src.filename, len(load_rows(src, settings)[0]))])

    return load


def _cac(settings: dict) -> str:
    from lm_eval_persian_culture.tasks.cac.utils import ANNOTATIONS, COUNTRIES, CONVERSATIONS, build_docs

    docs = build_docs(COUNTRIES, ANNOTATIONS, settings)  # both files and the checks across them
    return f"{CONVERSATIONS.filename} + {ANNOTATIONS.filename}: {len(docs)} docs ({len(COUNTRIES)} countries)"


TARAZ_UTILS = "lm_eval_persian_culture.tasks.taraz.utils"
DATASETS: tuple[Dataset, ...] = (
    Dataset(
        "TaarofBench", ("taarof*",), PUBLIC,
        "GitHub niktaas/TAAROFBENCH at commit 6643f6c (CC0)",
        ("taarof/taarof-expected.jsonl", "taarof/non-taarof.jsonl"),
        "the release's JSON lines, fields Setting, Topic, Type, Environment, User Role, LLM Role, Context, "
        "Utterance, Annotations",
        _taarof,
        probe_url="https://raw.githubusercontent.com/niktaas/TAAROFBENCH/6643f6c993c7b28eb8c09dab824bdb9f49009978/"
                  "data/taarof-expected.jsonl",
    ),
    Dataset(
        "DivanBench", ("divan*",), PUBLIC,
        "Hugging Face hub divanbench/divanbench (configs factual, binary, scenario; revision not pinned)",
        ("divan/factual.jsonl", "divan/binary.jsonl", "divan/scenario.jsonl"),
        "JSON lines; factual and scenario: id, question, option_a-option_d, answer (A-D); binary: id, pair_id, "
        "polarity (positive/negative), statement, answer (yes/no), one positive and one negative row per pair_id",
        _divan,
        probe_url="https://huggingface.co/api/datasets/divanbench/divanbench", hub_repo="divanbench/divanbench",
        note="the hub's layout was never verified from the pack's machines: if it does not fit, loading stops "
             "listing the columns found; a local copy in the layout above always works",
    ),
    Dataset(
        "PerCul", ("percul*", "taraz_percul_saq*", "taraz", "taraz_judged"), GATED,
        "Hugging Face hub teias-ai/percul (gated), splits original_persian and gpt_english_translation",
        ("percul/original_persian.jsonl", "percul/gpt_english_translation.jsonl"),
        "the hub's columns ID, Category, Topic, Story, Choice 1-Choice 4, Correct Choice (1-4); .jsonl, .csv or "
        ".parquet",
        _percul,
        # the hub's access check: 200 with a token that may read the files, 403 when the terms are not accepted
        probe_url="https://huggingface.co/api/datasets/teias-ai/percul/auth-check", hub_repo="teias-ai/percul",
    ),
    Dataset(
        "TARAZ: BLEnD Iran", ("taraz_blend*", "taraz", "taraz_judged"), PUBLIC,
        "GitHub nlee0212/BLEnD at commit 24e7d73 (data/annotations/Iran_data.json)",
        ("taraz/blend_iran/Iran_data.json",),
        "BLEnD's JSON object keyed by question id (question, annotations, idks)",
        _one_source(TARAZ_UTILS, "BLEND_SOURCE"),
        probe_url="https://raw.githubusercontent.com/nlee0212/BLEnD/24e7d732c082c224b3bc9c7dc3b884fe83fb8cc8/"
                  "data/annotations/Iran_data.json",
    ),
    Dataset(
        "TARAZ: ISN-SAQ", ("taraz_isn_saq", "taraz_isn_saq_judged", "taraz", "taraz_judged"), UNPUBLISHED, "",
        ("taraz/ISN/isn_farsi_saq.csv",),
        "CSV (UTF-8, header row) with columns id, question, answer (Persian), TARAZ's 535 questions",
        _one_source(TARAZ_UTILS, "ISN_SAQ_SOURCE"),
        note="TARAZ's own file (github.com/Georgetown-IR-Lab/TARAZ, ISN/isn_farsi_saq.csv) could not be reached; "
             "taraz_isn_saq_derived runs on the public ISN instead",
    ),
    Dataset(
        "TARAZ: ISN (derived questions)", ("taraz_isn_saq_derived*",), PUBLIC,
        "GitHub hamidds/PSND at commit be9ae9b",
        ("taraz/isn/[ISN] FINAL - wo_demographiccols-updated.csv",),
        "the release's CSV, columns ID, Label, scope - EN, Norm - FA, Environment - FA",
        _one_source(TARAZ_UTILS, "ISN_SOURCE"),
        probe_url="https://raw.githubusercontent.com/hamidds/PSND/be9ae9b8b3aeed14188a1bdd1a637d9c9a95f7cc/"
                  "%5BISN%5D%20FINAL%20-%20wo_demographiccols-updated.csv",
    ),
    Dataset(
        "CAC", ("cac*",), UNPUBLISHED, "",
        ("cac/conversations.jsonl", "cac/annotations.jsonl"),
        "JSON lines; conversations: id, situation, relationship, stylistic_axis, characters, first_turn, "
        "response_1-response_5; annotations: conversation_id, country, annotator, pick (1-5), every conversation "
        "picked by every country (cac_iran also needs cac/annotations_iran.jsonl)",
        _cac,
        note="the authors' repository (github.com/shreyahavaldar/culturally_aware_conversations) could not be read "
             "when the pack was written, so the pack has no downloader; convert its data into this layout "
             "(tasks/cac/README.md)",
    ),
)
SUITE = "persian_culture"


def suite_members() -> list[str]:
    """The suite's members as its YAML lists them."""
    import yaml

    from lm_eval_persian_culture import TASKS_DIR

    config = yaml.safe_load((TASKS_DIR / f"{SUITE}.yaml").read_text(encoding="utf-8")) or {}
    return [m for m in config.get("task") or [] if isinstance(m, str)]


# --------------------------------------------------------------------------- status in this setup
@dataclass
class Status:
    dataset: Dataset
    ready: bool
    state: str  # "ready", "missing", "invalid", "offline", "unreachable", "needs token", "refused", "not checked"
    detail: str
    tasks: list[str] = field(default_factory=list)


def _offline() -> list[str]:
    return [name for name in OFFLINE_ENV if os.environ.get(name, "").strip().lower() in ("1", "true", "yes", "on")]


def _hf_token() -> str | None:
    token = os.environ.get("HF_TOKEN") or os.environ.get("HUGGING_FACE_HUB_TOKEN")
    if token:
        return token
    try:
        from huggingface_hub import get_token

        return get_token()
    except Exception:  # noqa: BLE001 - no hub client or no token file: no token
        return None


def probe(url: str, token: str | None = None, timeout: float = PROBE_TIMEOUT_S) -> tuple[int | None, str]:
    """(HTTP status, reason) of one request; (None, reason) when the host cannot be reached. The hub's API
    answers GET (a small JSON); raw files get HEAD, so nothing is downloaded."""
    method = "GET" if "/api/" in url else "HEAD"
    request = urllib.request.Request(url, method=method)
    if token:
        request.add_header("Authorization", f"Bearer {token}")
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310 - fixed https URLs
            return response.status, "OK"
    except urllib.error.HTTPError as err:
        return err.code, str(err.reason)
    except (urllib.error.URLError, OSError) as err:
        reason = getattr(err, "reason", err)
        return None, f"{type(reason).__name__}: {reason}"


def local_copy_hint(ds: Dataset, data_dir: Path | str = "<data_dir>") -> str:
    return ", ".join(f"{data_dir}/{f}" for f in ds.files)


def check(ds: Dataset, settings: Mapping, network: bool = True,
          probe_fn: Callable[..., tuple[int | None, str]] = probe) -> Status:
    data_dir = resolve_data_dir(settings)
    if data_dir is not None:
        try:
            found = ds.load(dict(settings))
        except DataNotFoundError as err:
            return Status(ds, False, "missing", f"{_first_line(err)}")
        except DataSchemaError as err:
            return Status(ds, False, "invalid", f"{_first_line(err)}")
        except Exception as err:  # noqa: BLE001 - any other reason the loader refused, said as it is
            return Status(ds, False, "invalid", f"{type(err).__name__}: {_first_line(err)}")
        return Status(ds, True, "ready", f"local copy in {data_dir}: {found}")
    put = f"put a copy at {local_copy_hint(ds)} and set data_dir"
    if ds.access == UNPUBLISHED:
        return Status(ds, False, "missing", f"no online release the pack can read: {put}")
    offline = _offline()
    if offline:
        return Status(ds, False, "offline", f"{' and '.join(offline)} set, so the online release cannot be read: {put}")
    token = _hf_token() if ds.hub_repo else None
    if ds.access == GATED and not token:
        return Status(ds, False, "needs token",
                      f"no Hugging Face token found: accept the terms on https://huggingface.co/datasets/{ds.hub_repo}, "
                      f"then `huggingface-cli login` (or set HF_TOKEN); or {put}")
    if not network or not ds.probe_url:
        return Status(ds, False, "not checked", f"online release not probed (--no-network); {ds.online}")
    status, reason = probe_fn(ds.probe_url, token)
    if status is None:
        return Status(ds, False, "unreachable", f"{ds.probe_url} cannot be reached ({reason}): {put}")
    if status in (401, 403):
        return Status(ds, False, "refused",
                      f"the hub refused the token (HTTP {status}): accept the terms on "
                      f"https://huggingface.co/datasets/{ds.hub_repo} with that account; or {put}")
    if status >= 400:
        return Status(ds, False, "unreachable", f"{ds.probe_url} answered HTTP {status} ({reason}): {put}")
    return Status(ds, True, "ready", f"online release reachable ({ds.online}); read at run time")


def _first_line(err: BaseException) -> str:
    return (str(err).strip().splitlines() or [""])[0]


def datasets_for(tasks: Sequence[str]) -> list[tuple[Dataset, list[str]]]:
    """The datasets the named tasks read (the suite expands to its members), each with the tasks asking for it."""
    names = [m for t in tasks for m in (suite_members() if t == SUITE else [t])]
    out: list[tuple[Dataset, list[str]]] = []
    for ds in DATASETS:
        asked = [t for t in names if ds.serves(t)]
        if asked:
            out.append((ds, asked))
    return out


def member_statuses(statuses: Sequence[Status]) -> dict[str, list[Status]]:
    """persian_culture member -> the statuses of the datasets it reads."""
    return {m: [s for s in statuses if s.dataset.serves(m)] for m in suite_members()}


# --------------------------------------------------------------------------- output
def format_table(statuses: Sequence[Status], data_dir: Path | None) -> str:
    where = f"data dir {data_dir}" if data_dir else f"no data dir set (--data_dir or ${DATA_DIR_ENV}): online releases"
    lines = [f"Benchmark data for lm-eval-persian-culture ({where})", ""]
    for s in statuses:
        ds = s.dataset
        mark = "ready" if s.ready else s.state
        lines.append(f"[{mark}] {ds.name} ({', '.join(ds.tasks)}): {ds.access}")
        lines.append(f"    status:  {s.detail}")
        if ds.online:
            lines.append(f"    online:  {ds.online}")
        lines.append(f"    local:   {local_copy_hint(ds)}")
        lines.append(f"    format:  {ds.layout}")
        if not s.ready:
            lines.append(f"    needs:   {ds.needs}")
        if ds.note:
            lines.append(f"    note:    {ds.note}")
        lines.append("")
    members = member_statuses(statuses)
    if all(members.values()):
        ready = [m for m, ss in members.items() if all(s.ready for s in ss)]
        blocked = [m for m in members if m not in ready]
        lines.append(f"{SUITE}: {len(ready)} of {len(members)} members ready ({', '.join(ready) or 'none'})"
                     + (f"; cannot run: {', '.join(blocked)}" if blocked else ""))
        if blocked and ready:
            lines.append(f"  run the ready ones alone with --tasks {','.join(ready)}")
    lines.append("TARAZ's embedding metrics also need a sentence-embedding model (`embedding_model`; "
                 "see lm_eval_persian_culture/tasks/taraz/README.md).")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lm-eval-persian data",
        description="Which benchmarks' data is ready in this setup, where each comes from and what it needs. "
                    "Exit status 0 when every dataset asked about is ready, 1 otherwise.")
    parser.add_argument("--data_dir", default=None, help=f"a local data dir (default: ${DATA_DIR_ENV})")
    parser.add_argument("--metadata", default=None, help="run settings as JSON, as in `run --metadata` (data_dir)")
    parser.add_argument("--tasks", default=None, help="only the datasets these tasks read (comma-separated; "
                                                      f"{SUITE} = its members)")
    parser.add_argument("--no-network", "--no_network", dest="network", action="store_false",
                        help="do not probe the online releases")
    args = parser.parse_args(argv)
    from lm_eval_persian_culture.errors import UserInputError
    from lm_eval_persian_culture.harness.preflight import _parse_metadata

    settings = _parse_metadata(args.metadata)
    if args.data_dir:
        settings["data_dir"] = args.data_dir
    data_dir = resolve_data_dir(settings)
    if data_dir is not None and not data_dir.is_dir():
        raise UserInputError(f"data_dir {data_dir}: no such folder")
    if args.tasks:
        names = [t.strip() for t in args.tasks.split(",") if t.strip()]
        chosen = datasets_for(names)
        unknown = [t for t in names if t != SUITE and not any(ds.serves(t) for ds in DATASETS)]
        if unknown:
            raise UserInputError(f"--tasks: {', '.join(unknown)} read no dataset the pack knows "
                                 f"(pack tasks start with taarof, divan, percul, taraz or cac)")
    else:
        chosen = [(ds, []) for ds in DATASETS]
    statuses = []
    for ds, asked in chosen:
        status = check(ds, settings, network=args.network)
        status.tasks = asked
        statuses.append(status)
    print(format_table(statuses, data_dir))
    return 0 if all(s.ready for s in statuses) else 1


if __name__ == "__main__":
    sys.exit(main())
