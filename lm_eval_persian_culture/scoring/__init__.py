"""What turns judged replies into numbers, shared by benchmarks (see DESIGN.md)."""
