"""tui layer: the Textual app, its screens and widgets (docs/ARCHITECTURE.md, Layers)."""
