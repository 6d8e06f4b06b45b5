"""The hazm functions the pack uses, on fixed inputs: written once with real ``hazm`` on
Python >= 3.12 into fixtures/hazm_golden.json, and compared against whichever backend is
installed (``hazm-normalizer`` on 3.11) by test_taraz_hazm_backend.py.

    python3.12 -m venv /tmp/h && /tmp/h/bin/pip install hazm && /tmp/h/bin/python tests/taraz/hazm_golden.py
"""

from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

NORMALIZER_INPUTS = [
    "اِعلاممممم کَرد : « زمین لرزه ای به بُزرگیِ 6 دهم ریشتر ...»",
    "علي كتاب ها را مي خواند",
    "می رود", "کتاب ها", "نان و پنیر", "نون و پنير", "تخم‌مرغ", "13 فروردين", "٥٦ سال", "1400/07/25",
    "ساعت 11:35", "میخواهم", "نمیدانم", "خانۀ مدرسة", "أحمد إسلام مؤمن اشیاء", "جشن   نوروز  !",
    "چلوکباب، قورمه سبزی؛ آش رشته",
    "\"سلام\" دوستان...", "مُحَمَّد", "نـــان", "یک میان وعده معمول برای بچه‌های پیش دبستانی درایران چیست؟",
]  # fmt: skip
WORDS = [
    "کتاب‌ها", "کتابها", "درختان", "اطلاعات", "تهران", "نان", "نون", "می‌روند", "رفتند", "گل‌ها", "خانه‌ها",
    "پنیرها", "زنان", "ادبیات", "ایران", "میلیون", "سوغات", "تنها", "مردان", "بچه‌ها",
]  # fmt: skip


def compute() -> dict:
    try:
        from hazm import Lemmatizer, Normalizer, Stemmer, stopwords_list

        backend = "hazm"
    except ImportError:
        from hazm_normalizer import Lemmatizer, Normalizer, Stemmer
        from hazm_normalizer.utils import stopwords_list

        backend = "hazm-normalizer"
    normalizer = Normalizer(decrease_repeated_chars=False)
    lemmatizer, stemmer = Lemmatizer(), Stemmer()
    stop = sorted(stopwords_list())
    return {
        "backend": backend,
        "normalize": {t: normalizer.normalize(t) for t in NORMALIZER_INPUTS},
        "lemmatize": {w: lemmatizer.lemmatize(w) for w in WORDS},
        "stem": {w: stemmer.stem(w) for w in WORDS},
        "stopwords_count": len(stop),
        "stopwords_sha256": hashlib.sha256("\n".join(stop).encode("utf-8")).hexdigest(),
    }


if __name__ == "__main__":
    out = Path(__file__).resolve().parent / "fixtures" / "hazm_golden.json"
    data = compute()
    data["python"] = sys.version.split()[0]
    out.write_text(json.dumps(data, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    print("wrote", out, "with", data["backend"])
