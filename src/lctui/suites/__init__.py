"""Benchmark suites, one folder each, found through the registry in core/suites.py.

A suite's folder registers one `lctui.core.suites.Suite` when imported; the generic
layers never import a suite (import-linter checks it), and suites never import each
other. docs/ARCHITECTURE.md, "Suites", says what a suite holds and how to add one.
"""
