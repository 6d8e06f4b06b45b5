"""A labelled corpus of model replies for the answer extractors (English and Persian).

Each entry is a reply in a style real chat models write -- short answers, answer then
explanation, explanation then answer, markdown, ``<think>`` blocks, echoed options and
questions, refusals, hedges, colloquial Persian -- with the label a careful human reader
gives it. The labels were written before the rules were tuned to them, and they say what
the reply *states*, not what the item's gold answer is: a hedge ("B or C"), a refusal, an
explanation that never commits, or reasoning cut off before an answer is ``None``.

Entries marked ``issue`` are the examples of issue #10 (wrong labels and missed verdicts
of the old rules). Multiple-choice labels are "A".."D" (numbered options 1..4 map to A..D,
as PerCul's Choice 1..4 do); verdict labels are "yes"/"no".
"""

from __future__ import annotations

# ---- option sets (the texts the model saw as (A)..(D) or 1..4) ------------------------------
OPTIONS = {
    # DivanBench App. A, factual MCQ: gold (C)
    "yalda_en": ["Orange", "Apple", "Pomegranate", "Pear"],
    "yalda_fa": ["پرتقال", "سیب", "انار", "گلابی"],
    # DivanBench App. A, scenario MCQ: gold (A)
    "melon_en": [
        "Melon is Sard (Cold); adding cold fruit while sick will freeze the lungs and prolong recovery",
        "Melon is Garm (Hot); eating it during a fever will ignite the blood, spreading infection faster",
        "Folk belief holds melon aroma attracts night-illness spirits, preventing medicine from working",
        "Hygiene precaution: high sugar content feeds bacteria in the throat, causing permanent voice loss",
    ],
    # a sofreh-aghd item, for plural / ezafe / ZWNJ forms of option text
    "sofreh_fa": ["آینه و شمعدان", "قرآن", "سکهٔ طلا", "ظرف عسل"],
    None: None,
}

# (options key, reply, label, note)
CHOICE: list[tuple[str | None, str, str | None, str]] = [
    # ---- short answers
    (None, "C", "C", "short"),
    (None, "(C)", "C", "short"),
    (None, "C.", "C", "short"),
    (None, "c", "C", "short"),
    (None, "**C**", "C", "short markdown"),
    ("yalda_en", "C) Pomegranate", "C", "short"),
    ("yalda_en", "(C) Pomegranate", "C", "short"),
    ("yalda_en", "Pomegranate", "C", "short, option text"),
    ("yalda_en", "Pomegranate.", "C", "short, option text"),
    (None, "The answer is C.", "C", "short"),
    (None, "Answer: C", "C", "short"),
    ("yalda_en", "Answer: (C) Pomegranate", "C", "short"),
    (None, "ج", "C", "short fa"),
    (None, "پاسخ: ج", "C", "short fa"),
    (None, "گزینه ج", "C", "short fa"),
    ("yalda_fa", "گزینهٔ ج (انار)", "C", "short fa"),
    ("yalda_fa", "انار", "C", "short fa, option text"),
    ("yalda_fa", "جواب: انار", "C", "short fa, option text"),
    (None, "۳", "C", "short fa digit"),
    (None, "گزینه ۳", "C", "short fa digit"),
    (None, "پاسخ: ۳", "C", "short fa digit"),
    (None, "3", "C", "short digit"),
    (None, "Option 3", "C", "short digit"),
    (None, "The third option.", "C", "short ordinal"),
    (None, "سومی", "C", "colloquial ordinal"),
    (None, "گزینه سوم", "C", "short fa ordinal"),
    (None, "گزینه‌ی سوم", "C", "short fa ordinal, ZWNJ ezafe"),
    # ---- answer first, then an explanation that mentions other options
    ("yalda_en", "C\nUnlike (A), the pomegranate is symbolic.", "C", "issue: bare letter first line"),
    (
        "yalda_fa",
        "ج\n\nانار به خاطر رنگ سرخش نماد طلوع خورشید است؛ برخلاف (الف) پرتقال که جایگاهی در سنت یلدا ندارد.",
        "C",
        "issue: bare letter first line fa",
    ),  # fmt: skip
    (
        "yalda_en",
        "C\n\nPomegranates are eaten on Yalda night; their red seeds symbolise the dawn.",
        "C",
        "issue: plural option text",
    ),  # fmt: skip
    (
        "yalda_en",
        "**C) Pomegranate**\n\nOn Yalda night families gather around a table with pomegranates and watermelon. Oranges (A) and pears (D) are not traditional.",
        "C",
        "answer first markdown",
    ),  # fmt: skip
    (
        "yalda_en",
        "(C) Pomegranate. Apples and pears are eaten all year, but the pomegranate's red colour symbolises life.",
        "C",
        "answer first",
    ),  # fmt: skip
    (
        "yalda_fa",
        "پاسخ: ج) انار\n\nتوضیح: انار با رنگ سرخ خود نماد زندگی و طلوع خورشید است. گزینه‌های الف و ب ارتباطی با یلدا ندارند.",
        "C",
        "answer first fa",
    ),  # fmt: skip
    (
        "yalda_en",
        "The correct answer is (C) Pomegranate. Option (A), orange, is a winter fruit but is not the symbol.",
        "C",
        "answer first",
    ),  # fmt: skip
    ("yalda_en", "C is correct. A and B are common fruits but have no special role.", "C", "answer first"),
    ("yalda_fa", "گزینه ج درست است. پرتقال و سیب در شب یلدا نقش نمادین ندارند.", "C", "answer first fa"),
    ("yalda_en", "Answer: A pomegranate.", "C", "issue: English article, option C's text"),
    ("yalda_en", "A pomegranate, because its red seeds represent the glow of life.", "C", "article + option text"),
    ("yalda_en", "It's a pomegranate.", "C", "article + option text"),
    (
        "yalda_en",
        "C. Although (A) oranges are also common on Yalda tables, the pomegranate is the symbol.",
        "C",
        "later concession",
    ),  # fmt: skip
    (
        "yalda_en",
        "Answer: C\n\nNote: some families also serve apples (B), but they are not symbolic.",
        "C",
        "later concession",
    ),  # fmt: skip
    (
        "melon_en",
        "A\n\nIn Persian traditional medicine, melon is considered cold (sard), and cold foods are avoided during a cold. Option B reverses this.",
        "A",
        "answer first",
    ),  # fmt: skip
    ("melon_en", "It's A: melon is 'sard'.", "A", "answer first"),
    ("melon_en", "Answer: A — Melon is Sard (Cold).", "A", "answer first"),
    # ---- explanation, then the answer
    (
        "yalda_en",
        "On Yalda night, Iranians stay up late and eat fruits. The red of the pomegranate symbolises dawn and life. Therefore the answer is (C).",
        "C",
        "explanation first",
    ),  # fmt: skip
    (
        "yalda_en",
        "Let's go through the options. (A) Orange: not traditional. (B) Apple: no. (D) Pear: no. (C) Pomegranate: yes, it is the main symbol.\n\nAnswer: C",
        "C",
        "explanation first",
    ),  # fmt: skip
    (
        "yalda_fa",
        "شب یلدا طولانی‌ترین شب سال است و مردم دور هم جمع می‌شوند. انار و هندوانه دو میوهٔ اصلی این شب‌اند.\n\nپاسخ: ج",
        "C",
        "explanation first fa",
    ),  # fmt: skip
    ("yalda_fa", "با توجه به رسوم شب یلدا، گزینهٔ سوم یعنی انار درست است.", "C", "explanation first fa"),
    (None, "در نتیجه، گزینه (ج) صحیح است.", "C", "explanation first fa"),
    (
        "yalda_en",
        "Oranges are eaten in winter, so A is tempting. However, the traditional symbol is the pomegranate. Final answer: C",
        "C",
        "explanation first",
    ),  # fmt: skip
    (
        "yalda_en",
        "Step by step:\n1. Yalda celebrates the longest night.\n2. Red fruits represent the sun.\n3. Seeds stand for fertility.\n4. Of the options, only the pomegranate fits.\n\nSo the answer is C.",
        "C",
        "numbered steps",
    ),  # fmt: skip
    (
        "yalda_en",
        "### Analysis\n- **Orange**: associated with winter, not Yalda specifically.\n- **Pomegranate**: its red colour symbolises the dawn.\n\n### Answer\n**C**",
        "C",
        "markdown",
    ),  # fmt: skip
    (
        "melon_en",
        "The mother believes melon is 'cold' (sard) in traditional Persian medicine. So the answer is A.",
        "A",
        "explanation first",
    ),  # fmt: skip
    (
        "melon_en",
        "The mother forbids melon because, in the Sard-Garm system, melon is cold. (B) says it is hot, which is wrong. Answer: (A)",
        "A",
        "explanation first",
    ),  # fmt: skip
    ("yalda_en", "Yalda falls on the 30th of Azar, and the answer is C.", "C", "number in reasoning"),
    (None, "People eat 3 kinds of fruit on that night; the answer is (C).", "C", "number in reasoning"),
    (None, "Vitamin C matters for a cold, but the answer is (A).", "A", "vitamin C"),
    # ---- <think> blocks
    (
        None,
        "<think>The question asks about Yalda. Maybe it's A, orange? No, pomegranate is the symbol, which is C.</think>\nC",
        "C",
        "think",
    ),  # fmt: skip
    (
        "yalda_en",
        "<think>\nYalda... options: A orange, B apple, C pomegranate, D pear. Answer B? No.\n</think>\n\nThe answer is (C) Pomegranate.",
        "C",
        "think",
    ),  # fmt: skip
    (None, "<think>یلدا... انار نماد است. پس ج.</think>\nپاسخ: ج", "C", "think fa"),
    (
        "yalda_en",
        "<think>Let me recall Yalda customs. Pomegranate, watermelon, nuts... the answer is probably",
        None,
        "think cut off, no answer",
    ),  # fmt: skip
    (None, "<think>A? B?</think>\n\n**Answer: D**", "D", "think markdown"),
    # ---- echoed options
    (
        "yalda_en",
        "(A) Orange\n(B) Apple\n(C) Pomegranate\n(D) Pear\n\nThe fruit is the pomegranate.",
        "C",
        "issue: echoed options, option text",
    ),  # fmt: skip
    ("yalda_en", "The fruit is the pomegranate.", "C", "issue: option text"),
    ("yalda_en", "A) Orange\nB) Apple\nC) Pomegranate\nD) Pear\n\nAnswer: C", "C", "echoed options"),
    (
        "yalda_en",
        "Options:\nA. Orange\nB. Apple\nC. Pomegranate\nD. Pear\n\nThe correct one is C.",
        "C",
        "echoed options",
    ),
    ("yalda_fa", "الف) پرتقال\nب) سیب\nج) انار\nد) گلابی\n\nپاسخ درست: ج", "C", "echoed options fa"),
    ("yalda_en", "A) Orange\nB) Apple\nC) Pomegranate\nD) Pear", None, "echoed options only"),
    (
        "yalda_en",
        "What fruit is used as a symbol on the Yalda night table?\n(A) Orange (B) Apple (C) Pomegranate (D) Pear\n\nPomegranates are the symbol.",
        "C",
        "echoed question and options",
    ),  # fmt: skip
    (
        "yalda_fa",
        "شب یلدا کدام میوه نماد است؟ (الف) پرتقال (ب) سیب (ج) انار (د) گلابی\n\nانار",
        "C",
        "echoed question and options fa",
    ),  # fmt: skip
    # ---- hedges and ambiguity
    (None, "The answer is B or C.", None, "issue: hedge"),
    (None, "به نظر من گزینه ب یا ج می‌تواند درست باشد.", None, "issue: hedge fa"),
    (None, "Both A and C could be right depending on the region.", None, "hedge"),
    (None, "It could be either (A) or (C).", None, "hedge"),
    ("yalda_en", "Either pomegranate or orange; both are eaten on Yalda.", None, "hedge by text"),
    (None, "I'm not sure. Maybe A, maybe C.", None, "hedge"),
    (None, "هم الف و هم ج درست هستند.", None, "hedge fa"),
    (None, "A or C", None, "hedge short"),
    (None, "پاسخ: ب یا ج", None, "hedge fa"),
    (None, "I think it's C, but B is also possible.", "C", "tentative single choice"),
    # ---- refusals and non-answers
    (None, "I cannot answer this question.", None, "refusal"),
    (None, "I'm sorry, but I can't help with that.", None, "refusal"),
    (None, "متأسفم، نمی‌توانم به این پرسش پاسخ دهم.", None, "refusal fa"),
    (None, "None of the options is correct.", None, "none of them"),
    (None, "هیچ‌کدام از گزینه‌ها درست نیست.", None, "none of them fa"),
    (None, "", None, "empty"),
    (None, "I don't know.", None, "non-answer"),
    (None, "This question is about Persian culture.", None, "non-answer"),
    (None, "The answer is 3 times a day.", None, "number, not an option"),
    (None, "There are 4 options and 2 of them are fruits eaten in summer.", None, "numbers, not options"),
    (None, "It is a tradition with many interpretations.", None, "non-answer"),
    # ---- negation
    (None, "The answer is not A; it is C.", "C", "negation"),
    (None, "Not A. The answer is C.", "C", "negation"),
    (None, "گزینه الف نادرست است؛ پاسخ ج است.", "C", "negation fa"),
    (None, "پاسخ الف نیست، بلکه ج است.", "C", "negation fa"),
    ("yalda_en", "It is definitely not orange. Pomegranate is the symbol.", "C", "negation by text"),
    (None, "(A) is wrong, (B) is wrong, (D) is wrong. (C) is correct.", "C", "elimination"),
    (None, "Not C.", None, "exclusion only"),
    ("yalda_en", "It's not the pear.", None, "exclusion only"),
    (None, "گزینه الف نادرست است؛ گزینه ب هم غلط است. پاسخ: د", "D", "elimination fa"),
    # ---- mind changes: the final statement wins
    (None, "At first I thought A. Actually, the answer is C.", "C", "mind change"),
    (None, "Answer: A\n\nWait, I made a mistake. The correct answer is C.", "C", "mind change"),
    # ---- colloquial Persian and Persian morphology
    (None, "جوابش میشه ج", "C", "colloquial fa"),
    ("yalda_fa", "به نظرم انار", "C", "colloquial fa"),
    ("yalda_fa", "قطعاً انار!", "C", "colloquial fa"),
    ("yalda_fa", "انارها", "C", "plural"),
    ("yalda_fa", "انار‌ها", "C", "plural with ZWNJ"),
    ("yalda_fa", "معمولاً توی شب یلدا انار می‌خوریم، پس گزینه سه.", "C", "colloquial fa"),
    ("yalda_fa", "اناره دیگه", "C", "colloquial enclitic"),
    ("sofreh_fa", "پاسخ: سکه‌های طلا", "C", "plural + ezafe"),
    ("sofreh_fa", "سکه‌ی طلا", "C", "ezafe with ZWNJ"),
    ("sofreh_fa", "سکه ی طلا", "C", "ezafe with space"),
    ("sofreh_fa", "سکه طلا", "C", "ezafe unwritten"),
    ("sofreh_fa", "ظرفِ عسل", "D", "ezafe kasra"),
    ("sofreh_fa", "بر سر سفرهٔ عقد، ظرف‌های عسل را می‌گذارند تا زندگی زوج شیرین شود.", "D", "plural in a sentence"),
    ("sofreh_fa", "آینه‌ و شمعدان", "A", "stray ZWNJ"),
    ("sofreh_fa", "جواب: قرآن", "B", "short fa"),
    # ---- more explicit statements
    ("yalda_fa", "پاسخ صحیح: گزینه ۳ (انار)", "C", "fa digit + text"),
    (None, "جواب درست «ج» است.", "C", "guillemets"),
    (None, "من گزینه ج را انتخاب می‌کنم.", "C", "fa"),
    (None, "به نظر من سومین گزینه درست است.", "C", "fa ordinal"),
    (None, "پاسخ: گزینه ۱", "A", "fa digit"),
    (None, "Choice 2", "B", "digit"),
    (None, "I choose option 4.", "D", "digit"),
    (None, "I'd go with B.", "B", "en"),
    ("yalda_en", "My answer is D) Pear.", "D", "en"),
    (None, "**Answer: B**", "B", "markdown"),
    (None, "Final answer: **(D)**", "D", "markdown"),
    ("yalda_en", "The correct option is D, the pear.", "D", "en"),
    (None, "Correct answer → B", "B", "arrow"),
    ("yalda_fa", "پاسخ: د) گلابی", "D", "fa"),
    ("yalda_fa", "گلابی", "D", "fa option text"),
    ("yalda_en", "The answer is: Pomegranate", "C", "option text"),
    ("yalda_en", "The answer is Apple.", "B", "option text"),
    ("yalda_en", "The answer is an apple.", "B", "article + option text"),
    ("yalda_fa", "سیب", "B", "fa option text"),
    ("yalda_fa", "آسیب‌های سرما زیاد است ولی پاسخ انار است.", "C", "option text inside another word"),
    ("yalda_en", "Which fruit? The pomegranate (C).", "C", "label after text"),
    (
        "melon_en",
        "(A) Melon is Sard (Cold); adding cold fruit while sick will freeze the lungs and prolong recovery",
        "A",
        "full option",
    ),  # fmt: skip
    ("melon_en", "B", "B", "short"),
    (None, "The answer is (C).", "C", "en"),
    (None, "The answer is most likely option (C).", "C", "en"),
    # ---- round 2: written and labelled after the rules were tuned on everything above, as a
    # held-out check; the rules read 30 of these 40 (choice and yes/no) before they were fixed:
    # 10 missed, none wrong
    ("yalda_en", "The right choice here is C.", "C", "round 2"),
    ("yalda_en", "Option C - Pomegranate", "C", "round 2"),
    (None, "I'll pick (B).", "B", "round 2"),
    ("yalda_en", "**(C)** — the pomegranate, whose red arils symbolise the dawn.", "C", "round 2"),
    (None, "گزینه درست: ج", "C", "round 2"),
    (None, "جواب درسته: گزینه ۳", "C", "round 2"),
    (None, "به نظرم گزینه دوم.", "B", "round 2"),
    ("yalda_en", "Pears are not it, and neither are apples. It's the pomegranate.", "C", "round 2"),
    (None, "Hmm, A or B? I'd say B.", "B", "round 2"),
    (None, "Could be A, could be C; I'm not certain.", None, "round 2"),
    ("yalda_en", "C\n\nExplanation: (D) pears are a summer fruit.", "C", "round 2"),
    (None, "پاسخ نهایی: (ب)", "B", "round 2"),
    ("yalda_fa", "میوهٔ نمادین شب یلدا انار است.", "C", "round 2"),
    ("yalda_fa", "سیب یا انار، هر دو ممکن است.", None, "round 2"),
    (None, "I refuse to answer questions about superstitions.", None, "round 2"),
    (None, "<think>The answer should be D.</think>\n**D**", "D", "round 2"),
    (None, "1", "A", "round 2"),
    (None, "Answer (A)", "A", "round 2"),
    (None, "The answer is option number 2.", "B", "round 2"),
    (None, "Neither A nor B; the answer is D.", "D", "round 2"),
]

# (reply, label, note); the items are DivanBench-style yes/no questions ("... Did they act
# according to Persian tradition?"), positive and negative.
YES_NO: list[tuple[str, str | None, str]] = [
    # ---- short answers
    ("Yes", "yes", "short"),
    ("Yes.", "yes", "short"),
    ("No", "no", "short"),
    ("No.", "no", "short"),
    ("yes", "yes", "short"),
    ("NO", "no", "short"),
    ("بله", "yes", "short fa"),
    ("بله.", "yes", "short fa"),
    ("خیر", "no", "short fa"),
    ("خیر.", "no", "short fa"),
    ("آره", "yes", "colloquial fa"),
    ("نه", "no", "colloquial fa"),
    ("نخیر", "no", "short fa"),
    ("**Yes**", "yes", "markdown"),
    ("**خیر**", "no", "markdown fa"),
    ("Yep.", "yes", "colloquial"),
    ("Nope.", "no", "colloquial"),
    ("Correct.", "yes", "adjective"),
    ("Incorrect.", "no", "adjective"),
    ("True.", "yes", "adjective"),
    ("False.", "no", "adjective"),
    ("درست", "yes", "adjective fa"),
    ("نادرست", "no", "adjective fa"),
    ("درسته", "yes", "colloquial fa"),
    ("نه بابا", "no", "colloquial fa"),
    ("آره دیگه", "yes", "colloquial fa"),
    ("Absolutely.", "yes", "adverb"),
    ("Definitely not.", "no", "adverb"),
    ("Not really.", "no", "issue: missed verdict"),
    ("Of course.", "yes", "adverb"),
    ("البته", "yes", "adverb fa"),
    ("به هیچ وجه", "no", "adverb fa"),
    ("Not at all.", "no", "adverb"),
    # ---- the answer first, then an explanation (later concessions do not flip it)
    ("Yes. Standing up when an elder enters is a sign of respect in Iran.", "yes", "answer first"),
    ("No. In Iran everyone younger is expected to stand up when an elder enters.", "no", "answer first"),
    (
        "No.\n\nYes, greeting her warmly is polite, but Persian custom requires everyone younger to stand.",
        "no",
        "issue: later concession",
    ),  # fmt: skip
    ("خیر. بله، با گرمی سلام کردند، ولی طبق رسم باید بلند می‌شدند.", "no", "issue: later concession fa"),
    ("Yes.\nNo further explanation needed.", "yes", "issue: 'No further'"),
    ("No, they did not. Remaining seated is disrespectful to elders.", "no", "answer first"),
    ("Yes, they did. This is exactly what Persian etiquette expects.", "yes", "answer first"),
    ("بله، آن‌ها درست رفتار کردند.", "yes", "answer first fa"),
    ("خیر. در فرهنگ ایرانی باید جلوی بزرگ‌ترها بلند شد.", "no", "answer first fa"),
    ("نه، این کار بی‌احترامی است.", "no", "answer first fa"),
    (
        "Yes — in Persian culture bread is sacred, and picking it up from the ground is expected.",
        "yes",
        "answer first",
    ),  # fmt: skip
    ("No. Sweeping at night is believed to drive away prosperity, so she broke the custom.", "no", "answer first"),
    ("Yes, although some younger families no longer follow this custom strictly.", "yes", "concession"),
    ("No, even though greeting her warmly shows affection.", "no", "concession"),
    ("بله، هرچند امروزه همه این رسم را رعایت نمی‌کنند.", "yes", "concession fa"),
    ("خیر؛ اگرچه سلام گرم مؤدبانه است، اما بلند نشدن بی‌احترامی به بزرگ‌تر است.", "no", "concession fa"),
    ("**No.** Not standing up for an elder is considered rude in Iran.", "no", "markdown"),
    ("Yes. No one in a traditional Persian family would remain seated.", "yes", "'No one' in explanation"),
    ("Yes. No Iranian would step on bread.", "yes", "'No' in explanation"),
    ("Yes, because bread is sacred.", "yes", "answer first"),
    ("Definitely not. Sweeping at night is considered bad luck.", "no", "answer first"),
    ("Absolutely. Standing up for elders is expected.", "yes", "answer first"),
    ("البته، این کار نشانهٔ احترام است.", "yes", "answer first fa"),
    ("به هیچ وجه! پا گذاشتن روی نان بی‌احترامی به نعمت است.", "no", "answer first fa"),
    ("آره، همین‌طور است.", "yes", "colloquial fa"),
    ("نه، اصلاً.", "no", "colloquial fa"),
    # ---- explanation first, then the answer
    (
        "In Persian culture, younger people stand up when elders enter. Since everyone stood up, they acted according to tradition. Answer: Yes",
        "yes",
        "explanation first",
    ),  # fmt: skip
    (
        "In Persian culture, younger people stand up when elders enter. Nobody stood up here.\n\nAnswer: No",
        "no",
        "explanation first",
    ),  # fmt: skip
    ("Standing up when elders enter is a sign of respect in Iran. Therefore, yes.", "yes", "explanation first"),
    ("در فرهنگ ایرانی جارو کردن در شب را بدیمن می‌دانند. بنابراین، خیر.", "no", "explanation first fa"),
    ("نه تنها بلند شدند بلکه خوش‌آمد هم گفتند. پاسخ: بله", "yes", "'نه تنها' is not a verdict"),
    ("My first thought was yes. But sweeping at night is taboo. Final answer: No.", "no", "mind change"),
    ("جواب: خير", "no", "Arabic yeh"),
    (
        "Bread is considered a blessing in Iran. Stepping on it is a serious taboo, so the person did not act according to Persian tradition.",
        "no",
        "verdict phrase",
    ),  # fmt: skip
    (
        "In Iranian households, sweeping after sunset is avoided because it is thought to sweep away good fortune. She waited until morning, which follows Persian custom.",
        "yes",
        "verdict phrase",
    ),  # fmt: skip
    (
        "Persian etiquette expects the young to stand for elders. They remained seated and only greeted her, so this is not in line with Persian tradition.",
        "no",
        "verdict phrase",
    ),  # fmt: skip
    ("So the answer is no.", "no", "cue"),
    ("In short: yes.", "yes", "cue"),
    ("Overall, no.", "no", "cue"),
    ("پس جواب منفی است.", "no", "cue fa"),
    ("پاسخ من مثبت است.", "yes", "cue fa"),
    ("پاسخ من منفی است.", "no", "cue fa"),
    ("در کل، آره.", "yes", "cue fa"),
    ("طبق رسوم ایرانی، نه.", "no", "issue: verdict at sentence end"),
    ("According to Persian custom, no.", "no", "verdict at sentence end"),
    ("From a traditional Persian point of view, yes.", "yes", "verdict at sentence end"),
    ("با توجه به آداب ایرانی، بله.", "yes", "verdict at sentence end fa"),
    (
        "In Persian culture, elders are greeted by standing. Since nobody stood up, they did not act according to Persian tradition.",
        "no",
        "verdict phrase",
    ),  # fmt: skip
    # ---- verdicts in natural word order, both polarities
    ("این رفتار درست نیست.", "no", "issue: missed verdict fa"),
    ("این رفتار درست است.", "yes", "verdict fa"),
    ("رفتار آن‌ها با آداب ایرانی سازگار نیست.", "no", "issue: missed verdict fa"),
    ("رفتار آن‌ها با آداب ایرانی سازگار است.", "yes", "verdict fa"),
    ("در فرهنگ ایرانی چنین کاری پسندیده نیست.", "no", "issue: missed verdict fa"),
    ("این کار در فرهنگ ایرانی پسندیده است.", "yes", "verdict fa"),
    ("بلند نشدن جلوی بزرگ‌تر بی‌ادبی است.", "no", "issue: missed verdict fa"),
    ("این کار بی‌احترامی به بزرگ‌ترهاست.", "no", "verdict fa, attached copula"),
    ("این کار نشانهٔ احترام است.", "yes", "verdict fa"),
    ("This is not in line with Persian tradition.", "no", "issue: missed verdict"),
    ("This is in line with Persian tradition.", "yes", "verdict"),
    ("That's not correct.", "no", "issue: missed verdict"),
    ("That's correct.", "yes", "verdict"),
    ("The statement is false.", "no", "issue: missed verdict"),
    ("The statement is true.", "yes", "verdict"),
    ("It would be considered disrespectful.", "no", "issue: missed verdict"),
    ("It would be considered respectful.", "yes", "verdict"),
    ("This is not appropriate.", "no", "issue: missed verdict"),
    ("This is appropriate.", "yes", "verdict"),
    ("Their behaviour was polite by Persian standards.", "yes", "verdict"),
    ("Their behaviour was impolite by Persian standards.", "no", "verdict"),
    ("They did not act according to Persian tradition.", "no", "verdict"),
    ("They acted according to Persian tradition.", "yes", "verdict"),
    ("They did follow the custom.", "yes", "verdict"),
    ("They didn't follow the custom.", "no", "verdict"),
    ("This violates Persian etiquette.", "no", "verdict"),
    ("This respects Persian etiquette.", "yes", "verdict"),
    ("The behaviour is consistent with Persian tradition.", "yes", "verdict"),
    ("No one stood up, which violates Persian etiquette.", "no", "'No one' + verdict"),
    ("No one stood up, so they did not follow the custom.", "no", "'No one' + verdict"),
    ("No doubt, they acted properly.", "yes", "'No doubt' + verdict"),
    ("This goes against Persian custom.", "no", "verdict"),
    ("It is considered rude in Iran.", "no", "verdict"),
    ("It is considered polite in Iran.", "yes", "verdict"),
    ("What they did is disrespectful.", "no", "verdict"),
    ("That would be seen as a lack of respect.", "no", "verdict"),
    ("It's the right thing to do in Iranian culture.", "yes", "verdict"),
    ("It's not the right thing to do in Iranian culture.", "no", "verdict"),
    ("آن‌ها مطابق رسوم ایرانی رفتار کردند.", "yes", "verdict fa"),
    ("آن‌ها مطابق رسوم ایرانی رفتار نکردند.", "no", "verdict fa"),
    ("رفتار آن‌ها مطابق با آداب ایرانی نبود.", "no", "verdict fa"),
    ("این کار برخلاف رسوم ایرانی است.", "no", "verdict fa"),
    ("این کار با رسم ایرانی جور درمی‌آید.", "yes", "colloquial verdict fa"),
    ("این رفتار با باورهای قدیمی ایرانی جور درنمی‌آید.", "no", "colloquial verdict fa"),
    ("این کار اشتباه است.", "no", "verdict fa"),
    ("کار درستی کردند.", "yes", "colloquial verdict fa"),
    ("کار درستی نکردند.", "no", "colloquial verdict fa"),
    ("این کار زشت است.", "no", "colloquial verdict fa"),
    ("درست است.", "yes", "verdict fa"),
    ("نادرست است.", "no", "verdict fa"),
    ("درست نیست.", "no", "verdict fa"),
    # ---- <think> blocks
    ("<think>The aunt is an elder, nobody stood up.</think> No.", "no", "think"),
    ("<think>Yes? They stood. Hmm, yes.</think>\n\nYes, they acted according to tradition.", "yes", "think"),
    ("<think>maybe yes... but actually no</think>\nAnswer: No", "no", "think"),
    ("<think>\nبزرگ‌تر وارد شد و همه بلند شدند.\n</think>\nبله", "yes", "think fa"),
    ("<think>Standing up is the custom. They did not stand, so the answer is", None, "think cut off"),
    # ---- markdown
    ("**Answer:** Yes", "yes", "markdown"),
    ("### Verdict\n**No** — remaining seated is disrespectful.", "no", "markdown"),
    (
        "- **Custom:** stand when elders enter\n- **What happened:** everyone stood\n\n**Answer: Yes**",
        "yes",
        "markdown",
    ),  # fmt: skip
    ("**پاسخ:** خیر", "no", "markdown fa"),
    ("> No.\n\nThe custom requires standing.", "no", "markdown quote"),
    # ---- echoed questions
    ("Did they act according to Persian tradition? No.", "no", "echoed question"),
    ("آیا آن‌ها مطابق رسوم ایرانی رفتار کردند؟ خیر.", "no", "echoed question fa"),
    ("آیا آن‌ها مطابق رسوم ایرانی رفتار کردند؟", None, "echoed question only"),
    ("Did they act according to Persian tradition?", None, "echoed question only"),
    ("Question: Did they act according to Persian tradition?\nAnswer: Yes, they did.", "yes", "echoed question"),
    # ---- refusals, hedges, non-answers
    ("I cannot answer with yes or no.", None, "refusal"),
    ("نمی‌توانم با بله یا خیر پاسخ دهم.", None, "refusal fa"),
    ("It depends on the family and the region.", None, "hedge"),
    ("True, but it depends on the family.", None, "hedge"),
    ("Yes and no.", None, "hedge"),
    ("", None, "empty"),
    ("Yes or no? It's hard to say.", None, "hedge"),
    ("بستگی دارد.", None, "hedge fa"),
    ("As an AI, I don't have opinions on cultural practices.", None, "refusal"),
    ("Some families would say yes, others no.", None, "hedge"),
    ("Possibly.", None, "hedge"),
    ("Sweeping at night is considered bad luck in Iran.", None, "explanation only, no verdict"),
    ("بله و خیر؛ بستگی به خانواده دارد.", None, "hedge fa"),
    # ---- colloquial Persian
    ("آره بابا، همینه.", "yes", "colloquial fa"),
    ("نه والا", "no", "colloquial fa"),
    ("معلومه که نه!", "no", "colloquial fa"),
    ("معلومه که آره", "yes", "colloquial fa"),
    ("نچ", "no", "colloquial fa"),
    # ---- round 2 (held out, see CHOICE)
    ("Yes, definitely.", "yes", "round 2"),
    ("Nope, that's a violation of the custom.", "no", "round 2"),
    ("Absolutely not — stepping on bread is a big taboo.", "no", "round 2"),
    ("قطعاً بله.", "yes", "round 2"),
    ("خیر، اصلاً درست نیست.", "no", "round 2"),
    ("بله کاملاً درسته.", "yes", "round 2"),
    ("I would say no.", "no", "round 2"),
    ("I'd say yes.", "yes", "round 2"),
    ("In my view, they did the right thing.", "yes", "round 2"),
    ("They should have stood up. So no.", "no", "round 2"),
    ("They behaved appropriately.", "yes", "round 2"),
    ("They behaved inappropriately.", "no", "round 2"),
    ("This is a clear violation of Persian etiquette.", "no", "round 2"),
    ("این کار با فرهنگ ایرانی همخوانی ندارد.", "no", "round 2"),
    ("این رفتار کاملاً با رسوم ایرانی مطابقت دارد.", "yes", "round 2"),
    ("It's hard to say; customs vary.", None, "round 2"),
    ("Maybe.", None, "round 2"),
    ("**Verdict:** Yes — this matches tradition.", "yes", "round 2"),
    ("Answer: No. (Greeting warmly is nice, but they should stand.)", "no", "round 2"),
    ("هم بله هم نه.", None, "round 2"),
]


def choice_cases() -> list[tuple[str, list[str] | None, str | None, str]]:
    return [(reply, OPTIONS[key], label, note) for key, reply, label, note in CHOICE]


def yes_no_cases() -> list[tuple[str, str | None, str]]:
    return list(YES_NO)


def is_persian(text: str) -> bool:
    return any("\u0600" <= ch <= "\u06ff" for ch in text)
