"""Persian text helpers shared by the benchmarks: letters, digits, ZWNJ, script detection (``persian``)."""
