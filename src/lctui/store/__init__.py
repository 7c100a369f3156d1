"""DuckDB results file: schema and migrations, the batched writer, read queries."""

from lctui.store.db import Store, open_store
from lctui.store.queries import (
    CellScore,
    RunSummary,
    cell_scores,
    get_generation,
    list_runs,
    load_example,
    query_arrow,
    run_summary,
    stored_keys,
)
from lctui.store.schema import SCHEMA_VERSION
from lctui.store.writer import StoreWriter

__all__ = [
    "SCHEMA_VERSION",
    "CellScore",
    "RunSummary",
    "Store",
    "StoreWriter",
    "cell_scores",
    "get_generation",
    "list_runs",
    "load_example",
    "open_store",
    "query_arrow",
    "run_summary",
    "stored_keys",
]
