"""What turns replies into numbers, shared by benchmarks (see DESIGN.md): the LLM answer
extractor (``llm_extract``) and what a task can learn about the run it is scored in
(``run_context``). The rule-based extractor is ``lm_eval_persian_culture.extract`` until the
integrator moves it here."""
