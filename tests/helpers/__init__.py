"""Helpers shared by several test modules: builders of stores and runs, Pilot helpers,
fakes. Test modules import them from here (`from helpers.gold_runs import ...`), never
from each other; tests/test_test_imports.py checks that. pytest puts tests/ on sys.path
(the rootdir conftest), so `helpers` is importable by that one name everywhere."""
