"""``lm-eval-persian data``: where each benchmark's data comes from, what a user needs for it, and whether
it is ready in the current setup, before any model time.

Each benchmark folder declares its datasets (``datasets`` in ``tasks/<benchmark>/benchmark.py``): where the
release lives, whether it is public, gated or unpublished, its layout under a data dir, and a loader.

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
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from lm_eval_persian_culture.data.sources import DATA_DIR_ENV, DataNotFoundError, DataSchemaError, resolve_data_dir
from lm_eval_persian_culture.tasks._benchmark import (
    GATED,
    UNPUBLISHED,
    Dataset,
    Requirement,
    all_datasets,
    all_requirements,
    benchmarks,
)

PROBE_TIMEOUT_S = 5.0
OFFLINE_ENV = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
# every benchmark folder declares the datasets its tasks read (tasks/<benchmark>/benchmark.py)
DATASETS: tuple[Dataset, ...] = all_datasets()


SUITE = "persian_culture"


def suite_members() -> list[str]:
    """The suite's members as its YAML lists them."""
    import yaml

    from lm_eval_persian_culture.tasks._benchmark import SUITE_YAML

    config = yaml.safe_load(SUITE_YAML.read_text(encoding="utf-8")) or {}
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


def check(
    ds: Dataset, settings: Mapping, network: bool = True, probe_fn: Callable[..., tuple[int | None, str]] = probe
) -> Status:
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
        return Status(
            ds,
            False,
            "needs token",
            f"no Hugging Face token found: accept the terms on https://huggingface.co/datasets/{ds.hub_repo}, "
            f"then `huggingface-cli login` (or set HF_TOKEN); or {put}",
        )
    if not network or not ds.probe_url:
        return Status(ds, False, "not checked", f"online release not probed (--no-network); {ds.online}")
    status, reason = probe_fn(ds.probe_url, token)
    if status is None:
        return Status(ds, False, "unreachable", f"{ds.probe_url} cannot be reached ({reason}): {put}")
    if status in (401, 403):
        return Status(
            ds,
            False,
            "refused",
            f"the hub refused the token (HTTP {status}): accept the terms on "
            f"https://huggingface.co/datasets/{ds.hub_repo} with that account; or {put}",
        )
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


@dataclass
class Need:
    """A requirement beyond data files (``Benchmark.requirements``) and whether this setup meets it."""

    requirement: Requirement
    met: bool
    detail: str


def check_requirement(req: Requirement, settings: Mapping) -> Need:
    try:
        met, detail = req.check(dict(settings))
    except Exception as err:  # noqa: BLE001 - a check that fails says so, never a traceback
        met, detail = False, f"{type(err).__name__}: {_first_line(err)}"
    return Need(req, met, detail)


def requirements_for(tasks: Sequence[str]) -> list[Requirement]:
    """The requirements of the named tasks (the suite expands to its members); all of them when none are named."""
    names = [m for t in tasks for m in (suite_members() if t == SUITE else [t])]
    return [r for r in all_requirements() if not names or any(r.serves(t) for t in names)]


def runnable_members(statuses: Sequence[Status], needs: Sequence[Need]) -> tuple[list[str], dict[str, list[str]]]:
    """The suite's members that can run here (their data ready, their judge and models found), and for
    the others what stops them."""
    ready, blocked = [], {}
    for member, data in member_statuses(statuses).items():
        why = [f"data ({s.dataset.name}: {s.state})" for s in data if not s.ready]
        why += [n.requirement.name for n in needs if n.requirement.serves(member) and not n.met]
        if why:
            blocked[member] = why
        else:
            ready.append(member)
    return ready, blocked


# --------------------------------------------------------------------------- output
def format_table(statuses: Sequence[Status], data_dir: Path | None, needs: Sequence[Need] = ()) -> str:
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
    if needs:
        lines.append("Beyond data files:")
        for n in needs:
            lines.append(f"[{'ready' if n.met else 'missing'}] {n.requirement.name} ({', '.join(n.requirement.tasks)})")
            lines.append(f"    status:  {n.detail}")
        lines.append("")
    members = member_statuses(statuses)
    if all(members.values()):
        ready, blocked = runnable_members(statuses, needs)
        lines.append(
            f"{SUITE}: {len(ready)} of {len(members)} members ready ({', '.join(ready) or 'none'})"
            + (f"; cannot run: {', '.join(blocked)}" if blocked else "")
        )
        if blocked and ready:
            lines.append(
                f"  run the ready ones alone with --tasks {','.join(ready)}, or run the suite with "
                "--metadata '{\"suite_skip_unavailable\": true}' (the skipped members are recorded in the results)"
            )
    shown = {s.dataset.name for s in statuses}
    lines += [b.data_note for b in benchmarks().values() if b.data_note and any(ds.name in shown for ds in b.datasets)]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="lm-eval-persian data",
        description="Which benchmarks' data is ready in this setup, where each comes from and what it needs. "
        "Exit status 0 when every dataset asked about is ready, 1 otherwise.",
    )
    parser.add_argument("--data_dir", default=None, help=f"a local data dir (default: ${DATA_DIR_ENV})")
    parser.add_argument("--metadata", default=None, help="run settings as JSON, as in `run --metadata` (data_dir)")
    parser.add_argument(
        "--tasks", default=None, help=f"only the datasets these tasks read (comma-separated; {SUITE} = its members)"
    )
    parser.add_argument(
        "--no-network", "--no_network", dest="network", action="store_false", help="do not probe the online releases"
    )
    args = parser.parse_args(argv)
    from lm_eval_persian_culture.errors import UserInputError
    from lm_eval_persian_culture.harness.resolve import parse_metadata

    settings = parse_metadata(args.metadata)
    if args.data_dir:
        settings["data_dir"] = args.data_dir
    data_dir = resolve_data_dir(settings)  # a data dir that is no folder: one line, as in a run
    names: list[str] = []
    if args.tasks:
        names = [t.strip() for t in args.tasks.split(",") if t.strip()]
        chosen = datasets_for(names)
        unknown = [t for t in names if t != SUITE and not any(ds.serves(t) for ds in DATASETS)]
        if unknown:
            raise UserInputError(
                f"--tasks: {', '.join(unknown)} read no dataset the pack knows "
                f"(the pack's benchmarks: {', '.join(benchmarks())})"
            )
    else:
        chosen = [(ds, []) for ds in DATASETS]
    statuses = []
    for ds, asked in chosen:
        status = check(ds, settings, network=args.network)
        status.tasks = asked
        statuses.append(status)
    needs = [check_requirement(r, settings) for r in requirements_for(names if args.tasks else [])]
    print(format_table(statuses, data_dir, needs))
    return 0 if all(s.ready for s in statuses) and all(n.met for n in needs) else 1


if __name__ == "__main__":
    sys.exit(main())
