"""How the pack meets lm-eval: discovery (include path, the startup hook's entry point), task resolution
(``resolve``), the pre-flight, the CLI guard (``guard``), every patch of lm-eval (``patches``, gated by
``compat``), the lm-eval-persian CLI and its subcommands (see shared DESIGN.md, harness layer)."""

from lm_eval_persian_culture.harness.discovery import lm_eval_discovers_entry_points, with_pack_path
from lm_eval_persian_culture.harness.patches import install_into_lm_eval

__all__ = ["install_into_lm_eval", "lm_eval_discovers_entry_points", "with_pack_path"]
