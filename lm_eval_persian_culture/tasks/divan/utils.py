"""DivanBench task hooks named by the YAMLs (``!function utils.<name>``).

lm-eval loads this file by path once per YAML, so it holds no state: everything lives in
``lm_eval_persian_culture.tasks.divan.core`` (prompts, schema, loaders, extraction filter,
records, aggregations) and in the package's shared ``extract``/``aggregations`` modules.
"""

from lm_eval_persian_culture.tasks.divan import core

globals().update(core.exported_names())
