"""The installed hazm backend (hazm on Python >= 3.12, hazm-normalizer on 3.11) gives exactly
the output real hazm gave for the functions the pack uses (golden file written with hazm 0.11
on Python 3.12 by tests/taraz/hazm_golden.py)."""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

import pytest

from lm_eval_persian_culture.tasks.taraz import normalize
from tests.taraz import hazm_golden

GOLDEN = json.loads((Path(__file__).parent / "fixtures" / "hazm_golden.json").read_text(encoding="utf-8"))


def test_golden_was_written_by_real_hazm():
    assert GOLDEN["backend"] == "hazm" and GOLDEN["python"].startswith("3.12")


def test_backend_matches_python_version():
    assert normalize.HAZM_BACKEND == ("hazm" if sys.version_info >= (3, 12) else "hazm-normalizer")


@lru_cache(maxsize=1)
def installed() -> dict:
    return hazm_golden.compute()


# The functions the pack uses. hazm's Stemmer is not among them (it over-strips, and its output
# differs between the two: hazm 0.11 stems رفتند -> رفت, ادبیات -> ادبی; the fork leaves both).
@pytest.mark.parametrize("part", ["normalize", "lemmatize", "stopwords_count", "stopwords_sha256"])
def test_installed_backend_equals_real_hazm(part):
    assert installed()[part] == GOLDEN[part]


def test_both_stemmers_overstrip_tehran():
    assert installed()["stem"]["تهران"] == GOLDEN["stem"]["تهران"] != "تهران"


def test_backend_ships_hazms_lexicon():
    """Suffix stripping and fixed expressions read hazm's words.dat (tasks/taraz/normalize.lexicon_lemmas):
    the installed backend's file is byte for byte real hazm's (sha256 measured on hazm 0.12.1,
    Python 3.12: e9e212a7...)."""
    import hashlib

    try:
        from hazm.utils import default_words
    except ImportError:
        from hazm_normalizer.utils import default_words
    digest = hashlib.sha256(Path(default_words).read_bytes()).hexdigest()
    assert digest == "e9e212a774beb05c1bfe2fe7646d068e11e093f78696fc23fbbc2baa2b795fe1"
    assert len(normalize.lexicon_lemmas()) == 35316  # entries with a part-of-speech tag
