"""analysis layer: statistics, imports and reports over the store (docs/ARCHITECTURE.md, Layers)."""
