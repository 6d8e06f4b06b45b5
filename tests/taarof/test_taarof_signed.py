"""gender_gap is signed (female minus male, as in the paper): no direction, its magnitude beside it."""

from __future__ import annotations

import yaml

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.tasks._taskgen import is_signed


class _Loader(yaml.SafeLoader):
    pass


_Loader.add_constructor("!function", lambda loader, node: loader.construct_scalar(node))


def test_gender_gap_has_no_direction_and_its_magnitude_is_lower_is_better():
    cfg = yaml.load((pack.TASKS_DIR / "taarof" / "taarof_gender.yaml").read_text(encoding="utf-8"), Loader=_Loader)
    directions = {m["metric"]: m["higher_is_better"] for m in cfg["metric_list"]}
    assert directions["gender_gap"] is None and directions["gender_gap_abs"] is False
    assert is_signed("gender_gap", cfg["metadata"]) and not is_signed("accuracy", cfg["metadata"])
    # the task's metadata replaces the template's (shallow include): it must still carry all of it
    template = yaml.load(
        (pack.TASKS_DIR / "taarof" / "_taarof_template_yaml").read_text(encoding="utf-8"), Loader=_Loader
    )["metadata"]
    assert {k: cfg["metadata"][k] for k in template} == template


def test_gender_gap_abs_is_the_magnitude_of_a_negative_gap():
    from lm_eval_persian_culture.tasks.taarof import utils

    # two intact pairs: (F=0, M=1) and (F=0, M=1): female 0, male 1, gap -1, magnitude 1
    items = [
        {"verdict": v, "group": g, "pair": p, "topics": []} for p in (1, 2) for g, v in (("female", 0), ("male", 1))
    ]
    assert utils.gender_gap(items) == -1.0
    assert utils.gender_gap_abs(items) == 1.0
