"""Decoding settings beyond lm-eval's flags (see model_defaults)."""
