"""LIFEval's numbers over stored rubric points: ARS, IFP and IFS per model (metrics.py)
and the per-level means behind IFS (levels.py)."""
