"""What turns model replies into numbers, shared by the pack's benchmarks (the scoring layer of DESIGN.md):
answer extraction, numbers and ranges, aggregations, agreement (TARAZ's short-answer metrics and embeddings
live in tasks/taraz/)."""
