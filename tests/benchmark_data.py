"""A data dir with every benchmark's test data, found by folder (nothing here names a benchmark).

Each benchmark's data comes from its tests' fixtures when they hold a folder in the data-dir layout
(``tests/<benchmark>/fixtures/<benchmark>/``), else from ``../shared/data/<benchmark>`` where the real files
could be obtained. A new benchmark folder with either is picked up with no edit here.
"""

from __future__ import annotations

from pathlib import Path

from lm_eval_persian_culture.tasks._benchmark import benchmark_folders

TESTS = Path(__file__).resolve().parent


def benchmark_data_source(benchmark: str, shared_data: Path) -> Path | None:
    """Where a benchmark's test data lives: its fixture folder, else the shared data, else None."""
    for candidate in (TESTS / benchmark / "fixtures" / benchmark, Path(shared_data) / benchmark):
        if candidate.is_dir():
            return candidate
    return None


def link_benchmark_data(data_dir: Path, shared_data: Path) -> Path:
    """``data_dir/<benchmark>`` linked to each benchmark's test data; returns ``data_dir``."""
    data_dir.mkdir(parents=True, exist_ok=True)
    for folder in benchmark_folders():
        source = benchmark_data_source(folder.name, shared_data)
        if source is not None:
            (data_dir / folder.name).symlink_to(source)
    return data_dir
