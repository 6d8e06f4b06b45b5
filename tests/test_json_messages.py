"""Messages about malformed JSON name the place once ("starting at line 1, column 12", never "at at")."""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.errors import UserInputError
from lm_eval_persian_culture.harness.resolve import parse_metadata
from lm_eval_persian_culture.report.runs import ReportInputError, read_results_file


def test_truncated_results_file_message(tmp_path):
    path = tmp_path / "results_x.json"
    text = '{"results": {"taarof": "cut'
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReportInputError) as err:
        read_results_file(path)
    column = text.index('"cut') + 1
    assert f"{path}: not valid JSON (Unterminated string starting at line 1, column {column});" in str(err.value)
    assert "at at" not in str(err.value)


def test_metadata_that_is_not_json_message():
    text = '{"judge_model": "gpt-4'
    with pytest.raises(UserInputError) as err:
        parse_metadata(text)
    column = text.index('"gpt') + 1
    assert f"--metadata is not valid JSON (Unterminated string starting at line 1, column {column})" in str(err.value)
    assert "at at" not in str(err.value)
