"""scoring.extract.read_pick: the chosen response number (1-5, CAC) read from realistic free-text replies
by the same grammar that reads options (these cases were scoring/numbers.py's, whose reader it replaced)."""

from __future__ import annotations

import pytest

from lm_eval_persian_culture.scoring.extract import read_pick

# (reply, expected pick or None). Expected values are what a human reader takes as the answer.
CASES = [
    # bare answers, as the CAC prompt asks ("Generate only the number")
    ("3", 3),
    ("3.", 3),
    (" 4\n", 4),
    ("**2**", 2),
    ("(5)", 5),
    ("`1`", 1),
    ("Response 3", 3),
    ("Response 3.", 3),
    ("#4", 4),
    ("Option three", 3),
    ("option Three.", 3),
    ("The third one.", 3),
    ("three", 3),
    ("Answer: 2", 2),
    ("**Answer:** 5", 5),
    ("### Answer\n4", 4),
    ("۳", 3),  # Persian digit
    ("پاسخ: ۲", 2),
    ("گزینه ۴", 4),
    # answer statements
    ("I'd go with response 3.", 3),
    ("I’d go with 3", 3),
    ("I would choose option 2 because it is polite without being distant.", 2),
    ("My choice is 5.", 5),
    ("Response 4 is the most appropriate.", 4),
    ("Response 2 best reflects Japanese communication norms.", 2),
    ("The most appropriate response is 1.", 1),
    ("The best fit here is response 4: it is indirect and polite.", 4),
    ("It's 2.", 2),
    ("3 - it is humble but not self-deprecating.", 3),
    ("4. It seems the storm may have affected our roof.", 4),  # the model quotes its pick
    ('Response 3: "Would you perhaps enjoy a slice, dear?"', 3),
    # several numbers while reasoning, then a conclusion
    (
        "Responses 1 and 2 are too insistent for a grandparent in the Netherlands, while 5 is too passive. "
        "I'd go with response 4.",
        4,
    ),
    ("Response 1 is too direct and response 5 is too indirect. In Japan, response 4 is the most appropriate.", 4),
    ("Option 2 could work, but option 3 is the best choice for Mexico.", 3),
    ("Response 2 is the most appropriate in America, but in Japan response 4 would be the best.", 4),
    ("Let me think. Response 1 is blunt; response 2 is firm.\n\n2", 2),
    ("Either 2 or 3 could work here.\n\nFinal answer: 3", 3),
    ("<think>Response 1 is rude, 5 is very polite; Korea values deference, so 4 or 5.</think>\n4", 4),
    ("The answer is not 2, it's 3.", 3),
    ("Response 2 is not the best; I'd pick 3.", 3),
    ("In Nigeria, food offers are insistent, so response 1.", 1),
    ("Response 4 is the most appropriate, though 5 is also acceptable.", 4),
    ("3\n\nExplanation: Response 3 balances warmth and restraint, while response 1 is too insistent.", 3),
    ("2\n\nActually, on reflection, response 3 is the best fit.", 3),
    (
        "Based on Japanese norms, the most appropriate response is:\n\n**4. It seems the storm may have affected "
        "our roof.**",
        4,
    ),
    ("Your answer should be a number (1-5): 3", 3),  # the instruction's range echoed
    ("**Response 4** - indirect, which suits a neighbour in Korea.", 4),
    ("Korea: 4", 4),
    ("**Selected response: 2**", 2),
    ("I choose 2", 2),
    ("Number 5", 5),
    ("2 (Your slide deck could be improved by reducing text and adding clearer visuals, if you don't mind.)", 2),
    ("Response 3 is too direct for Korea; response 4 is better.", 4),
    ("Response 1 feels too pushy. Response 2 is more appropriate here.", 2),
    ("I'll go with 2", 2),
    ("I would say 4.", 4),
    ("My answer: Response 1", 1),
    ("The culturally appropriate response would be 4", 4),
    ("Response 2 (polite but clear) is the most appropriate; response 1 is too deferential.", 2),
    ("I think 3 fits best.", 3),
    ("Response 5 is the least appropriate. I'd choose 2.", 2),
    ("Response 5 is the worst fit here; response 3 is the best.", 3),
    # hedges, refusals and non-answers
    ("Either 2 or 3 is the most appropriate.", None),
    ("I'd go with 3 or 4.", None),
    ("2/3", None),
    ("3-4", None),
    ("Between 2 and 3, both are fine.", None),
    ("Responses 2 and 3 are both plausible.", None),
    ("It depends on the family.", None),
    ("I cannot pick just one of the 5 responses.", None),
    ("", None),
    (None, None),
    ("<think>Thinking about Korea, maybe response 4", None),  # reasoning cut off, no answer
    ("6", None),  # out of range
    ("Response 6", None),
    ("2.5", None),  # not a pick
    ("One of them is fine.", None),
    ("Response 5 is the least appropriate.", None),  # says which is wrong, not which is right
]


@pytest.mark.parametrize("reply, expected", CASES, ids=[repr(c[0])[:50] for c in CASES])
def test_read_pick(reply, expected):
    assert read_pick(reply) == expected


def test_count_is_a_parameter():
    assert read_pick("7", count=9) == 7
    assert read_pick("Response 7 is the best.", count=9) == 7
    assert read_pick("7") is None
    assert read_pick("Option 4", count=4) == 4
    assert read_pick("Option 5", count=4) is None
