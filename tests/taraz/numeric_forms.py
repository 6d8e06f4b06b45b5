"""Labelled numeric answer forms for TARAZ (issue 32), written BEFORE the scoring code was changed.

Each form is a short reply, the reference(s) it is scored against, and whether a careful Persian
grader counts it right (``correct``). The label is the grader's, not the code's: it was written
before the numeric normalisation existed, and the test (``test_taraz_numeric_forms.py``) reads
these labels through the real scoring path (``short_answer.score_replies``, what process_results
uses) for exact_match and for the numbers rule of the embedding metrics.

Ranges follow the rule decided from the paper and BLEnD's own scoring (BLEnD's ``lemma_check``:
the reference is a substring of the reply): a reply range matches a single reference that is one of
its ends (``۸`` is in ``۷ تا ۸``), not one strictly inside it (BLEnD: ``۸`` is not in ``۶ تا ۹``);
a single number in the reply does not match a reference range (``۲-۳`` is not in ``۳``), a reply
range with the same ends does. Those rows are labelled by that rule (kind ``range``).

Every reply and every reference here holds a number (in digits or words), so the numbers rule
has something to read on both sides.
"""

from __future__ import annotations

from typing import NamedTuple


class NumericForm(NamedTuple):
    kind: str
    reply: str
    references: tuple[str, ...]
    correct: bool


def _f(kind: str, reply: str, references, correct: bool) -> NumericForm:
    refs = (references,) if isinstance(references, str) else tuple(references)
    return NumericForm(kind, reply, refs, correct)


ZWNJ = "\u200c"

FORMS: list[NumericForm] = [
    # ---------------------------------------------------------------- cardinal number words
    _f("cardinal", "شش سالگی", "6", True),
    _f("cardinal", "بیست", "20", True),
    _f("cardinal", "هجده سالگی", "18", True),
    _f("cardinal", f"هجده{ZWNJ}سالگی", "18", True),
    _f("cardinal", "۱۸سالگی", "18", True),
    _f("cardinal", "در سن هجده سالگی", "۱۸", True),
    _f("cardinal", "شانزده سالگی", "18", False),
    _f("cardinal", "بیست و پنج", "25", True),
    _f("cardinal", "بیست و پنج سال", "۲۵", True),
    _f("cardinal", "صد و بیست و سه", "۱۲۳", True),
    _f("cardinal", "۱۲۳", "صد و بیست و سه", True),
    _f("cardinal", "صد و بیست و چهار", "123", False),
    _f("cardinal", "سه", "3", True),
    _f("cardinal", "سه ماه", "3 ماه", True),
    _f("cardinal", "یک ماه", "3 ماه", False),
    _f("cardinal", "چهل و دو", "42", True),
    _f("cardinal", "چهل و دو", "۴۴", False),
    _f("cardinal", "هزار و چهارصد", "1400", True),
    _f("cardinal", "دو هزار", "2000", True),
    _f("cardinal", "یک میلیون", "1000000", True),
    _f("cardinal", "پنج میلیون تومان", "5000000", True),
    _f("cardinal", "یک میلیون", "5000000", False),
    _f("cardinal", "شصت", "60", True),
    _f("cardinal", "شیش سالگی", "6", True),
    _f("cardinal", "پونزده", "15", True),
    _f("cardinal", "نود دقیقه", "90", True),
    _f("cardinal", "نود", "۹", False),
    _f("cardinal", "صفر", "0", True),
    _f("cardinal", "نه ساعت", "9", True),
    _f("cardinal", "یک", "2", False),
    # ---------------------------------------------------------------- ordinals
    _f("ordinal", "هفتم", "7", True),
    _f("ordinal", "اول", "1", True),
    _f("ordinal", "اولین", "1", True),
    _f("ordinal", "دومین", "2", True),
    _f("ordinal", "سومین", "3", True),
    _f("ordinal", "بیست و پنجمین", "25", True),
    _f("ordinal", "بیست و پنجم", "25", True),
    _f("ordinal", "۲۵م", "25", True),
    _f("ordinal", "۲۵ام", "25", True),
    _f("ordinal", "۱۰مین", "10", True),
    _f("ordinal", "پنجم", "6", False),
    _f("ordinal", f"سی{ZWNJ}ام", "30", True),
    _f("ordinal", "صدمین", "100", True),
    _f("ordinal", "سومین", "4", False),
    # ---------------------------------------------------------------- halves and decimals
    _f("half", "یک و نیم", "1.5", True),
    _f("half", "یک و نیم ساعت", "1.5", True),
    _f("half", "یک ساعت و نیم", "1.5", True),
    _f("half", "دو و نیم", "2.5", True),
    _f("half", "دو و نیم", "1.5", False),
    _f("half", "۱٫۵", "1.5", True),
    _f("half", "۱.۵ ساعت", "۱/۵", True),
    _f("half", "یک ساعت", "1.5", False),
    # ---------------------------------------------------------------- English number words
    _f("english", "eight", "8", True),
    _f("english", "twenty five", "25", True),
    _f("english", "twenty-five", "25", True),
    _f("english", "one hundred", "100", True),
    _f("english", "eighteen years old", "18", True),
    _f("english", "seventeen", "18", False),
    _f("english", "first", "1", True),
    _f("english", "the 25th", "25", True),
    _f("english", "one and a half", "1.5", True),
    _f("english", "two thousand", "2000", True),
    _f("english", "three", "2", False),
    # ---------------------------------------------------------------- 12-hour times vs 24-hour references
    _f("time", "۸ شب", "20:00", True),
    _f("time", "ساعت ۸ شب", "۲۰:۰۰", True),
    _f("time", "هشت شب", "20:00", True),
    _f("time", "۷ عصر", "19", True),
    _f("time", "هفت عصر", "19:00", True),
    _f("time", "8 PM", "20:00", True),
    _f("time", "8pm", "20:00", True),
    _f("time", "8:30 p.m.", "20:30", True),
    _f("time", "۸:۳۰ شب", "20:30", True),
    _f("time", "هشت و نیم شب", "20:30", True),
    _f("time", "ساعت ۸ صبح", "08:00", True),
    _f("time", "8 AM", "08:00", True),
    _f("time", "۸ صبح", "20:00", False),
    _f("time", "8 AM", "20:00", False),
    _f("time", "ساعت ۲ بعد از ظهر", "14:00", True),
    _f("time", "دو بعدازظهر", "14:00", True),
    _f("time", "۲ بعد از ظهر", "13:00", False),
    _f("time", "۱۲ ظهر", "12:00", True),
    _f("time", "یک ظهر", "13:00", True),
    _f("time", "۱ بعد از ظهر", "13:00", True),
    _f("time", "۱۲ شب", "00:00", True),
    _f("time", f"۱۲ نیمه{ZWNJ}شب", "00:00", True),
    _f("time", "12 AM", "00:00", True),
    _f("time", "12 PM", "12:00", True),
    _f("time", "12 PM", "00:00", False),
    _f("time", "۱۳:۰۰", "1 بعد از ظهر", True),
    _f("time", "20:00", "8 شب", True),
    _f("time", "۱۹:۰۰", "۸ شب", False),
    _f("time", "ساعت ۱۰ شب", "22:00", True),
    _f("time", "ساعت ۱۰ صبح", "22:00", False),
    _f("time", "۶ عصر", "18:00", True),
    _f("time", "ساعت ۷", "07:00", True),
    _f("time", "۵ عصر", "17:30", False),
    _f("time", "ساعت یک و نیم بعد از ظهر", "13:30", True),
    _f("time", "۱۳:۳۰", "13:00", False),
    # ---------------------------------------------------------------- dates with Persian month names
    _f("date", "دوازدهم اردیبهشت", "۱۲ اردیبهشت", True),
    _f("date", "۱۲ اردیبهشت", "02/12", True),
    _f("date", "۲۵ مهر ۱۴۰۰", "1400/07/25", True),
    _f("date", "بیست و پنجم مهر ۱۴۰۰", "۱۴۰۰/۰۷/۲۵", True),
    _f("date", "۲۵ آبان ۱۴۰۰", "1400/07/25", False),
    _f("date", "اول مهر", "1 مهر", True),
    _f("date", "اول فروردین", "۱ فروردین", True),
    _f("date", "اول مهر", "۱ فروردین", False),
    _f("date", "۱۳ فروردین", "سیزدهم فروردین", True),
    _f("date", "۱۴ فروردین", "۱۳ فروردین", False),
    _f("date", "شب یلدا، ۳۰ آذر", "۳۰ آذر", True),
    _f("date", "۲۹ آذر", "30 آذر", False),
    _f("date", "۱۲ اردیبهشت ماه", "۱۲ اردیبهشت", True),
    _f("date", "۱۲ اردیبهشت", "۲۵ مهر", False),
    # ---------------------------------------------------------------- ranges (the rule above)
    _f("range", "۷ تا ۸ ساعت", "8", True),
    _f("range", "7-8 ساعت", "۸", True),
    _f("range", "هفت تا هشت ساعت", "8", True),
    _f("range", "۶ تا ۹ ساعت", "8", False),
    _f("range", "۸", "7 تا 8", False),
    _f("range", "۳ ساعت", "2-3 ساعت", False),
    _f("range", "۲ تا ۳ ساعت", "2-3 ساعت", True),
    _f("range", "دو تا سه ساعت", "۲-۳ ساعت", True),
    _f("range", "۱ تا ۱۰", "1 تا 10", True),
    _f("range", "۱ تا ۵", "1 تا 10", False),
    _f("range", "۱۸ تا ۲۰ سالگی", "18", True),
    _f("range", "۱۹ تا ۲۱ سالگی", "18", False),
    # ---------------------------------------------------------------- digits in three scripts
    _f("digits", "١٨", "18", True),
    _f("digits", "18", "۱۸", True),
    _f("digits", "۱۸", "١٨", True),
    _f("digits", "١٩", "۱۸", False),
    _f("digits", "٢٠:٠٠", "20:00", True),
    _f("digits", "۰۸:۰۰", "8:00", True),
    _f("digits", "١٢ اردیبهشت", "۱۲ اردیبهشت", True),
    _f("digits", "1,000,000", "1000000", True),
    _f("digits", "۱۳", "1", False),
    _f("digits", "۱۰", "1", False),
    _f("digits", "٣ ماه", "3 ماه", True),
    _f("digits", "4 ماه", "۳ ماه", False),
]
