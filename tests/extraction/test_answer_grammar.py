"""The one answer grammar (scoring/extract.py: read_option, extract_choice, read_pick) on the forms of
issue #22, one case per form, written before the rules were extended to read them.

Principle the cases enforce: where a careful reader is unsure which option a reply chose, the rules
return None (invalid), never a guess; a wrong option is the worst outcome.
"""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.scoring.extract import extract_choice, extract_yes_no, read_option, read_pick

# A PerCul-style food item, options numbered 1-4 ("A".."D" = Choice 1..4).
FOOD_FA = ["قورمه‌سبزی", "خورشت قیمه", "کباب کوبیده", "آش رشته"]
FOOD_EN = ["Ghormeh sabzi", "Khoresht gheymeh", "Kabab koobideh", "Ash reshteh"]
# A CAC-style conversation: five responses from insistent (1) to yielding (5).
RESPONSES = [
    "You must take a slice of it right now!",
    "Then you should have a slice of it right here!",
    "Would you perhaps enjoy a slice, dear?",
    "If you wish, you can try a slice.",
    "You may have a slice if you'd like.",
]

OPTION_CASES = [
    # ---- the answer number followed by a word, after a cue or at the reply's start
    ("پاسخ ۲ است", FOOD_FA, "B"),
    ("جواب ۳ هست", FOOD_FA, "C"),
    ("گزینه درست ۲ است", FOOD_FA, "B"),
    ("۲ زیرا قیمه را در نذری محرم می‌پزند.", FOOD_FA, "B"),
    ("The answer is 2 because gheymeh is cooked for nazri.", FOOD_EN, "B"),
    ("It's 2 because of the Muharram nazri.", FOOD_EN, "B"),
    ("I choose 3 since kabab is grilled.", FOOD_EN, "C"),
    ("Number 2.", FOOD_EN, "B"),
    ("2 because the story mentions split peas.", FOOD_EN, "B"),
    # ---- a digit followed by a word is a quantity otherwise
    ("The recipe adds 2 eggs and 3 onions.", FOOD_EN, None),
    ("The answer is 3 times a week.", FOOD_EN, None),
    ("پاسخ ۲ نفر است.", FOOD_FA, None),
    # ---- \boxed{}
    ("\\boxed{2}", FOOD_EN, "B"),
    ("The dish is cooked for nazri, so $\\boxed{2}$", FOOD_EN, "B"),
    ("\\boxed{\\text{B}}", None, "B"),
    # ---- an option rejected before (or after) the answer
    ("گزینه ۱ را رد می‌کنم، پاسخ ۲ است.", FOOD_FA, "B"),
    ("Option 1 is tempting, but the answer is 2.", FOOD_EN, "B"),
    ("Not option 1. The answer is option 2.", FOOD_EN, "B"),
    # ---- a shortened or inflected option text
    ("قیمه", FOOD_FA, "B"),
    ("پاسخ: قیمه.", FOOD_FA, "B"),
    ("Gheymeh.", FOOD_EN, "B"),
    ("The answer is gheymeh.", FOOD_EN, "B"),
    ("رشته", FOOD_FA, "D"),
    # ---- "X, not Y"
    ("خورشت قیمه، نه قورمه‌سبزی", FOOD_FA, "B"),
    ("Khoresht gheymeh, not ghormeh sabzi.", FOOD_EN, "B"),
    # ---- corrections: the last statement wins
    ("1. Actually, 2.", FOOD_EN, "B"),
    ("A. Actually, B.", None, "B"),
    ("Answer: 1\n\nOn second thought, the answer is 2.", FOOD_EN, "B"),
    # ---- a numbered list of reasoning steps is no answer by its first item
    ("1. The story is set in Muharram.\n2. Nazri dishes are cooked.\n\nSo the answer is gheymeh.", FOOD_EN, "B"),
    ("1. The story is set in Muharram.\n2. Nazri dishes are cooked in large pots.", FOOD_EN, None),
    # ---- hedges: no answer
    ("گزینه ۱ یا ۲ می‌تواند باشد", FOOD_FA, None),
    ("It could be 1 or 2.", FOOD_EN, None),
    ("Either ghormeh sabzi or gheymeh.", FOOD_EN, None),
    ("Options 1 and 2 are both plausible.", FOOD_EN, None),
    ("2/3", FOOD_EN, None),
    # ---- refusals: no answer
    ("I can't answer that.", FOOD_EN, None),
    ("نمی‌توانم پاسخ بدهم.", FOOD_FA, None),
    # ---- <think> and markdown
    ("<think>Maybe 1? The story has nazri, so 2.</think>\n**2**", FOOD_EN, "B"),
    ("<think>The story mentions nazri, so", FOOD_EN, None),
    # ---- an echoed option list is no answer
    ("1. Ghormeh sabzi\n2. Khoresht gheymeh\n3. Kabab koobideh\n4. Ash reshteh", FOOD_EN, None),
    ("۱. قورمه‌سبزی\n۲. خورشت قیمه\n۳. کباب کوبیده\n۴. آش رشته\n\nپاسخ: ۲", FOOD_FA, "B"),
]

PICK_CASES = [
    # ---- a pick stated first, other responses then named as rejected
    ("3. It is polite and indirect, unlike 1 and 2.", 3),
    ("Response 3, because responses 1 and 2 are too insistent.", 3),
    ("Response 3 fits; 4 and 5 are too passive.", 3),
    ("3 - responses 1 and 2 are too pushy for a grandparent.", 3),
    ("۳ زیرا پاسخ‌های ۱ و ۲ بیش از حد اصرار دارند.", 3),
    ("I'd pick 4. Response 5 is too passive and 1 is rude.", 4),
    # ---- a response's own text
    ("Would you perhaps enjoy a slice, dear?", 3),
    ("Not 'You must take a slice of it right now!' but 'You may have a slice if you'd like.'", 5),
    # ---- hedges and non-picks
    ("Responses 2 and 3 are both plausible.", None),
    ("3 or 4, depending on the family.", None),
    ("Response 1 is too insistent.", None),
    ("The grandparent offers 2 slices.", None),
    ("Between 2 and 3, both are fine.", None),
    # ---- a verdict per response, on one line: the one yes (its first item is no answer line)
    ("1 - no; 2 - no; 3 - yes; 4 - no; 5 - no", 3),
    ("1 - no", None),
    ("None of these fit well, but 3 is closest.", 3),
    ("5. Actually, no: 3. Dutch feedback is blunt, but 5 is insulting.", 3),
]


@pytest.mark.parametrize("reply, options, expected", OPTION_CASES, ids=[repr(c[0])[:40] for c in OPTION_CASES])
def test_option_forms(reply, options, expected):
    assert extract_choice(reply, options) == expected


@pytest.mark.parametrize("reply, expected", PICK_CASES, ids=[repr(c[0])[:40] for c in PICK_CASES])
def test_pick_forms(reply, expected):
    assert read_pick(reply, RESPONSES) == expected


def test_one_grammar_for_options_and_picks():
    # the same reply reads the same way whichever benchmark asks, within each label space
    for reply in (
        "The answer is 2 because ...",
        "پاسخ ۲ است",
        "Option 1 is tempting, but the answer is 2",
        "\\boxed{2}",
    ):
        assert read_option(reply, count=4) == read_option(reply, count=5, letters=False) == 1
    # labels outside the space are no answer: a fifth option for a four-option question, letters for picks
    assert read_option("Answer: 5", count=4) is None
    assert read_pick("Answer: 5") == 5
    assert read_pick("Answer: B") is None


@pytest.mark.parametrize(
    "reply",
    [
        # DivanBench's own instruction lines, echoed by a base model (issue #27, point 9)
        'Answer with Yes or No and end with: "Answer: Yes" or "Answer: No".',
        'Answer yes or no, and end your reply with "Answer: Yes" or "Answer: No".',
        "با «بله» یا «خیر» پاسخ دهید و در پایان بنویسید: «پاسخ: بله» یا «پاسخ: خیر».",
    ],
)
def test_an_echoed_yes_no_instruction_states_no_answer(reply):
    assert extract_yes_no(reply) is None


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("I'd lean towards no, since sweeping at night is avoided.", False),
        ("It's a yes from me.", True),
        ("The statement is accurate.", True),
        ("From a hygiene perspective it makes sense, but by tradition, no — sweeping at night is avoided.", False),
        ("از نظر بهداشتی کار خوبی است، ولی از نظر رسوم ایرانی خیر.", False),
        ("پاسخ: بله\nپاسخ: خیر", None),  # two bare answers, nothing deciding between them
        ("Answer: Yes\n\nWait, that's wrong. Answer: No", False),  # a correction decides
    ],
)
def test_yes_no_forms(reply, expected):
    assert extract_yes_no(reply) is expected


def test_the_answer_after_an_echoed_instruction_still_counts():
    echo = 'Answer yes or no, and end your reply with "Answer: Yes" or "Answer: No".\n\n'
    assert extract_yes_no(echo + "They stood up for the elder. Answer: Yes") is True
    assert extract_yes_no("با «بله» یا «خیر» پاسخ دهید.\n\nپاسخ: خیر") is False


# ---------------------------------------------------------------------------------------------------------
# Forms a held-out check still missed (never read wrong): written, with the expected values, before the
# rules were extended to read them. Near-misses (two options sharing the words, a hedge between two options,
# a quantity, a negation) must stay unread.

# Single-word and two-word option texts a colloquial copula attaches to («قیمه‌ست», «شله‌زرده»).
DISH_FA = ["قیمه", "قورمه‌سبزی", "شله‌زرد", "آش رشته"]
DISH_EN = ["Gheymeh", "Ghormeh sabzi", "Sholeh zard", "Ash reshteh"]
HAFTSIN_FA = ["سمنو", "سبزه", "سکه", "سنجد"]
CUSTOMS_EN = [
    "Taarof",
    "Kissing on the cheeks three times",
    "Removing shoes at the door",
    "Standing up when elders enter",
]
CUSTOMS_FA = ["تعارف", "سه بار روبوسی کردن", "درآوردن کفش دم در", "بلند شدن وقتی بزرگترها وارد می‌شوند"]
# Options that share most of their words: a shortened reply naming the shared words names none.
SHARED_EN = [
    "Kissing on the cheeks three times",
    "Kissing on the cheeks twice",
    "Removing shoes at the door",
    "Removing hats indoors",
]
RESPONSES_GROCERIES = [
    "I would really appreciate it if you could pick up some groceries on your way home.",
    "It would be great if you could pick up some groceries on your way home.",
    "Please pick up some groceries on your way home.",
    "Make sure you pick up some groceries on your way home.",
    "You need to pick up some groceries on your way home.",
]
SHARED_FA = ["سه بار روبوسی کردن", "دو بار روبوسی کردن", "درآوردن کفش دم در", "درآوردن کلاه در خانه"]

COLLOQUIAL_CUE_CASES = [
    # ---- 1. colloquial cues with a possessive or copula: جوابش / پاسخش / جوابم, باشه / هست / ـه
    ("فکر کنم پاسخش ۳ باشه", FOOD_FA, "C"),
    ("به نظرم جوابم ۴ـه", FOOD_FA, "D"),
    ("جوابم ۲ هست", FOOD_FA, "B"),
    ("پاسخم ۱ است.", FOOD_FA, "A"),
    ("جوابم: ۳", FOOD_FA, "C"),
    ("جوابش میشه ۳", FOOD_FA, "C"),
    ("فکر کنم جوابش گزینه ۲ باشه، چون قیمه رو برای نذری محرم می‌پزن.", FOOD_FA, "B"),
    ("به نظرم ۳ هست", FOOD_FA, "C"),
    ("فکر کنم ۴ باشه", FOOD_FA, "D"),
    ("فکر می‌کنم ۳", FOOD_FA, "C"),
    ("من فکر می‌کنم جواب ۲ است", FOOD_FA, "B"),
    ("به نظر من پاسخش ۱ه", FOOD_FA, "A"),
    ("I think it's 3.", FOOD_EN, "C"),
    ("I think 4.", FOOD_EN, "D"),
    ("I think the answer is 2 because gheymeh is the nazri dish.", FOOD_EN, "B"),
    ("My answer is 1", FOOD_EN, "A"),
    # near-misses: uncertainty between two options, a quantity, a negation, no answer at all
    ("فکر کنم جوابش ۲ یا ۳ باشه", FOOD_FA, None),
    ("به نظرم ۱ یا ۲، مطمئن نیستم", FOOD_FA, None),
    ("فکر کنم جوابش ۲ نفر باشه", FOOD_FA, None),
    ("فکر کنم ۳ تا پیاز داره", FOOD_FA, None),
    ("به نظرم جوابش ۲ نیست", FOOD_FA, None),
    ("جوابش رو نمی‌دونم", FOOD_FA, None),
    ("I think it's 2 or 3.", FOOD_EN, None),
    ("I think 2 eggs are needed.", FOOD_EN, None),
]

ATTACHED_COPULA_CASES = [
    # ---- 2. an option's text carrying a colloquial copula or suffix, also after «احتمالاً» / "probably"
    ("قیمه‌ست", DISH_FA, "A"),
    ("شله‌زرده", DISH_FA, "C"),
    ("آش رشته‌است", DISH_FA, "D"),
    ("آش رشته‌ست.", DISH_FA, "D"),
    ("احتمالاً قیمه‌ست", DISH_FA, "A"),
    ("احتمالاً شله‌زرده", DISH_FA, "C"),
    ("فکر کنم آش رشته باشه", DISH_FA, "D"),
    ("پاسخ: شله‌زرده", DISH_FA, "C"),
    ("جوابش قورمه‌سبزیه", DISH_FA, "B"),
    ("قیمه‌ست، نه قورمه‌سبزی", DISH_FA, "A"),
    ("شله‌زرد نیست، قیمه‌ست", DISH_FA, "A"),
    ("سبزه‌ها", HAFTSIN_FA, "B"),
    ("سبزه‌هاست", HAFTSIN_FA, "B"),
    ("احتمالاً سبزه‌ست", HAFTSIN_FA, "B"),
    ("اناره", ["پرتقال", "سیب", "انار", "گلابی"], "C"),
    ("جوابش اناره", ["پرتقال", "سیب", "انار", "گلابی"], "C"),
    ("انار نیست، سیبه", ["پرتقال", "سیب", "انار", "گلابی"], "B"),
    ("سیبه یا اناره", ["پرتقال", "سیب", "انار", "گلابی"], None),
    ("یلداست", ["چهارشنبه‌سوری", "سیزده‌به‌در", "شب یلدا", "نوروز"], "C"),
    ("سیزده‌به‌دره", ["چهارشنبه‌سوری", "سیزده‌به‌در", "شب یلدا", "نوروز"], "B"),
    ("احتمالاً نوروزه", ["چهارشنبه‌سوری", "سیزده‌به‌در", "شب یلدا", "نوروز"], "D"),
    ("سمنوست", HAFTSIN_FA, "A"),  # ـست joined after a vowel
    ("دوست دارم", ["دو", "سه", "چهار", "پنج"], None),  # «دوست» is no «دو» + ـست (two letters)
    # a shortened option text (one word of "خورشت قیمه", "کباب کوبیده") with the copula attached
    ("قیمه‌ست", FOOD_FA, "B"),
    ("احتمالاً قیمه‌ست", FOOD_FA, "B"),
    ("رشته‌ست", FOOD_FA, "D"),
    ("کوبیده‌ست.", FOOD_FA, "C"),
    ("به نظرم کبابه", FOOD_FA, "C"),
    ("فکر کنم قیمه باشه", FOOD_FA, "B"),
    ("پاسخش قیمه‌ست چون نذریه", FOOD_FA, "B"),
    ("جوابش کباب کوبیده‌ست", FOOD_FA, "C"),
    ("Probably sholeh zard.", DISH_EN, "C"),
    ("It's probably ash reshteh", DISH_EN, "D"),
    # near-misses: a hedge between two options, a negation, a question
    ("احتمالاً قیمه‌ست یا شله‌زرده", DISH_FA, None),
    ("قیمه‌ست یا آش رشته؟ مطمئن نیستم", DISH_FA, None),
    ("قیمه نیست", DISH_FA, None),
    ("Probably gheymeh or sholeh zard.", DISH_EN, None),
    ("احتمالاً قیمه‌ست، شاید هم رشته", FOOD_FA, None),
    ("فکر کنم قیمه یا کباب باشه", FOOD_FA, None),
]

SHORT_TEXT_CASES = [
    # ---- 3. a short reply that is a shortened or lightly paraphrased form of exactly one option's text
    ("removing shoes", CUSTOMS_EN, "C"),
    ("kissing on the cheeks", CUSTOMS_EN, "B"),
    ("standing up for elders", CUSTOMS_EN, "D"),
    ("Removing shoes.", CUSTOMS_EN, "C"),
    ("shoes at the door", CUSTOMS_EN, "C"),
    ("The answer is removing shoes.", CUSTOMS_EN, "C"),
    ("probably removing shoes", CUSTOMS_EN, "C"),
    ("removing shoes", SHARED_EN, "C"),  # "shoes" is C's alone
    ("درآوردن کفش", CUSTOMS_FA, "C"),
    ("بلند شدن برای بزرگترها", CUSTOMS_FA, "D"),
    ("پاسخ: درآوردن کفش", CUSTOMS_FA, "C"),
    ("درآوردن کفش", SHARED_FA, "C"),
    # near-misses: the words fit two options, two options named, a negation, words of no option
    ("kissing on the cheeks", SHARED_EN, None),
    ("removing", SHARED_EN, None),
    ("kissing", SHARED_EN, None),
    ("removing shoes or taarof", CUSTOMS_EN, None),
    ("not removing shoes", CUSTOMS_EN, None),
    ("standing up when guests enter", CUSTOMS_EN, None),
    ("removing shoes is rude", CUSTOMS_EN, None),
    ("روبوسی کردن", SHARED_FA, None),
    ("درآوردن", SHARED_FA, None),
    ("درآوردن کفش یا تعارف", CUSTOMS_FA, None),
    ("Most likely removing shoes", CUSTOMS_EN, "C"),
    ("Removing your shoes at the door.", CUSTOMS_EN, "C"),
    ("I guess removing shoes", CUSTOMS_EN, "C"),
    ("kissing cheeks", CUSTOMS_EN, "B"),
    ("کفش‌ها رو درآوردن", CUSTOMS_FA, "C"),
    ("احتمالاً درآوردن کفش", CUSTOMS_FA, "C"),
    ("taking off shoes", CUSTOMS_EN, None),  # "taking", "off": no option's words
    # words that set options apart are content words: "after" is no "before", «جلوی» no «پشت»
    (
        "eating after guests",
        ["Eating before the guests", "Serving tea after dinner", "Pouring water", "Removing shoes"],
        None,
    ),
    (
        "eating before guests",
        ["Eating before the guests", "Serving tea after dinner", "Pouring water", "Removing shoes"],
        "A",
    ),
    ("جلوی بزرگترها ایستادن", ["پشت سر بزرگترها ایستادن", "چای ریختن", "آب ریختن", "کفش درآوردن"], None),
    # found while probing the rule (the first was read as C by its first draft): a verb is content
    ("Removing shoes is not it.", CUSTOMS_EN, None),
    ("up", CUSTOMS_EN, None),  # one short word is a shortened option only as before (3+ letters, its own)
    ("My pick is", RESPONSES_GROCERIES, None),  # "is" is no plural of response 1's "I"
    ("removing shoes (C)", CUSTOMS_EN, "C"),
    ("is taarof (D)", ["Kissing", "Removing shoes", "Nodding", "Taarof"], "D"),
    # an option's words and another option's label: no answer (the words were read alone, "(D)" dropped)
    ("removing shoes (D)", CUSTOMS_EN, None),
    ("is taarof (D)", CUSTOMS_EN, None),
    ("Removing shoes at the door (D)", CUSTOMS_EN, None),
    ("می‌شود.", ["تعارف", "سه بار روبوسی می‌شود", "درآوردن کفش دم در", "بلند شدن"], None),  # grammatical words only
]

NUMBER_CUE_CASES = [
    # ---- 4. English (and Persian) cues naming the number or the pick
    ("The number is 4", FOOD_EN, "D"),
    ("The right number: 2", FOOD_EN, "B"),
    ("My pick is 3", FOOD_EN, "C"),
    ("Pick: 3", FOOD_EN, "C"),
    ("The correct number is 3 because kabab is grilled.", FOOD_EN, "C"),
    ("Pick: 2 — gheymeh is the nazri dish.", FOOD_EN, "B"),
    ("The right number: four", FOOD_EN, "D"),
    ("شماره درست: ۲", FOOD_FA, "B"),
    ("عدد درست ۳ است", FOOD_FA, "C"),
    # near-misses: a count, a quantity, a hedge
    ("The number of guests is 4.", FOOD_EN, None),
    ("Pick 3 onions and fry them.", FOOD_EN, None),
    ("The number is 3 or 4.", FOOD_EN, None),
    ("The right number: 2 or 3", FOOD_EN, None),
    ("The number 3 appears twice in the story.", FOOD_EN, None),
]

# Wider variants of classes 1 and 4 (colloquial spellings, ordinals with the copula, more English cues).
WIDER_CUE_CASES = [
    ("جواب درستش ۳ه", FOOD_FA, "C"),
    ("فکر کنم گزینه ۳ باشه", FOOD_FA, "C"),
    ("به نظرم گزینه‌ی دوم", FOOD_FA, "B"),
    ("جوابش گزینه سومه", FOOD_FA, "C"),
    ("پاسخش می‌شه ۲", FOOD_FA, "B"),
    ("فکر کنم جوابش ۳ باشه ولی مطمئن نیستم", FOOD_FA, "C"),  # unsure of one option, not between two
    ("به نظر میاد ۲ باشه", FOOD_FA, "B"),
    ("به نظر می‌رسه جوابش ۴ باشه", FOOD_FA, "D"),
    ("گمونم ۲", FOOD_FA, "B"),
    ("فک کنم ۳", FOOD_FA, "C"),
    ("جواب من ۳ه", FOOD_FA, "C"),
    ("من میگم ۲", FOOD_FA, "B"),
    ("انتخابم ۲ـه", FOOD_FA, "B"),
    ("فکر کنم سومی باشه", FOOD_FA, "C"),
    ("جوابش ۳ هستش", FOOD_FA, "C"),
    ("پاسخ اولیه من ۲ بود ولی حالا فکر می‌کنم ۳ درسته", FOOD_FA, "C"),  # «اولیه» ("initial") is no ordinal
    ("I think the answer's 3", FOOD_EN, "C"),
    ("I'd say it's 4", FOOD_EN, "D"),
    ("I reckon 2", FOOD_EN, "B"),
    ("My guess is 3", FOOD_EN, "C"),
    ("My guess: 4", FOOD_EN, "D"),
    ("I'd go for 2", FOOD_EN, "B"),
    ("The number would be 2", FOOD_EN, "B"),
    ("Correct number: 4", FOOD_EN, "D"),
    ("Number: 3", FOOD_EN, "C"),
    ("My pick: 2", FOOD_EN, "B"),
    ("Selection: 1", FOOD_EN, "A"),
    # near-misses
    ("فکر کنم ۲ تا ۳ ساعت طول بکشه", FOOD_FA, None),
    ("به نظرم جوابش ۲ یا شاید ۳ باشه", FOOD_FA, None),
    ("من میگم ۲ نفر اومدن", FOOD_FA, None),
    ("گزینه اولیه", FOOD_FA, None),
    ("I think 2 people", FOOD_EN, None),
    ("My guess is 2 or 3", FOOD_EN, None),
    ("The number of dishes is 4", FOOD_EN, None),
    ("Pick 2 or 3", FOOD_EN, None),
]

# An alternative offered after the answer is a hedge between two options; one weighed before the answer
# (or conceded) is not.
ALTERNATIVE_CASES = [
    ("2. Or maybe 3.", FOOD_EN, None),
    ("Answer: 2. Or maybe 3?", FOOD_EN, None),
    ("۲. شاید هم ۳.", FOOD_FA, None),
    ("۲. یا شاید ۳.", FOOD_FA, None),
    ("Ghormeh sabzi. Or perhaps gheymeh.", FOOD_EN, None),
    ("The answer is 2. Maybe 3 though.", FOOD_EN, None),
    ("پاسخ: ۲. البته شاید ۳ هم باشه.", FOOD_FA, None),
    ("Taarof. Or maybe kissing on the cheeks.", CUSTOMS_EN, None),
    # the answer stands
    ("Maybe 1? The story mentions nazri, so 2.", FOOD_EN, "B"),
    ("شاید ۱؟ نه، نذری قیمه است، پس ۲.", FOOD_FA, "B"),
    ("2. Or maybe not.", FOOD_EN, "B"),
    ("2. Maybe 1 is tempting, but the story is about nazri.", FOOD_EN, "B"),
    ("Answer: 2. Maybe 2 people cook it.", FOOD_EN, "B"),
    ("The answer is 2, maybe 2.", FOOD_EN, "B"),
]

# A statement the reply then takes back: what follows the retraction decides (nothing: no answer).
RETRACTION_CASES = [
    ("I think 3... no wait, 2.", FOOD_EN, "B"),
    ("Answer: 3. Wait, no — 2.", FOOD_EN, "B"),
    ("The answer is 3... no, sorry, it's the nazri dish: 2.", FOOD_EN, "B"),
    ("فکر کنم ۳... نه، قیمه نذریه؛ ۲.", FOOD_FA, "B"),
    ("پاسخ: ۳. ببخشید، ۲.", FOOD_FA, "B"),
    ("I think 3... no, wait.", FOOD_EN, None),
    # "no" that elaborates, not retracts: the answer stands
    ("Answer: 2. No, 1 is too pushy.", FOOD_EN, "B"),
    ("پاسخ: ۲. نه، ۱ درست نیست.", FOOD_FA, "B"),
    ("The answer is 2. No doubt about it.", FOOD_EN, "B"),
    ("Answer: 2. You'd wait for the nazri.", FOOD_EN, "B"),
]

# A stated option conceded in favour of another in the same sentence ("X is what most expect, but ...
# option 1"), and a statement a per-option verdict list contradicts.
GESTURE_EN = ["Placing the hand on the chest", "Cheek kissing", "Shaking hands", "Nodding"]
GESTURE_FA = ["گذاشتن دست روی سینه", "روبوسی", "دست دادن", "سر تکان دادن"]
CONCEDED_CASES = [
    (
        "I think shaking hands is what most people would expect, "
        "but in this story the gesture is the hand on the chest - option 1.",
        GESTURE_EN,
        "A",
    ),
    (
        "فکر کنم دست دادن چیزی است که بیشتر مردم انتظار دارند، اما در این داستان دست روی سینه است - گزینه ۱.",
        GESTURE_FA,
        "A",
    ),
    ("The answer is 2, but only in the north.", FOOD_EN, "B"),
    # a second option only "also possible" leaves the stated one: the corpus labels "I think it's C, but B
    # is also possible." as C (these two were first written as no answer; the independent labels decide)
    ("The answer is 2, but 3 is also plausible.", FOOD_EN, "B"),
    ("I think 2. Could also be 3.", FOOD_EN, "B"),
    ("فکر کنم ۱) قورمه‌سبزی: نه\n۲) خورشت قیمه: بله\n۳) کباب کوبیده: نه\n۴) آش رشته: نه", FOOD_FA, None),
    (
        "Answer: 1) Ghormeh sabzi - no\n2) Khoresht gheymeh - yes\n3) Kabab koobideh - no\n4) Ash reshteh - no",
        FOOD_EN,
        None,
    ),
]

# An ordinal after a cue is a label unless a word follows it that is no label word: "first day of Farvardin"
# is option 2's text, not option 1 (the ordinal was read as a label).
DAYS_EN = [
    "The eve of the last Wednesday of the year",
    "The first day of Farvardin",
    "The thirteenth day of Farvardin",
    "Yalda night",
]
ORDINAL_CASES = [
    ("The answer is first day of Farvardin", DAYS_EN, "B"),
    ("The answer is the third day", DAYS_EN, None),
    ("The answer is the third one.", DAYS_EN, "C"),
    ("The answer is the second option", DAYS_EN, "B"),
    ("It's the first for sure.", FOOD_EN, "A"),
    ("The answer is the third definitely", FOOD_EN, "C"),
    ("The answer is the first or the second", FOOD_EN, None),
    ("The answer is option 1 or the option 2", FOOD_EN, None),  # the article hid the second label (read as 1)
    ("The answer is the fourth, because Yalda is the longest night.", DAYS_EN, "D"),
    ("پاسخ سوم را انتخاب می‌کنم", FOOD_FA, "C"),
]

# CAC picks of 5 in each form above (the corpus has almost none), and their near-misses.
PICK_FIVE_CASES = [
    ("فکر کنم جوابم ۵ باشه", 5),
    ("به نظرم پاسخش ۵ـه", 5),
    ("جوابش ۵ هست چون از همه مؤدبانه‌تره", 5),
    ("I think it's 5.", 5),
    ("I think 5.", 5),
    ("The number is 5", 5),
    ("The right number: 5", 5),
    ("My pick is 5", 5),
    ("the number is five", 5),
    ("The answer is the fifth one.", 5),
    ("Pick: 5", 5),
    ("My guess is 5", 5),
    ("گمونم ۵", 5),
    ("جواب درستش ۵ه", 5),
    ("جوابش گزینه پنجمه", 5),
    ("انتخاب من: ۵", 5),
    ("you may have a slice", 5),
    ("may have a slice if you'd like", 5),
    ("\\boxed{5}", 5),
    ("۵ زیرا از همه کمتر اصرار می‌کند", 5),
    ("Response 5, because 1 and 2 are too insistent.", 5),
    # near-misses
    ("به نظرم ۵ یا ۴", None),
    ("I think 5 slices is too many.", None),
    ("have a slice", None),  # responses 2 and 5
    ("a slice", None),
    ("The number is 5 or 4.", None),
    ("My pick is 6", None),
    ("I think 3... no wait, 5.", 5),
    ("فکر کنم ۴... نه، ۵.", 5),
    ("5. Or maybe 4.", None),
    ("پاسخ: ۵. شاید هم ۴.", None),
]


HELD_OUT_OPTION_CASES = (
    COLLOQUIAL_CUE_CASES
    + ATTACHED_COPULA_CASES
    + SHORT_TEXT_CASES
    + NUMBER_CUE_CASES
    + WIDER_CUE_CASES
    + ALTERNATIVE_CASES
    + RETRACTION_CASES
    + CONCEDED_CASES
    + ORDINAL_CASES
)


@pytest.mark.parametrize(
    "reply, options, expected", HELD_OUT_OPTION_CASES, ids=[repr(c[0])[:40] for c in HELD_OUT_OPTION_CASES]
)
def test_held_out_option_forms(reply, options, expected):
    assert extract_choice(reply, options) == expected


@pytest.mark.parametrize("reply, expected", PICK_FIVE_CASES, ids=[repr(c[0])[:40] for c in PICK_FIVE_CASES])
def test_picks_of_five(reply, expected):
    assert read_pick(reply, RESPONSES) == expected


# A reply opening with a list of labels names options it then judges, most often rejected ones;
# the first label of the list is no answer ("4, 5 are too passive" was read as 4, "A, B and D are
# wrong" as A, "1, 2 and 4 are savory; 3 is sweet." as 1). Written before the rule.
LABEL_LIST_CASES = [
    ("A, B and D are wrong", None, None),
    ("A, B and D are wrong; C is right.", None, "C"),
    ("1, 2 and 4 are savory; 3 is sweet.", FOOD_EN, None),
    ("۱، ۲ و ۴ شور هستند؛ ۳ شیرین است.", FOOD_FA, None),
    ("C, D", None, None),
    ("C, definitely", None, "C"),
]
LABEL_LIST_PICKS = [
    ("4, 5 are too passive", None),
    ("1, 2 are too pushy", None),
    ("3, 4 and 5 are too soft; 1 is too strong. Go with 2.", None),
    ("1, 2: too pushy. 3: good. 4, 5: too passive.", None),
    ("3, because 1 and 2 are too pushy", 3),
    ("Response 3, as responses 1 and 2 are too insistent", 3),
]


@pytest.mark.parametrize("reply, options, expected", LABEL_LIST_CASES, ids=[repr(c[0])[:40] for c in LABEL_LIST_CASES])
def test_a_list_of_labels_is_no_answer_line(reply, options, expected):
    assert extract_choice(reply, options) == expected


@pytest.mark.parametrize("reply, expected", LABEL_LIST_PICKS, ids=[repr(c[0])[:40] for c in LABEL_LIST_PICKS])
def test_a_list_of_picks_is_no_pick(reply, expected):
    assert read_pick(reply, RESPONSES) == expected


# A ranking reply names the option ranked last after the chosen one; a line keyed "worst" / "least
# appropriate" / «بدترین» is no answer ("Most appropriate: 4\nLeast appropriate: 1" was read as 1).
# Written before the rule.
RANKED_PICKS = [
    ("Most appropriate: 4\nLeast appropriate: 1", 4),
    ("Least appropriate: 1\nMost appropriate: 4", 4),
    ("Most appropriate response: 4\nLeast appropriate response: 1", 4),
    ("Best: 3; worst: 1", 3),
    ("Best: 3. Worst: 1.", 3),
    ("بهترین: ۳\nبدترین: ۱", 3),
    ("Worst: 1", None),
    ("Least pushy response: 5", 5),
    ("Final pick: 2", 2),
    # a rejecting word elsewhere in the sentence is no key
    ("To avoid offending, the answer is 3.", 3),
    ("Nothing wrong here, the answer is 3.", 3),
    ("It would be wrong to insist, so the answer is 5.", 5),
    ("To avoid pressure, I choose 5.", 5),
    ("To avoid confusion: 3", 3),
    ("The worst: 1\nThe best: 4", 4),
]


@pytest.mark.parametrize("reply, expected", RANKED_PICKS, ids=[repr(c[0])[:40] for c in RANKED_PICKS])
def test_the_option_ranked_last_is_no_pick(reply, expected):
    assert read_pick(reply, RESPONSES) == expected


# A label with another option's text beside it contradicts itself: no answer, as "Removing shoes (D)"
# already is ("Answer: Haleem (3)" and "3) Haleem" were read as Haleem's option, "Answer: 3 (Haleem)"
# as 3). FOOD_EN: option 2 is Khoresht gheymeh. Written before the rule.
CONFLICT_CASES = [
    ("Answer: 3 (Khoresht gheymeh)", FOOD_EN, None),
    ("Answer: Khoresht gheymeh (3)", FOOD_EN, None),
    ("The answer is gheymeh (option 3).", FOOD_EN, None),
    ("3) Khoresht gheymeh", FOOD_EN, None),
    ("Option 3: Khoresht gheymeh", FOOD_EN, None),
    ("Answer: (3) Khoresht gheymeh", FOOD_EN, None),
    ("پاسخ: ۳ (خورشت قیمه)", FOOD_FA, None),
    ("Answer: 2 (Khoresht gheymeh)", FOOD_EN, "B"),
    ("Answer: Khoresht gheymeh (2)", FOOD_EN, "B"),
    ("2) Khoresht gheymeh", FOOD_EN, "B"),
    ("Option 2: Khoresht gheymeh", FOOD_EN, "B"),
    ("پاسخ: ۲ (خورشت قیمه)", FOOD_FA, "B"),
    ("Answer: 3 (see above)", FOOD_EN, "C"),
    ("Answer: 3 (not gheymeh)", FOOD_EN, "C"),
]


@pytest.mark.parametrize("reply, options, expected", CONFLICT_CASES, ids=[repr(c[0])[:40] for c in CONFLICT_CASES])
def test_a_label_beside_another_options_text_is_no_answer(reply, options, expected):
    assert extract_choice(reply, options) == expected


# A verdict corrected in the same line ("No... actually yes.", "No, actually yes.", «نه... در واقع بله»)
# is the correction's: these were read as the first word, the opposite verdict. Written before the rule.
@pytest.mark.parametrize(
    "reply, expected",
    [
        ("No... actually yes.", True),
        ("No, actually yes.", True),
        ("Yes... actually, no.", False),
        ("No... on second thought, yes.", True),
        ("نه... در واقع بله.", True),
        ("No, they actually did not follow tradition.", False),
        ("Yes, they actually did.", True),
        ("Actually, no one would do that.", None),
    ],
)
def test_a_corrected_verdict_is_the_correction(reply, expected):
    assert extract_yes_no(reply) is expected


# "I prefer" and "I'm going to say / go with" state a pick as "I choose" does (these replies gave
# no pick). Written before the rule.
PREFER_PICKS = [
    ("Response 1 is too pushy. Response 2 as well. I prefer response 4.", 4),
    ("I'm going to say 4.", 4),
    ("I am going to go with 5.", 5),
    ("I'd prefer not to pick 1; 4 is best.", 4),
    ("I prefer not to choose.", None),
]


@pytest.mark.parametrize("reply, expected", PREFER_PICKS, ids=[repr(c[0])[:40] for c in PREFER_PICKS])
def test_prefer_and_going_to_say_state_a_pick(reply, expected):
    assert read_pick(reply, RESPONSES) == expected


# An answer at the reply's start taken back right after it ("2. Wait, 3.", "B. Sorry, C.", «۲. ببخشید، ۳»)
# is what follows, as an answer statement's already was ("Answer: 3. Wait, no — 2."); these were read as
# the first, taken-back option. Written before the rule.
LEAD_RETRACTION_CASES = [
    ("2. Wait, 3.", FOOD_EN, "C"),
    ("2. No, wait, 3.", FOOD_EN, "C"),
    ("2 - wait, 3.", FOOD_EN, "C"),
    ("2... no, 3", FOOD_EN, "C"),
    ("B. Sorry, C.", None, "C"),
    ("B. No wait, C.", None, "C"),
    ("۲. ببخشید، ۳.", FOOD_FA, "C"),
    ("۲. نه، صبر کن، ۳.", FOOD_FA, "C"),
    ("2. Wait.", FOOD_EN, "B"),
    ("C. Sorry, I cannot explain more.", None, "C"),
    ("2. Hmm, wait. Yes, 2.", FOOD_EN, "B"),
    ("2. No, 3 would be too passive.", FOOD_EN, "B"),
    ("C. No other option fits.", None, "C"),
]


@pytest.mark.parametrize(
    "reply, options, expected", LEAD_RETRACTION_CASES, ids=[repr(c[0])[:40] for c in LEAD_RETRACTION_CASES]
)
def test_an_answer_taken_back_at_the_start_is_what_follows(reply, options, expected):
    assert extract_choice(reply, options) == expected


def test_a_pick_taken_back_at_the_start_is_what_follows():
    assert read_pick("Response 2. Wait, no, 4.", RESPONSES) == 4


# Two lines each an option's label and its own text (a partial echo of the option list, as a base
# model continues its prompt) name two options and choose neither; they were read as the last one.
# Written before the rule.
PARTIAL_ECHO_CASES = [
    ("2. Khoresht gheymeh\n3. Kabab koobideh", FOOD_EN, None),
    ("B) Khoresht gheymeh\nC) Kabab koobideh", FOOD_EN, None),
    ("۳. کباب کوبیده\n۴. آش رشته", FOOD_FA, None),
    ("2. Khoresht gheymeh\n3. Kabab koobideh\n\nThe answer is 3.", FOOD_EN, "C"),
    ("2. Khoresht gheymeh", FOOD_EN, "B"),
]


@pytest.mark.parametrize(
    "reply, options, expected", PARTIAL_ECHO_CASES, ids=[repr(c[0])[:40] for c in PARTIAL_ECHO_CASES]
)
def test_two_echoed_option_lines_are_no_answer(reply, options, expected):
    assert extract_choice(reply, options) == expected


def test_two_echoed_response_lines_are_no_pick():
    assert read_pick(f"4. {RESPONSES[3]}\n5. {RESPONSES[4]}", RESPONSES) is None


# "I don't know, maybe X" is the hedge "I'm not sure, maybe X" is (it was read as X); an answer stated
# after not knowing something else still counts. Written before the rule.
@pytest.mark.parametrize(
    "reply, options, expected",
    [
        ("I don't know, maybe gheymeh.", DISH_EN, None),
        ("No idea, maybe gheymeh.", DISH_EN, None),
        ("I do not know, perhaps gheymeh.", DISH_EN, None),
        ("نمی‌دانم، شاید قیمه.", DISH_FA, None),
        ("نمیدونم، شاید قیمه", DISH_FA, None),
        ("I don't know much about this dish, but the answer is 3.", FOOD_EN, "C"),
    ],
)
def test_not_knowing_then_maybe_is_a_hedge(reply, options, expected):
    assert extract_choice(reply, options) == expected
