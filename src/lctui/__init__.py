"""lctui: interactive long-context evaluation in the terminal, and headless."""

__version__ = "0.1.0"
