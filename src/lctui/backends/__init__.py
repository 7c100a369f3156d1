"""Model adapters (docs/ARCHITECTURE.md, Layers): resolve a model name, load its backend,
stream.

Importing this package loads neither torch nor transformers; `load_backend` does, for
the backends that need them.
"""

from lctui.backends.registry import builtin_models, declared_window, load_backend, resolve_model

__all__ = ["builtin_models", "declared_window", "load_backend", "resolve_model"]
