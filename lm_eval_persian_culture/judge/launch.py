"""Several processes, one run: who asks the judge under multi-process launches.

lm-eval runs the judge (a filter) in every process it is launched in, and what each process does
depends on the launch:

* one process (``lm_eval``, vLLM's tensor or data parallel, a served model): it judges everything;
* data parallel (``accelerate launch -m lm_eval``): lm-eval gives each rank its own docs (its
  ``lm.world_size`` > 1), each rank judges only its shard, and rank 0 gathers the per-doc values;
  nothing to coordinate;
* every process runs the whole loop (``torchrun`` with HF ``tp_plan=auto``: each process reports
  rank 0 / world size 1 to lm-eval, while ``WORLD_SIZE`` > 1, and only ``LOCAL_RANK`` 0 writes
  results): without coordination each process would ask the judge for every verdict. Here the
  ``LOCAL_RANK`` 0 process (the one whose results lm-eval writes) judges, and the others wait until
  it has finished that batch, then read its verdicts from the shared cache and ask for nothing.

Batches are matched by their order within the process (per prompt template), not by their prompts,
so a process whose replies differ from the judging one's (sampled decoding) still waits for the same
batch (and gets errors, never requests, for the prompts the judging process did not have). Should
the judging process never reach a batch (its replies needed no judging there), its exit releases
the waiting processes: it leaves a marker file for its launch in the temp folder when it ends.
"""

from __future__ import annotations

import atexit
import hashlib
import os
import tempfile
import time
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from lm_eval_persian_culture.lm_eval_stack import lm_eval_world_size


@dataclass(frozen=True)
class Launch:
    """This process's place in its launch, from the launcher's environment (torchrun, accelerate)."""

    rank: int
    local_rank: int
    world_size: int
    launch_id: str

    @classmethod
    def from_env(cls, env: Mapping[str, str] | None = None) -> Launch:
        env = os.environ if env is None else env
        local_rank = _int(env.get("LOCAL_RANK"))
        rank = _int(env.get("RANK"), default=local_rank)
        world_size = max(_int(env.get("WORLD_SIZE"), default=1), 1)
        return cls(rank, local_rank, world_size, _launch_id(env))

    @property
    def first(self) -> bool:
        """The launch's first process: the pre-flight runs here only."""
        return self.rank == 0 and self.local_rank == 0


def _int(value: str | None, default: int = 0) -> int:
    try:
        return int(value) if value not in (None, "") else default
    except ValueError:
        return default


def _launch_id(env: Mapping[str, str]) -> str:
    """The same in every process of one launch, different in the next one.

    torchrun (and accelerate, which uses it) gives every worker the same rendezvous id and master
    address; a run id of "none" (torchrun without ``--rdzv-id`` or ``--standalone``) is the same from
    one launch to the next, so the launcher's pid (every worker's parent) tells launches apart.
    """
    run_id = env.get("TORCHELASTIC_RUN_ID", "")
    parts = [
        run_id,
        env.get("MASTER_ADDR", ""),
        env.get("MASTER_PORT", ""),
        env.get("TORCHELASTIC_RESTART_COUNT", ""),
        str(os.getppid()) if run_id in ("", "none") else "",
    ]
    return hashlib.sha256("\x00".join(parts).encode()).hexdigest()[:16]


@dataclass(frozen=True)
class SharedBatch:
    """One judge batch that every process of a launch runs: the ``judging`` one asks, the others wait."""

    launch_id: str
    batch_id: str
    judging: bool
    local_rank: int


_batch_numbers: Counter[str] = Counter()


def shared_batch(template_id: str, launch: Launch | None = None, world_size: int | None = None) -> SharedBatch | None:
    """The batch's coordination when every process of this launch runs the whole loop, else None.

    ``world_size``: lm-eval's (found on the call stack when not given). None (no coordination) for
    one process, for data parallel (each rank has its own docs) and outside an lm-eval evaluation.
    """
    launch = launch or Launch.from_env()
    if launch.world_size <= 1:
        return None
    world_size = lm_eval_world_size() if world_size is None else world_size
    if world_size != 1:
        return None
    number = _batch_numbers[template_id]
    _batch_numbers[template_id] += 1
    return SharedBatch(launch.launch_id, f"{template_id}#{number}", launch.local_rank == 0, launch.local_rank)


_ENDED_MARKERS_KEPT_S = 24 * 3600


def _ended_marker(launch_id: str) -> Path:
    return Path(tempfile.gettempdir()) / f"lm_eval_persian_culture-launch-{launch_id}.ended"


def judging_process_ended(launch_id: str) -> bool:
    """Whether this launch's judging process (LOCAL_RANK 0 on this machine) has exited."""
    return _ended_marker(launch_id).exists()


def _mark_ended(launch_id: str) -> None:
    try:
        _ended_marker(launch_id).touch()
    except OSError:  # a read-only temp folder: the waiting processes then wait for the launcher to stop them
        pass


def _watch_for_own_end() -> None:
    launch = Launch.from_env()
    if launch.world_size > 1 and launch.local_rank == 0:
        atexit.register(_mark_ended, launch.launch_id)
        stale = time.time() - _ENDED_MARKERS_KEPT_S
        for old in Path(tempfile.gettempdir()).glob(_ended_marker("*").name):
            try:
                if old.stat().st_mtime < stale:
                    old.unlink()
            except OSError:
                pass


_watch_for_own_end()


def _reset_batch_numbers() -> None:  # for tests that run several evaluations in one process
    _batch_numbers.clear()


__all__ = ["Launch", "SharedBatch", "judging_process_ended", "shared_batch"]
