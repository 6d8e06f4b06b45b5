"""PerCul task hooks named by the YAMLs (``!function utils.<name>``).

lm-eval loads this file by path once per YAML, so it holds no state: everything lives in
``lm_eval_persian_culture.tasks.percul.core`` (prompts, docs, scoring) and ``.source``
(the data contract shared with TARAZ's PerCul-SAQ).
"""

from lm_eval_persian_culture.tasks.percul import core

globals().update(core.exported_names())
