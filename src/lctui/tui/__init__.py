"""tui layer (see DESIGN.md)."""
