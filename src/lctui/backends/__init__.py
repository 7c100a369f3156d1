"""Model adapters (DESIGN.md, backends): resolve a model name, load its backend, stream.

Importing this package loads neither torch nor transformers; `load_backend` does, for
the backends that need them.
"""

from lctui.backends.registry import aload_backend, builtin_models, load_backend, resolve_model

__all__ = ["aload_backend", "builtin_models", "load_backend", "resolve_model"]
