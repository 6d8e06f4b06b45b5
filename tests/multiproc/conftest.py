"""Fixtures of the multi-process tests."""

from __future__ import annotations

from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def launch_data_dir(shared_data, tmp_path_factory) -> Path:
    """TaarofBench's real release beside the DivanBench and PerCul fixtures, as one data_dir."""
    root = tmp_path_factory.mktemp("data")
    (root / "taarof").symlink_to(shared_data / "taarof")
    (root / "divan").symlink_to(REPO / "tests" / "divan" / "fixtures" / "divan")
    (root / "percul").symlink_to(REPO / "tests" / "percul" / "fixtures" / "percul")
    return root
