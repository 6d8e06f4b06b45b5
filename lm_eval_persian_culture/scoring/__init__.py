"""What turns replies into numbers, shared by benchmarks (TARAZ short-answer metrics, embeddings)."""
