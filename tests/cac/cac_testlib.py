"""Shared by the CAC tests: fixture data dirs, the scripted model's picks, lm-eval runs.

The annotations in fixtures/ are made up for the tests (fixtures/README.md). ACCEPTED lists,
worked out by hand (arithmetic in the comments), the picks each country's made-up
annotators accept with the sample sigma; PICKS says what the scripted model picks
(None: a reply with no readable number), rendered in varied realistic reply styles.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from tests import scripted_runs

FIXTURES = Path(__file__).resolve().parent / "fixtures"  # holds cac/{conversations,annotations}.jsonl
IRAN_FILE = FIXTURES / "iran" / "annotations_iran.jsonl"
COUNTRIES = ("america", "india", "china", "japan", "korea", "netherlands", "mexico", "nigeria")
A, I, C, J, K, N, M, G = COUNTRIES  # noqa: E741 (the countries' initials, I for India)

# Accepted picks, sample sigma, z = 0.674 (mu ± 0.674 s, ends rounded):
#  {1,1,2}: mu 4/3,  s = sqrt((1/9+1/9+4/9)/2) = 0.5774, ± 0.3891 -> [0.944, 1.722] -> 1..2
#  {1,2,2}: mu 5/3,  s 0.5774 -> [1.278, 2.056] -> 1..2      {2,2,3}: mu 7/3 -> [1.944, 2.722] -> 2..3
#  {2,3,3}: mu 8/3 -> [2.278, 3.056] -> 2..3                 {3,4,4}: mu 11/3 -> [3.278, 4.056] -> 3..4
#  {4,4,5}: mu 13/3 -> [3.944, 4.722] -> 4..5                {4,5,5}: mu 14/3 -> [4.278, 5.056] -> 4..5
#  {1,2,3}: mu 2, s 1 -> [1.326, 2.674] -> 1..3              {p,p,p}: s 0 -> p..p
#  {1,2,5}: mu 8/3, s = sqrt((25/9+4/9+49/9)/2) = 2.0817, ± 1.4031 -> [1.264, 4.070] -> 1..4
#           (population s = 1.6997, ± 1.1456 -> [1.521, 3.812] -> 2..4: the one fixture cell the choice changes)
#  {1,5,5}: mu 11/3, s = sqrt((64/9+16/9+16/9)/2) = 2.3094, ± 1.5565 -> [2.110, 5.223] -> 2..5 (clipped)
ACCEPTED = {
    "c1": {A: (1, 2), N: (1, 2), M: (2, 3), G: (2, 3), I: (3, 4), C: (3, 4), J: (3, 4), K: (3, 4)},
    "c2": {A: (2, 2), I: (2, 2), C: (2, 2), M: (2, 2), G: (2, 2), J: (1, 1), K: (1, 1), N: (3, 3)},
    "c3": {G: (1, 1), I: (1, 3), M: (1, 3), C: (1, 4), A: (3, 4), J: (3, 4), K: (3, 4), N: (3, 4)},
    "c4": {A: (2, 2), I: (1, 3), C: (1, 2), J: (1, 2), K: (1, 2), N: (2, 3), M: (2, 3), G: (2, 3)},
    "c5": {A: (1, 2), N: (1, 2), I: (4, 5), C: (4, 5), J: (4, 5), K: (4, 5), M: (4, 5), G: (2, 5)},
    "c6": {A: (1, 3), N: (1, 2), I: (4, 5), C: (4, 5), J: (4, 5), K: (4, 5), M: (4, 5), G: (4, 5)},
}
# Iran (fixtures/iran): c1 {2,2,2} 2..2; c2 {1,1,2} 1..2; c3 {1,1,1} 1..1; c4 {1,2,2} 1..2;
# c5 {3,4,4} 3..4; c6 {4,4,5} 4..5
ACCEPTED_IRAN = {"c1": (2, 2), "c2": (1, 2), "c3": (1, 1), "c4": (1, 2), "c5": (3, 4), "c6": (4, 5)}

PICKS = {
    "c1": {A: 1, N: 2, M: 2, G: None, I: 3, C: 4, J: 2, K: 5},
    "c2": {A: 2, I: 2, C: 2, M: 2, G: 2, J: 2, K: 2, N: 3},
    "c3": {G: 2, I: 1, M: 3, C: 1, A: 3, J: 4, K: 4, N: None},
    "c4": {A: 2, I: 3, C: 1, J: 1, K: 3, N: 3, M: 3, G: 1},
    "c5": {A: 2, N: 1, I: 4, C: 5, J: 3, K: 4, M: 2, G: 5},
    "c6": {A: 3, N: 3, I: 3, C: 3, J: 3, K: 3, M: 3, G: 3},
}
PICKS_IRAN = {"c1": 2, "c2": 3, "c3": 1, "c4": 1, "c5": None, "c6": 5}

WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five"}
STYLES = [
    lambda n, text: f"{n}",
    lambda n, text: f"I'd go with response {n}.",
    lambda n, text: f"**{n}**",
    lambda n, text: f"Responses 1 and 5 are too extreme here. Response {n} is the most appropriate.",
    lambda n, text: f"Option {WORDS[n]}",
    lambda n, text: f"<think>Response 1 or 2 might be too blunt for this country.</think>\n\n{n}",
    lambda n, text: f"{n}. {text}",
]
UNREADABLE = ["Either 2 or 3 could work, depending on the family.", "It depends on the people involved."]


def pick_of(doc: dict) -> int | None:
    if doc["country"] == "iran":
        return PICKS_IRAN[doc["conversation_id"]]
    return PICKS[doc["conversation_id"]][doc["country"]]


def scripted_reply(doc: dict, prompt: str = "") -> str:
    pick = pick_of(doc)
    n = sum(map(ord, doc["conversation_id"] + doc["country"]))  # vary the style deterministically
    if pick is None:
        return UNREADABLE[n % len(UNREADABLE)]
    return STYLES[n % len(STYLES)](pick, doc[f"response_{pick}"])


def data_dir_with_iran(tmp_path: Path) -> Path:
    root = tmp_path / "data"
    shutil.copytree(FIXTURES / "cac", root / "cac")
    shutil.copy(IRAN_FILE, root / "cac" / IRAN_FILE.name)
    return root


def task_manager(data_dir: Path = FIXTURES, **metadata):
    return scripted_runs.task_manager(data_dir, **metadata)


def evaluate(tasks, lm=None, metadata=None, data_dir: Path = FIXTURES, **kwargs) -> dict:
    return scripted_runs.evaluate(tasks, scripted_reply, data_dir, lm=lm, metadata=metadata, **kwargs)


metrics = scripted_runs.metrics
