"""LIFEval, LIFBench's rubric-based scorer: the scorer (scorer.py), the points of each
task (point_specs.py), the rubric programs of each scenario (list_scenario.py,
multidoc_scenario.py, find_dup_text.py, onedoc_scenario.py) and the output readings they
share (output_text.py, original_reading.py, list_answer.py)."""
