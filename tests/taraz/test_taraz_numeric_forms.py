"""TARAZ's numeric normalisation on the labelled answer forms of ``numeric_forms.py`` (issue 32).

The forms were labelled before the code existed. They go through the real scoring path,
``short_answer.score_replies`` (what process_results uses), with an embedder that gives every text
the same vector: every cosine is 1, so ``hybrid_match`` and ``embed_match`` are 1 exactly when the
numbers rule lets some pair through. The figures are printed (``pytest -s``) and stated in the
TARAZ README.
"""

from __future__ import annotations

import numpy as np
import pytest

from lm_eval_persian_culture.tasks.taraz import embeddings
from lm_eval_persian_culture.tasks.taraz import numbers as nb
from lm_eval_persian_culture.tasks.taraz import short_answer as sa
from lm_eval_persian_culture.tasks.taraz.normalize import clean
from tests.taraz.numeric_forms import FORMS


class SameVector:
    def encode(self, texts, **kwargs):
        return np.ones((len(texts), 3), dtype=np.float32)


@pytest.fixture(scope="module")
def scored():
    embeddings.register_encoder("same-vector-forms", SameVector())
    rows = sa.score_replies([f.reply for f in FORMS], [list(f.references) for f in FORMS], model="same-vector-forms")
    return list(zip(FORMS, rows))


def _figures(scored, metric):
    right = [row[metric] for form, row in scored if form.correct]
    wrong = [row[metric] for form, row in scored if not form.correct]
    return sum(right), len(right), sum(wrong), len(wrong)


def test_the_labelled_list_is_what_the_issue_asks_for():
    kinds = {form.kind for form in FORMS}
    assert len(FORMS) >= 80
    assert {"cardinal", "ordinal", "half", "english", "time", "date", "range", "digits"} <= kinds
    for kind in kinds:  # right and wrong forms of every kind
        assert {f.correct for f in FORMS if f.kind == kind} == {True, False}, kind


@pytest.mark.parametrize("metric", ["exact_match", "hybrid_match", "embed_match"])
def test_every_right_form_reads_right_and_no_wrong_one(scored, metric):
    right, n_right, wrong, n_wrong = _figures(scored, metric)
    rule = "the numbers rule" if metric != "exact_match" else "exact_match"
    print(f"\n{rule} ({metric}): {right}/{n_right} right forms read right, {wrong}/{n_wrong} wrong forms read right")
    misread = [(f.kind, f.reply, f.references, f.correct) for f, row in scored if row[metric] != f.correct]
    assert misread == []


def test_each_form_holds_numbers_on_both_sides():
    # the numbers rule decides only where both sides hold numbers: every form must give it something to read
    for form in FORMS:
        assert sa.numbers_in(clean(form.reply)), form
        assert all(sa.numbers_in(clean(ref)) for ref in form.references), form


@pytest.mark.parametrize(
    "text, expected",
    [
        ("نه، نمی‌دانم", "نه، نمی\u200cدانم"),  # نه alone is "no"
        ("نه ساعت", "۹ ساعت"),  # before a unit it is nine
        ("بیست و نه", "۲۹"),
        ("سه شنبه", "سه شنبه"),  # a weekday, not a three
        ("سیزده بدر", "سیزده بدر"),  # names keep their number words
        ("سی و سه پل", "سی و سه پل"),
        ("هفت سین", "هفت سین"),
        ("سه و چهار", "۳ و ۴"),  # two numbers, not one: و joins only a smaller place (بیست و پنج)
        ("دو هزار و پانصد", "۲۵۰۰"),
        ("یک میلیون و دویست هزار", "۱۲۰۰۰۰۰"),
        ("two hundred and five", "۲۰۵"),
        ("twenty-first", "۲۱"),
        ("two thousand three hundred", "۲۳۰۰"),
        ("one two", "۱ ۲"),
        ("یک شب", "۱ شب"),  # "one night": a night hour needs ساعت before it ...
        ("ساعت یک شب", "ساعت ۱:۰۰"),  # ... to be 01:00
        ("ساعت ۸ و نیم", "ساعت ۸:۳۰"),  # a clock half hour
        ("۲۴:۰۰", "۰:۰۰"),
        ("۱۳ شب", "۱۳ شب"),  # not a 12-hour time: left alone
        ("۱۲ مهرماه ۱۴۰۲", "۱۴۰۲/۷/۱۲"),
        ("۴۰ مهر", "۴۰ مهر"),  # not a day of a month
    ],
)
def test_numeric_normalisation(text, expected):
    assert clean(text) == expected


def test_the_range_rule_both_ways():
    # reply range vs single reference: an end matches, a number inside does not (BLEnD's substring test)
    assert sa.exact_match("۷ تا ۸ ساعت", ["8"]) and sa.same_numbers(clean("۷ تا ۸ ساعت"), clean("8"))
    assert not sa.exact_match("۶ تا ۹ ساعت", ["8"]) and not sa.same_numbers(clean("۶ تا ۹ ساعت"), clean("8"))
    # reply single vs reference range: no; the same range: yes
    assert not sa.exact_match("۸", ["7 تا 8"]) and not sa.same_numbers(clean("۸"), clean("7 تا 8"))
    assert sa.exact_match("هفت تا هشت", ["7-8"]) and sa.same_numbers(clean("هفت تا هشت"), clean("7-8"))


def test_month_numbers_cover_the_year():
    assert sorted(set(nb.MONTHS.values())) == list(range(1, 13))
