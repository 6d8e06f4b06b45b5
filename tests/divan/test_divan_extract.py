"""Deterministic answer extraction on realistic replies, English and Persian."""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.scoring.extract import extract_choice, extract_yes_no
from lm_eval_persian_culture.text.persian import fold, normalize, normalize_zwnj, remove_diacritics, to_latin_digits

YALDA_FA = ["پرتقال", "سیب", "انار", "گلابی"]
YALDA_EN = ["Orange", "Apple", "Pomegranate", "Pear"]
MELON_FA = [
    "خربزه «سرد» است؛ خوردن میوهٔ سرد در بیماری، سرماخوردگی را بدتر و بهبود را طولانی می‌کند",
    "خربزه «گرم» است؛ خوردنش در تب خون را به جوش می‌آورد و عفونت را سریع‌تر پخش می‌کند",
    "باور عامیانه می‌گوید بوی خربزه ارواح بیماری شبانه را جذب می‌کند و دارو را بی‌اثر می‌کند",
    "احتیاط بهداشتی: قند زیاد آن باکتری‌های گلو را تغذیه می‌کند و صدا را برای همیشه از بین می‌برد",
]

CHOICE_CASES = [
    # --- explicit answer statements, English
    ("Answer: B", None, "B"),
    ("The correct option is (C).", None, "C"),
    ("**Answer:** (D) Pear", YALDA_EN, "D"),
    ("Final answer: c.", None, "C"),
    ("I would choose D because the other options are not typical.", None, "D"),
    ("I'd go with B.", None, "B"),
    ("**پاسخ:** گزینه (ج) انار", YALDA_FA, "C"),
    ("The answer is (C) Pomegranate, not (A) Orange.", YALDA_EN, "C"),
    ("It's B.", None, "B"),
    ("The answer is most likely option (C), pomegranate.", YALDA_EN, "C"),
    # --- reasoning before the answer; letters mentioned while reasoning do not count
    (
        "Let's think. Option A (orange) is wrong, and apple is not typical. So the answer is C) Pomegranate.",
        YALDA_EN,
        "C",
    ),
    ("Options A and B are unlikely. I would choose D.", None, "D"),
    ("Vitamin C matters for a cold, but the answer is (A).", None, "A"),
    ("The answer is not A, it is B.", None, "B"),
    ("At first I thought the answer is A. Actually, the answer is not A; the answer is C.", None, "C"),
    ("(A) is wrong. (B) is wrong. (C) is correct.", None, "C"),
    ("C is the correct answer: pomegranates symbolise life on Yalda night.", None, "C"),
    ("Step 1: Yalda is the longest night.\nStep 2: red fruits symbolise dawn.\nAnswer: C", None, "C"),
    ("<think>Maybe A? No, pomegranate is C.</think>\nAnswer: C", None, "C"),
    # --- Persian letters, digits (Persian, Arabic-Indic, Latin) and ordinals
    ("پاسخ: ب", None, "B"),
    ("پاسخ درست گزینه ج است.", None, "C"),
    ("با توجه به سنت‌ها، پاسخ صحیح گزینه‌ی «ج» است.", None, "C"),
    ("گزینهٔ ۲", None, "B"),
    ("گزینه ٤ درست است.", None, "D"),
    ("جواب: گزینه 1", None, "A"),
    ("گزینه سوم درست است.", None, "C"),
    ("به نظر من سومین گزینه درست است.", None, "C"),
    ("پاسخ الف نیست، بلکه ب است.", None, "B"),
    ("گزینه الف نادرست است؛ گزینه ب هم غلط است. پاسخ: د", None, "D"),
    ("د) گلابی", YALDA_FA, "D"),
    ("الف", None, "A"),
    ("۳", None, "C"),
    # --- the option's own text
    ("انار نماد شب یلداست؛ رنگ سرخ آن نشانهٔ طلوع خورشید است.", YALDA_FA, "C"),
    ("A pomegranate is the symbol of Yalda night.", YALDA_EN, "C"),
    ("آسیب‌های سرما زیاد است ولی پاسخ انار است.", YALDA_FA, "C"),  # سیب inside آسیب is not "apple"
    ("پاسخ: " + MELON_FA[0], MELON_FA, "A"),
    ("The answer is: Pomegranate", YALDA_EN, "C"),
    # --- nothing clear: None
    ("I cannot answer this question.", None, None),
    ("متأسفم، نمی‌توانم به این پرسش پاسخ دهم.", None, None),
    ("A) Orange\nB) Apple\nC) Pomegranate\nD) Pear", YALDA_EN, None),
    ("The answer is 3 times a day.", None, None),
    ("Both A and C could be right depending on the region.", None, None),
    ("", None, None),
    ("It is a tradition with many interpretations.", None, None),
]

YES_NO_CASES = [
    # --- plain verdicts
    ("Yes.", True),
    ("No, they did not.", False),
    ("yes", True),
    ("NO", False),
    ("بله", True),
    ("بله، آن‌ها درست رفتار کردند.", True),
    ("آره، همین‌طور است.", True),
    ("خیر. در فرهنگ ایرانی باید جلوی بزرگ‌ترها بلند شد.", False),
    ("نه، این کار بی‌احترامی است.", False),
    ("نخیر", False),
    ("درست است.", True),
    ("نادرست است.", False),
    ("درست نیست.", False),
    ("پاسخ من منفی است.", False),
    ("Definitely not. Sweeping at night is considered bad luck.", False),
    ("Absolutely. Standing up for elders is expected.", True),
    ("البته، این کار نشانهٔ احترام است.", True),
    ("به هیچ وجه! پا گذاشتن روی نان بی‌احترامی به نعمت است.", False),
    # --- answer statements after reasoning (the last one wins)
    ("Answer: No", False),
    ("**Answer:** Yes", True),
    ("Standing up when elders enter is a sign of respect in Iran. Therefore, yes.", True),
    ("پاسخ: بله", True),
    ("در فرهنگ ایرانی جارو کردن در شب را بدیمن می‌دانند. بنابراین، خیر.", False),
    ("نه تنها بلند شدند بلکه خوش‌آمد هم گفتند. پاسخ: بله", True),
    ("My first thought was yes. But sweeping at night is taboo. Final answer: No.", False),
    ("جواب: خير", False),  # Arabic yeh
    ("<think>The aunt is an elder, nobody stood up.</think> No.", False),
    # --- verdict phrases
    (
        "In Persian culture, elders are greeted by standing. "
        "Since nobody stood up, they did not act according to Persian tradition.",
        False,
    ),  # fmt: skip
    ("The behaviour is consistent with Persian tradition.", True),
    ("No one stood up, which violates Persian etiquette.", False),
    ("رفتار آن‌ها مطابق با آداب ایرانی نبود.", False),
    ("آن‌ها مطابق رسوم ایرانی رفتار کردند.", True),
    ("این کار برخلاف رسوم ایرانی است.", False),
    ("آیا آن‌ها مطابق رسوم ایرانی رفتار کردند؟ خیر.", False),  # the echoed question is not a verdict
    # --- nothing clear: None
    ("I cannot answer with yes or no.", None),
    ("نمی‌توانم با بله یا خیر پاسخ دهم.", None),
    ("It depends on the family and the region.", None),
    ("True, but it depends on the family.", None),
    ("Yes and no.", None),
    ("", None),
    ("آیا آن‌ها مطابق رسوم ایرانی رفتار کردند؟", None),
]


@pytest.mark.parametrize("reply,options,expected", CHOICE_CASES)
def test_extract_choice(reply, options, expected):
    assert extract_choice(reply, options) == expected


@pytest.mark.parametrize("reply,expected", YES_NO_CASES)
def test_extract_yes_no(reply, expected):
    assert extract_yes_no(reply) is expected


def test_table_is_large_enough():
    assert len(CHOICE_CASES) + len(YES_NO_CASES) >= 40
    persian = [r for r, *_ in CHOICE_CASES + YES_NO_CASES if any("\u0600" <= ch <= "\u06ff" for ch in r)]
    assert len(persian) >= 20


def test_options_as_mapping():
    assert extract_choice("پاسخ: انار", dict(zip("ABCD", YALDA_FA))) == "C"


def test_persian_helpers():
    assert to_latin_digits("گزینه ۲ و ٣") == "گزینه 2 و 3"
    assert normalize("كيك") == "کیک"
    assert remove_diacritics("سُفرهٔ") == "سفره"
    assert normalize_zwnj("می\u200c\u200cشود") == "می\u200cشود"
    assert normalize_zwnj("می\u200cشود", " ") == "می شود"
    assert normalize("  گزینهٔ   ۳ ") == "گزینه 3"
    assert fold("Pomegranate") == fold("POMEGRANATE")
    assert fold("مسئله") == fold("مسیله")
