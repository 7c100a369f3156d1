"""LongBench v2 (THUDM/LongBench): 503 four-option questions over long contexts."""
