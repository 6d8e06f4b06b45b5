"""Persian text processing shared by the benchmarks (TARAZ's post-processing in ``normalize``)."""
