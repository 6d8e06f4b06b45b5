"""What turns model replies into numbers, shared by the pack's benchmarks (see /DESIGN: scoring layer)."""
