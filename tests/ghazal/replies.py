"""Replies to score, built deterministically from real gold lines: the pack's scorer and the authors' scripts must
give each the same label (tests/ghazal/test_ghazal_scoring.py runs the scripts as the reference).

Each case is (kind, reply, gold). The kinds cover what a model answers: the line verbatim, with one, two, three,
four, several edits (on both sides of every length band's allowance and of the 0.2 CER threshold), another line
(wrong), replies not in the exact ``<answer>...</answer>`` form (untagged), and Persian spelling variants the
scripts normalise (ي/ی, ك/ک, ة, أ/إ/ؤ/ٱ, diacritics, ZWNJ, whitespace) or do not (Arabic-Indic digits, tatweel,
ZWJ, ۀ against هٔ, Persian vs Arabic punctuation).
"""

from __future__ import annotations

import random
import unicodedata

PERSIAN_LETTERS = "ابپتثجچحخدذرزژسشصضطظعغفقکگلمنوهی"
ENGLISH_LETTERS = "abcdefghijklmnopqrstuvwxyz"
DIACRITICS = ["\u064e", "\u064f", "\u0650", "\u0651", "\u0652", "\u064b", "\u0670", "\u0654"]


def tag(text: str) -> str:
    return f"<answer>{text}</answer>"


def edit(text: str, n: int, rng: random.Random, letters: str) -> str:
    """``text`` with ``n`` random single-character edits (substitute, delete, insert)."""
    chars = list(text)
    for _ in range(n):
        op = rng.choice("sdi") if len(chars) > 1 else "i"
        i = rng.randrange(len(chars))
        if op == "s":
            chars[i] = rng.choice([c for c in letters if c != chars[i]])
        elif op == "d":
            del chars[i]
        else:
            chars.insert(i, rng.choice(letters))
    return "".join(chars)


def persian_variants(gold: str, rng: random.Random) -> list[tuple[str, str]]:
    """(kind, answer text) of spelling variants of a Persian line."""
    out = [
        ("variant:arabic-yeh", gold.replace("ی", "ي")),
        ("variant:arabic-kaf", gold.replace("ک", "ك")),
        ("variant:yeh-and-kaf", gold.replace("ی", "ي").replace("ک", "ك")),
        ("variant:zwnj-to-space", gold.replace("\u200c", " ")),
        ("variant:zwnj-removed", gold.replace("\u200c", "")),
        ("variant:spaces-to-zwnj", gold.replace(" ", "\u200c", 2)),
        ("variant:double-spaces", gold.replace(" ", "  ")),
        ("variant:nbsp", gold.replace(" ", "\u00a0")),
        ("variant:tab-newline", gold.replace(" ", "\t", 1).replace(" ", "\n", 1)),
        ("variant:tatweel", gold.replace("ب", "بـ", 1) if "ب" in gold else gold + "ـ"),
        ("variant:zwj", gold.replace(" ", "\u200d ", 1)),
        ("variant:rlm", "\u200f" + gold),
        ("variant:heh-hamza", gold.replace("ه ", "ۀ ", 1)),
        ("variant:heh-hamza-above", gold.replace("ه ", "ه\u0654 ", 1)),
        ("variant:teh-marbuta", gold.replace("ه", "ة", 1)),
        ("variant:alef-hamza", gold.replace("ا", "أ", 1).replace("ا", "إ", 1)),
        ("variant:alef-wasla", gold.replace("ا", "ٱ", 1)),
        ("variant:waw-hamza", gold.replace("و", "ؤ", 1)),
        ("variant:arabic-digits", gold + " ٣"),
        ("variant:persian-digits", gold + " ۳"),
        ("variant:arabic-comma", gold.replace("،", ",")),
        ("variant:question-mark", gold + "؟"),
        ("variant:nfd", unicodedata.normalize("NFD", gold.replace("ا", "آ", 1))),
    ]
    marked = list(gold)
    for i in sorted(rng.sample(range(len(marked)), min(4, len(marked))), reverse=True):
        marked.insert(i + 1, rng.choice(DIACRITICS))
    out.append(("variant:diacritics", "".join(marked)))
    every = "".join(c + DIACRITICS[i % 7] if c in PERSIAN_LETTERS else c for i, c in enumerate(gold))
    out.append(("variant:diacritics-everywhere", every))
    out.append(("variant:diacritics-and-yeh", "".join(marked).replace("ی", "ي")))
    return out


UNTAGGED_FORMS = [
    ("untagged:plain", "{g}"),
    ("untagged:prefix", "پاسخ: <answer>{g}</answer>"),
    ("untagged:suffix", "<answer>{g}</answer> این مصراع از حافظ است."),
    ("untagged:no-close", "<answer>{g}"),
    ("untagged:no-open", "{g}</answer>"),
    ("untagged:upper", "<ANSWER>{g}</ANSWER>"),
    ("untagged:spaced-tag", "< answer>{g}</answer>"),
    ("untagged:markdown", "```\n<answer>{g}</answer>\n```"),
    ("untagged:two-tags", "<answer>{g}</answer>\n<answer>{g}</answer>"),
    ("untagged:quoted", "«{g}»"),
]
TAGGED_FORMS = [
    ("verbatim", "<answer>{g}</answer>"),
    ("verbatim:outer-space", "  \n<answer>{g}</answer>\n\n"),
    ("verbatim:inner-space", "<answer>  {g}\n</answer>"),
    ("verbatim:first-verse-too", "<answer>{f} / {g}</answer>"),
    ("empty-answer", "<answer></answer>"),
    ("empty-answer:spaces", "<answer>   </answer>"),
]


def cases(golds: list[tuple[str, str]], language: str, seed: int = 33) -> list[tuple[str, str, str]]:
    """(kind, reply, gold) for each (first, gold) line pair."""
    rng = random.Random(seed)
    letters = PERSIAN_LETTERS if language == "fa" else ENGLISH_LETTERS
    out: list[tuple[str, str, str]] = []
    for index, (first, gold) in enumerate(golds):
        forms = TAGGED_FORMS if index % 3 == 0 else TAGGED_FORMS[:1]
        out += [(kind, form.format(g=gold, f=first), gold) for kind, form in forms]
        for n in (1, 2, 3, 4):
            out.append((f"edits:{n}", tag(edit(gold, n, rng, letters)), gold))
        # around the 0.2 CER threshold: 19%, 20% and 21% of the length, and far beyond
        for share in (0.19, 0.2, 0.21, 0.35):
            out.append((f"edits:{share:.0%}", tag(edit(gold, max(1, round(len(gold) * share)), rng, letters)), gold))
        out.append(("partial:half", tag(gold[: len(gold) // 2]), gold))
        out.append(("partial:most", tag(gold[: int(len(gold) * 0.85)]), gold))
        other = golds[(index + 7) % len(golds)][1]
        out.append(("wrong:another-line", tag(other), gold))
        out.append(("wrong:first-verse", tag(first), gold))
        kind, form = UNTAGGED_FORMS[index % len(UNTAGGED_FORMS)]
        out.append((kind, form.format(g=gold), gold))
        if language == "fa":
            variants = persian_variants(gold, rng)
            out += [(k, tag(v), gold) for k, v in (variants if index % 4 == 0 else rng.sample(variants, 3))]
            out.append(("variant+edit", tag(edit(gold.replace("ی", "ي"), 1, rng, letters)), gold))
        else:
            out.append(("variant:straight-apostrophe", tag(gold.replace("’", "'")), gold))
            out.append(("variant:lowercase", tag(gold.lower()), gold))
            out.append(("variant:no-punctuation", tag(gold.rstrip(",.;:?!")), gold))
    return out
