"""Reliability fixtures: the tiny offline embedding model TARAZ's tasks need (built once per session)."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="session")
def tiny_embedder(tmp_path_factory):
    from tests.taraz.tiny_embedder import build_tiny_embedder

    return build_tiny_embedder(tmp_path_factory.mktemp("tiny-bert"))
