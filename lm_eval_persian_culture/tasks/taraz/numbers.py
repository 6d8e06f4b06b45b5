"""TARAZ's numeric normalisation (paper sec. 5.1 item 5 and 5.2): numbers in one written form.

:func:`normalize_numbers` runs inside :func:`normalize.clean`, after the character normalisation
(so digits are already Persian ۰-۹ and letters Persian), on the reply and on every reference alike,
so every metric (exact match, ROUGE, the embedding metrics and their numbers rule) sees the same
form on both sides. In this order:

1. number words to digits (:func:`words_to_digits`): Persian cardinals (``صد و بیست و سه`` ->
   ``۱۲۳``, ``دو هزار و پانصد`` -> ``۲۵۰۰``, colloquial ``شیش`` ``پونزده`` ``یه``), ordinals
   (``هفتم``, ``اولین``, ``بیست و پنجمین``, ``سی‌ام``; digits with an ordinal ending: ``۲۵م``,
   ``۲۵ام``, ``۱۰مین``, ``25th``), ``-سالگی`` joined with a half-space (``هجده‌سالگی`` -> ``۱۸ سالگی``),
   and English number words (``twenty-five``, ``one hundred``, ``first``). ``نه`` is read as nine
   only inside a number or before a unit (``نه ساعت``, ``بیست و نه``): alone it is "no";
2. times with a day-part word (:func:`read_times`) to 24 hours: صبح، ظهر، بعد از ظهر، عصر، شب،
   نیمه‌شب and AM/PM (``۸ شب`` -> ``۲۰:۰۰``, ``یک و نیم بعد از ظهر`` -> ``۱۳:۳۰``, ``12 AM`` ->
   ``۰:۰۰``); ``ساعت ۸ و نیم`` -> ``ساعت ۸:۳۰``; ``۲۴:۰۰`` -> ``۰:۰۰``;
3. halves (:func:`read_halves`): ``۱ و نیم`` and ``یک ساعت و نیم`` -> ``۱٫۵`` (``۱٫۵ ساعت``);
4. dates with a Persian month name (:func:`read_dates`): ``۱۲ اردیبهشت`` -> ``۲/۱۲``,
   ``بیست و پنجم مهر ۱۴۰۰`` -> ``۱۴۰۰/۷/۲۵`` (the solar-hijri year/month/day order of numeric
   Persian dates, which :func:`normalize.join_numbers` writes without leading zeros).

Written for the pack (see the TARAZ README for the libraries tried and what each misread).
"""

from __future__ import annotations

import re

from lm_eval_persian_culture.text.persian import PERSIAN_DIGITS, ZWNJ

_P = str.maketrans("0123456789", PERSIAN_DIGITS)
_L = str.maketrans(PERSIAN_DIGITS, "0123456789")


def _fa(value: int | str) -> str:
    return str(value).translate(_P)


def _int(digits: str) -> int:
    return int(digits.translate(_L))


# ------------------------------------------------------------------------------ lexicons
_UNITS = {
    "صفر": 0, "یک": 1, "یه": 1, "دو": 2, "سه": 3, "چهار": 4, "پنج": 5, "شش": 6, "شیش": 6, "هفت": 7,
    "هشت": 8, "نه": 9, "ده": 10, "یازده": 11, "دوازده": 12, "سیزده": 13, "چهارده": 14, "پانزده": 15,
    "پونزده": 15, "شانزده": 16, "شونزده": 16, "هفده": 17, "هیفده": 17, "هجده": 18, "هیجده": 18,
    "نوزده": 19, "بیست": 20, "سی": 30, "چهل": 40, "پنجاه": 50, "شصت": 60, "هفتاد": 70, "هشتاد": 80,
    "نود": 90, "صد": 100, "یکصد": 100, "دویست": 200, "سیصد": 300, "چهارصد": 400, "پانصد": 500,
    "پونصد": 500, "ششصد": 600, "هفتصد": 700, "هشتصد": 800, "نهصد": 900,
}  # fmt: skip
_SCALES = {"هزار": 1000, "میلیون": 10**6, "میلیارد": 10**9, "بیلیون": 10**9, "تریلیون": 10**12}


def _persian_ordinals() -> dict[str, int]:
    out = {"اول": 1, "اولین": 1, "نخست": 1, "نخستین": 1, "سوم": 3, "سومین": 3}
    for word, value in {**_UNITS, **_SCALES}.items():
        if word in ("یه", "صفر", "سه", "سی"):  # سیم is "wire"; سی‌ام is read through ام below
            continue
        out.setdefault(word + "م", value)
        out.setdefault(word + "مین", value)
    return out


_ORDINALS = _persian_ordinals()
_ORDINAL_MARKERS = frozenset({"م", "ام", "مین", "امین", "th", "st", "nd", "rd"})

_EN_UNITS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20, "thirty": 30,
    "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
}  # fmt: skip
_EN_SCALES = {"hundred": 100, "thousand": 1000, "million": 10**6, "billion": 10**9}
_EN_ORDINALS = {
    "first": 1, "second": 2, "third": 3, "fourth": 4, "fifth": 5, "sixth": 6, "seventh": 7, "eighth": 8,
    "ninth": 9, "tenth": 10, "eleventh": 11, "twelfth": 12, "thirteenth": 13, "fourteenth": 14,
    "fifteenth": 15, "sixteenth": 16, "seventeenth": 17, "eighteenth": 18, "nineteenth": 19,
    "twentieth": 20, "thirtieth": 30, "fortieth": 40, "fiftieth": 50, "sixtieth": 60, "seventieth": 70,
    "eightieth": 80, "ninetieth": 90, "hundredth": 100, "thousandth": 1000,
}  # fmt: skip

# What may follow ``نه`` for it to be nine rather than "no" (units, counters, day parts).
_COUNTED = frozenset(
    """ساعت دقیقه ثانیه روز شب هفته ماه سال سالگی ساله ساعته روزه ماهه تا بار نفر عدد تومان ریال
    کیلو کیلومتر متر سانت صبح عصر ظهر بعد نیمه صد هزار میلیون درصد دفعه سالش سالم سالشان""".split()
)

_AND = frozenset({"و", "and"})
# characters that may cling to a word's edges without being part of it
_EDGE = "\"'«»“”‘’()[]{}،؛,;.!?؟:"


def _value(word: str) -> tuple[int, str] | None:
    """(value, kind) of one number word: kind is 'unit', 'scale' or 'ordinal'."""
    low = word.casefold()
    if word in _UNITS:
        return _UNITS[word], "unit"
    if word in _SCALES:
        return _SCALES[word], "scale"
    if word in _ORDINALS:
        return _ORDINALS[word], "ordinal"
    if low in _EN_UNITS:
        return _EN_UNITS[low], "unit"
    if low in _EN_SCALES:
        return _EN_SCALES[low], "scale"
    if low in _EN_ORDINALS:
        return _EN_ORDINALS[low], "ordinal"
    if "-" in low:  # twenty-five, twenty-first
        head, _, tail = low.partition("-")
        if head in _EN_UNITS and _EN_UNITS[head] >= 20 and _EN_UNITS[head] % 10 == 0:
            if tail in _EN_UNITS and _EN_UNITS[tail] < 10:
                return _EN_UNITS[head] + _EN_UNITS[tail], "unit"
            if tail in _EN_ORDINALS and _EN_ORDINALS[tail] < 10:
                return _EN_UNITS[head] + _EN_ORDINALS[tail], "ordinal"
    return None


def _split_edges(token: str) -> tuple[str, str, str]:
    core = token.strip(_EDGE)
    if not core:
        return token, "", ""
    start = token.index(core)
    return token[:start], core, token[start + len(core) :]


_NUMBER_STEMS = frozenset({*_UNITS, *_SCALES, *_ORDINALS})


def _unjoin(text: str) -> str:
    """A half-space after a number word is a word break (``هجده‌سالگی``, ``سی‌ام``, ``پنج‌شنبه``)."""
    if ZWNJ not in text:
        return text
    return re.sub(
        rf"(?<![\w{ZWNJ}])([^\W\d_]+){ZWNJ}",
        lambda m: m.group(1) + (" " if m.group(1) in _NUMBER_STEMS else ZWNJ),
        text,
    )


def words_to_digits(text: str) -> str:
    """Persian and English number words (and ordinal endings on digits) as Persian digits."""
    tokens = _unjoin(text).split(" ")
    out: list[str] = []
    i = 0
    while i < len(tokens):
        lead, core, trail = _split_edges(tokens[i])
        # digits with an ordinal ending: ۲۵ م / ۲۵ ام / 25 th (hazm spaces them apart)
        if re.fullmatch(r"[۰-۹]+", core) and not trail and i + 1 < len(tokens):
            nxt_lead, nxt, nxt_trail = _split_edges(tokens[i + 1])
            if not nxt_lead and nxt.casefold() in _ORDINAL_MARKERS:
                out.append(lead + core + nxt_trail)
                i += 2
                continue
        found = _value(core)
        if found is not None and not lead and (named := _name_length(tokens, i)):
            out.extend(tokens[i : i + named])
            i += named
            continue
        if found is None or (core == "نه" and not _nine_here(tokens, i)):
            out.append(tokens[i])
            i += 1
            continue
        total = current = 0
        j = i  # tokens[j] is the word being added
        while True:
            value, kind = found
            if kind == "scale":
                current = max(current, 1) * value
                if value >= 1000:
                    total, current = total + current, 0
            else:
                current += value
            last = value
            if kind == "ordinal" or trail:
                break
            step = _next_part(tokens, j, last, core)
            if step is None:
                break
            j, (_, core, trail), found = step
        j += 1
        # an ordinal ending written apart: سی ام
        if not trail and j < len(tokens):
            nxt_lead, nxt, nxt_trail = _split_edges(tokens[j])
            if not nxt_lead and nxt in ("ام", "امین", "م", "مین"):
                trail = nxt_trail
                j += 1
        out.append(lead + _fa(total + current) + trail)
        i = j
    text = " ".join(out)
    # "one and a half" reads like "یک و نیم" from here on
    return re.sub(r"(?i)\b(?:and\s+)?a\s+half\b", "و نیم", text) if "half" in text.casefold() else text


def _next_part(tokens: list[str], j: int, last: int, word: str):
    """The next word of the number started before ``tokens[j]``: a larger scale word right after
    (دو هزار, one hundred), an English number that fits the place left (twenty five), or و/and and a
    number that fits the place left (بیست و پنج, صد و بیست, هزار و چهارصد; not سه و چهار)."""
    if j + 1 >= len(tokens):
        return None
    nxt = _split_edges(tokens[j + 1])
    if nxt[0]:
        return None
    v = _value(nxt[1])
    if v and v[1] == "scale" and v[0] > last:
        return j + 1, nxt, v
    if v and v[1] != "scale" and word.isascii() and nxt[1].isascii() and v[0] < _place(last):
        return j + 1, nxt, v  # English runs without "and": twenty five, two thousand three hundred
    if nxt[1].casefold() in _AND and not nxt[2] and j + 2 < len(tokens):
        after = _split_edges(tokens[j + 2])
        v = _value(after[1])
        if not after[0] and v and v[1] != "scale" and v[0] < _place(last):
            return j + 2, after, v
    return None


# Names that hold a number word and are not numbers: weekdays (سه شنبه), feasts, places, instruments.
# They stay words, so the embedding model reads them as the names they are and the numbers rule does
# not take سیزده بدر for a thirteen.
_NAMES = tuple(
    tuple(name.split())
    for name in (
        "سیزده بدر", "سی و سه پل", "هفت سین", "هزار و یک شب", "چهل ستون", "هشت بهشت", "سه تار",
        "دو تار", "دو و میدانی", "هفت خوان", "هفت تپه", "چهار باغ", "چهار محال", "هفت تیر",
        "پانزده خرداد", "دوازده امام", "سی دی", "دو و می\u200cدانی",  # hazm writes میدانی as می‌دانی
    )
)  # fmt: skip


def _name_length(tokens: list[str], i: int) -> int:
    """How many tokens from ``tokens[i]`` form a name of :data:`_NAMES` or a weekday (X شنبه); 0 if none."""
    words = [_split_edges(t)[1] for t in tokens[i : i + 4]]
    if len(words) > 1 and words[1] == "شنبه":
        return 2
    for name in _NAMES:
        if tuple(words[: len(name)]) == name:
            return len(name)
    return 0


def _place(value: int) -> int:
    """The smallest power of ten above ``value``'s own place: what may be added after it with و
    (بیست و پنج, صد و بیست, هزار و چهارصد; not سه و چهار)."""
    if value >= 1000:
        return value
    if value >= 100:
        return 100
    if value >= 20:
        return 10
    return 0


def _nine_here(tokens: list[str], i: int) -> bool:
    """نه is nine before a unit or counter word; alone it is 'no'."""
    if i + 1 < len(tokens):
        lead, nxt, _ = _split_edges(tokens[i + 1])
        if not lead and (nxt in _COUNTED or nxt == "و" and i + 2 < len(tokens) and tokens[i + 2].strip(_EDGE) == "نیم"):
            return True
    return False


# ------------------------------------------------------------------------------ times
_H = r"[۰-۹]{1,2}"
_HALF = r"(?:\s+و\s+(نیم|ربع))"
_DAY_PARTS = {
    "صبح": "am",
    "بامداد": "am",
    "ظهر": "noon",
    "بعدازظهر": "pm",
    "عصر": "pm",
    "شب": "night",
    "نیمه‌شب": "midnight",
    "نصف‌شب": "midnight",
    "am": "am",
    "pm": "pm",
}
_DAY_PART = (
    rf"(بعد[\s{ZWNJ}]*از[\s{ZWNJ}]*ظهر|نیمه[\s{ZWNJ}]*شب|نصف[\s{ZWNJ}]*شب|صبح|بامداد|ظهر|عصر|شب"
    r"|(?i:a\s*\.?\s*m\b\.?|p\s*\.?\s*m\b\.?))(?![^\W_])"
)
_TIME = re.compile(rf"(?<![۰-۹:/٫\-])(ساعت\s+)?({_H})(?::([۰-۹]{{2}}))?{_HALF}?\s*{_DAY_PART}")
_CLOCK_HALF = re.compile(rf"(ساعت\s+)({_H}){_HALF}(?!\s*ساعت)")
_TWENTY_FOUR = re.compile(r"(?<![۰-۹:])۲۴:([۰-۹]{2})")


def _day_part(word: str) -> str:
    key = re.sub(rf"[\s{ZWNJ}.]", "", word).casefold()
    if key in ("نیمهشب", "نصفشب"):
        return "midnight"
    return _DAY_PARTS.get(key, "")


def _to_24(hour: int, part: str, has_clock_word: bool) -> int | None:
    if not 1 <= hour <= 12:
        return None
    if part == "am":
        return 0 if hour == 12 else hour
    if part == "pm":
        return 12 if hour == 12 else hour + 12
    if part == "noon":
        return hour + 12 if hour <= 5 else hour
    if part == "midnight":
        return 0 if hour == 12 else hour
    if part == "night":
        if hour == 12:
            return 0
        if hour >= 6:
            return hour + 12
        return hour if has_clock_word else None  # "یک شب" alone may be "one night"
    return None


def read_times(text: str) -> str:
    """12-hour times with a day-part word (or AM/PM) as 24-hour ``H:MM``; ``ساعت H و نیم`` -> ``H:۳۰``."""

    def repl(m: re.Match) -> str:
        clock, hour, minutes, half, part = m.groups()
        h24 = _to_24(_int(hour), _day_part(part), bool(clock))
        if h24 is None:
            return m.group(0)
        mins = _int(minutes) if minutes else {"نیم": 30, "ربع": 15}.get(half or "", 0)
        return f"{clock or ''}{_fa(h24)}:{_fa(f'{mins:02d}')}"

    text = _TIME.sub(repl, text)
    text = _CLOCK_HALF.sub(lambda m: f"{m.group(1)}{m.group(2)}:{_fa(30 if m.group(3) == 'نیم' else 15)}", text)
    return _TWENTY_FOUR.sub(lambda m: f"۰:{m.group(1)}", text)


# ------------------------------------------------------------------------------ halves
_HALF_UNITS = "ساعت|سال|ماه|روز|هفته|دقیقه|کیلو|کیلوگرم|متر|لیتر|میلیون|هزار"
_HALF_AFTER_UNIT = re.compile(rf"(?<![۰-۹:/٫\-])([۰-۹]+)\s+({_HALF_UNITS})\s+و\s+نیم(?![\w{ZWNJ}])")
_HALF_AFTER_NUMBER = re.compile(rf"(?<![۰-۹:/٫\-])([۰-۹]+)\s+و\s+نیم(?![\w{ZWNJ}])")


def read_halves(text: str) -> str:
    """``۱ و نیم`` -> ``۱٫۵``; ``۱ ساعت و نیم`` -> ``۱٫۵ ساعت``."""
    if "نیم" not in text:
        return text
    text = _HALF_AFTER_UNIT.sub(lambda m: f"{m.group(1)}٫۵ {m.group(2)}", text)
    return _HALF_AFTER_NUMBER.sub(lambda m: f"{m.group(1)}٫۵", text)


# ------------------------------------------------------------------------------ dates
MONTHS = {
    "فروردین": 1, "اردیبهشت": 2, "خرداد": 3, "تیر": 4, "مرداد": 5, "امرداد": 5, "شهریور": 6,
    "مهر": 7, "آبان": 8, "آذر": 9, "دی": 10, "بهمن": 11, "اسفند": 12,
}  # fmt: skip
_DATE = re.compile(
    rf"(?<![۰-۹:/٫\-])([۰-۹]{{1,2}})\s+({'|'.join(MONTHS)})(?:[\s{ZWNJ}]*ماه)?(?![\w{ZWNJ}])"
    rf"(?:\s+(?:سال\s+)?([۰-۹]{{4}})(?![۰-۹:/٫\-]))?"
)


def read_dates(text: str) -> str:
    """``D <month> [YYYY]`` -> ``M/D`` or ``YYYY/M/D`` (days 1-31)."""

    def repl(m: re.Match) -> str:
        day, month, year = _int(m.group(1)), MONTHS[m.group(2)], m.group(3)
        if not 1 <= day <= 31:
            return m.group(0)
        date = f"{_fa(month)}/{_fa(day)}"
        return f"{year}/{date}" if year else date

    return _DATE.sub(repl, text)


def normalize_numbers(text: str, join) -> str:
    """Steps 1-4 above; ``join`` is :func:`normalize.join_numbers` (rejoins ``۲ تا ۳`` and the like
    once words have become digits)."""
    if not text:
        return text
    text = join(words_to_digits(text))
    text = read_halves(read_times(text))
    return join(read_dates(text))


__all__ = ["MONTHS", "normalize_numbers", "read_dates", "read_halves", "read_times", "words_to_digits"]
