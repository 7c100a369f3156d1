"""DuckDB schema, migrations, the batched writer and read queries."""

from lctui.store.db import Store, open_store
from lctui.store.writer import StoreWriter

__all__ = ["Store", "StoreWriter", "open_store"]
