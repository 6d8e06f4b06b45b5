"""What a user sees through ``lm-eval-persian`` when a MasalBench file is malformed: one line naming the file, the
row and the field, exit status 2, no traceback, before any model loads."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from masal_testlib import FIXTURES

from lm_eval_persian_culture.tasks.masal.utils import extractor_question

BIN = Path(sys.executable).parent


def test_a_bad_answer_key_is_one_line_before_the_model_loads(tmp_path):
    shutil.copytree(FIXTURES / "masal", tmp_path / "masal")
    path = tmp_path / "masal" / "contextualQuestions.csv"
    path.write_text(path.read_text(encoding="utf-8").replace("'Literal Trap'", "'Literal'", 1), encoding="utf-8")
    proc = subprocess.run(
        [str(BIN / "lm-eval-persian"), "validate", "--tasks", "masal",
         "--metadata", json.dumps({"data_dir": str(tmp_path)})],
        capture_output=True, text=True, timeout=300, env={**os.environ, "LMEVAL_LOG_LEVEL": "WARNING"},
    )  # fmt: skip
    assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr[-3000:]
    lines = [line.strip() for line in proc.stderr.splitlines() if line.strip().startswith("1. data [")]
    assert lines == [
        f"1. data [masal_contextual]: {path}: row 1: field 'Answer Key' has role 'Literal', expected one of "
        "['Correct', 'Literal Trap', 'Plausible but Wrong', 'Irrelevant']"
    ]


def test_the_llm_extractor_is_told_how_the_prompt_lettered_the_options():
    doc = {"question": "مقدمه\n\nسؤال:\nکدام؟\n\nگزینه‌ها:\nالف) یک\nب) دو", "options": ["یک", "دو"]}
    assert extractor_question(doc) == "مقدمه\n\nسؤال:\nکدام؟\n\n(The prompt lettered the options الف = A, ب = B.)"
