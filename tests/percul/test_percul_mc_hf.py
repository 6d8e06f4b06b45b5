"""percul_mc / percul_en_mc through ``--model hf`` (the tiny random Llama, CPU), end to end.

Every metric is recomputed here from the loglikelihoods lm-eval logged in the samples file
(per doc, one ``[loglikelihood, is_greedy]`` per option), by the paper's definitions; and the
pack's ``accuracy`` / ``accuracy_norm`` are checked against lm-eval's own ``acc`` / ``acc_norm``
computed by lm-eval on the same docs in the same run (a throw-away task with the built-in metrics).
"""

from __future__ import annotations

import copy
import json

import lm_eval
import pytest
from lm_eval.loggers import EvaluationTracker
from percul_testlib import FIXTURES

import lm_eval_persian_culture as pack
from lm_eval_persian_culture.tasks.percul.utils import CATEGORY_SLUGS, doc_to_text_mc

BUILTIN_YAML = """\
task: {name}
dataset_path: json
test_split: test
custom_dataset: !function utils.{loader}
output_type: multiple_choice
doc_to_text: !function utils.doc_to_text_mc
doc_to_choice: options
doc_to_target: answer_index
metric_list:
  - metric: acc
  - metric: acc_norm
metadata:
  version: 0
"""


def _argmax(xs):
    return max(range(len(xs)), key=lambda i: xs[i])


def _by_hand(samples: list[dict]) -> dict[str, float]:
    """accuracy, accuracy_norm, macro accuracy and per-category accuracy from the logged lls."""
    per_cat: dict[str, list[int]] = {}
    right = right_norm = 0
    per_cat_norm: dict[str, list[int]] = {}
    for s in samples:
        doc = s["doc"]
        # on disk (lm-eval's sanitize_list): resps = per option [[loglikelihood, is_greedy]] as strings,
        # filtered_resps = per option [loglikelihood, is_greedy]; repr of a float round-trips exactly
        lls = [float(r[0][0]) for r in s["resps"]]
        assert [float(r[0]) for r in s["filtered_resps"]] == lls
        correct = int(_argmax(lls) == doc["answer_index"])
        correct_norm = int(_argmax([ll / len(o) for ll, o in zip(lls, doc["options"])]) == doc["answer_index"])
        right += correct
        right_norm += correct_norm
        per_cat.setdefault(doc["category"], []).append(correct)
        per_cat_norm.setdefault(doc["category"], []).append(correct_norm)
    out = {
        "accuracy": right / len(samples),
        "accuracy_norm": right_norm / len(samples),
        "macro_accuracy": sum(sum(v) / len(v) for v in per_cat.values()) / len(per_cat),
        "macro_accuracy_norm": sum(sum(v) / len(v) for v in per_cat_norm.values()) / len(per_cat_norm),
    }
    out.update({f"accuracy_{CATEGORY_SLUGS[c]}": sum(v) / len(v) for c, v in per_cat.items()})
    return out


@pytest.mark.e2e
def test_mc_tasks_against_logged_loglikelihoods(tiny_model, tmp_path):
    extra = tmp_path / "builtin"
    extra.mkdir()
    (extra / "utils.py").write_text(
        "from lm_eval_persian_culture.tasks.percul.utils import doc_to_text_mc, load_en, load_fa  # noqa: F401\n",
        encoding="utf-8",
    )
    for name, loader in (("percul_builtin_mc", "load_fa"), ("percul_en_builtin_mc", "load_en")):
        (extra / f"{name}.yaml").write_text(BUILTIN_YAML.format(name=name, loader=loader), encoding="utf-8")
    tm = pack.task_manager(include_path=str(extra), include_defaults=False, metadata={"data_dir": str(FIXTURES)})

    tasks = ["percul_mc", "percul_en_mc", "percul_fa_en_mc", "percul_builtin_mc", "percul_en_builtin_mc"]
    tracker = EvaluationTracker(output_path=str(tmp_path / "out"))
    results = lm_eval.simple_evaluate(
        model="hf", model_args=f"pretrained={tiny_model},dtype=float32", device="cpu", tasks=tasks,
        task_manager=tm, log_samples=True, evaluation_tracker=tracker, bootstrap_iters=0, batch_size=8,
    )  # fmt: skip
    samples = results.pop("samples")
    tracker.save_results_aggregated(results=results, samples=copy.deepcopy(samples))
    for task in ("percul_mc", "percul_en_mc"):
        tracker.save_results_samples(task_name=task, samples=copy.deepcopy(samples[task]))

    for task, builtin, lang in (
        ("percul_mc", "percul_builtin_mc", "fa"),
        ("percul_en_mc", "percul_en_builtin_mc", "en"),
    ):
        # the samples file as lm-eval wrote it to disk
        (path,) = list((tmp_path / "out").rglob(f"samples_{task}_*.jsonl"))
        logged = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
        assert len(logged) == 10 and all(len(s["resps"]) == 4 for s in logged)
        assert all(s["doc"]["language"] == lang for s in logged)
        # each option text was scored as the continuation of the story-and-question prompt
        first = logged[0]
        args = [first["arguments"][f"gen_args_{i}"] for i in range(4)]
        assert [a["arg_0"] for a in args] == [doc_to_text_mc(first["doc"])] * 4
        assert [a["arg_1"] for a in args] == [" " + o for o in first["doc"]["options"]]

        row = {k.split(",")[0]: v for k, v in results["results"][task].items() if "_stderr" not in k and "," in k}
        expected = _by_hand(logged)
        for name, value in expected.items():
            assert row[name] == pytest.approx(value), (task, name)
        assert {k for k in expected if k.startswith("accuracy_") and k != "accuracy_norm"} == {
            "accuracy_foods",
            "accuracy_rituals",
            "accuracy_objects",
            "accuracy_music",
        }
        # lm-eval's own acc / acc_norm on the same docs in the same run
        ref = results["results"][builtin]
        assert row["accuracy"] == pytest.approx(ref["acc,none"])
        assert row["accuracy_norm"] == pytest.approx(ref["acc_norm,none"])

        for metric in ("accuracy", "accuracy_norm", "macro_accuracy", "macro_accuracy_norm"):
            both = results["results"]["percul_fa_en_mc"]
            assert both[f"{metric}_{lang},none"] == pytest.approx(row[metric]), (metric, lang)

    # the two-language task: the same loglikelihoods, and the difference of the two rows
    both = {k.split(",")[0]: v for k, v in results["results"]["percul_fa_en_mc"].items() if "," in k}
    fa, en = (results["results"][t] for t in ("percul_mc", "percul_en_mc"))
    for metric in ("accuracy", "accuracy_norm", "macro_accuracy", "macro_accuracy_norm"):
        assert both[f"{metric}_fa_minus_en"] == pytest.approx(fa[f"{metric},none"] - en[f"{metric},none"]), metric
