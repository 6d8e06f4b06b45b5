"""CAC task hooks named by the YAMLs (``!function utils.<name>``).

lm-eval loads this file by path once per YAML, so it holds no state: everything lives in
``lm_eval_persian_culture.tasks.cac.core`` and the package's shared ``scoring`` modules.
"""

from lm_eval_persian_culture.tasks.cac import core

globals().update(core.exported_names())
