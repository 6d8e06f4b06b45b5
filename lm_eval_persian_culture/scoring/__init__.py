"""What turns model replies into numbers, shared by two or more of the pack's benchmarks (the scoring layer):
the answer grammar (extract), per-doc records and the process_results factory (records), aggregations, judge
agreement. What one benchmark alone uses lives in its folder (e.g. tasks/cac/ranges.py, tasks/taraz/)."""
