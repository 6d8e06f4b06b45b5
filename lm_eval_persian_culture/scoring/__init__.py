"""What turns model replies into numbers, shared by the pack's benchmarks (the scoring layer of DESIGN.md):
answer extraction, numbers and ranges, aggregations, short-answer metrics, embeddings, agreement."""
