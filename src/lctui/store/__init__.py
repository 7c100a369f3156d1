"""DuckDB results file: schema and migrations, the batched writer, read queries."""

from lctui.store.db import Store, open_store
from lctui.store.read.arrow import query_arrow
from lctui.store.read.cells import CellScore, cell_scores
from lctui.store.read.generations import (
    GenerationRecord,
    get_generation,
    load_example,
    stored_keys,
)
from lctui.store.read.runs import RunSummary, list_runs, run_summary
from lctui.store.schema import SCHEMA_VERSION
from lctui.store.writer import StoreWriter

__all__ = [
    "SCHEMA_VERSION",
    "CellScore",
    "GenerationRecord",
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
