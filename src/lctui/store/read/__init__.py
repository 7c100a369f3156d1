"""Every read the TUI, the CLI and the analysis make of a results file, one module per
subject, each answering with frozen dataclasses (or Arrow tables for user SQL).

Each function takes a `Source`: a Store (a fresh cursor is opened and closed) or a DuckDB
cursor (used as is, so that another thread can `interrupt()` it). User values always
travel as parameters. No SQL text lives outside `lctui.store` except what a user types
into the SQL console or `lctui query`.
"""
