"""The shipped sample runs are labelled on the results screen too (issue 24, item 5): a
model whose results all come from them is headed as samples, so a new user never takes
them for their own; once a run of the user's holds results of it, the label goes."""

from __future__ import annotations

from pathlib import Path

from lctui.resources import sample_runs_dir
from lctui.store.db import open_store
from lctui.store.read.runs import sample_only_models
from lctui.store.result_cells import rebuild_result_cells
from lctui.store.samples import sample_run_ids
from lctui.store.transfer import import_parquet
from lctui.tui.state.heatmap_data import model_grid


def _headings(db: Path) -> set[str]:
    with open_store(db, read_only=True) as store:
        grid = model_grid(store.cursor()).grid
    return {row.group for row in grid.rows}


def test_a_model_known_only_from_the_sample_runs_is_headed_as_samples(tmp_path: Path) -> None:
    db = tmp_path / "samples.duckdb"
    with open_store(db) as store:
        assert import_parquet(store, sample_runs_dir() / "smollm2-synthetic") > 0
    assert _headings(db) == {"smollm2-135m (sample runs)"}
    with open_store(db, read_only=True) as store:
        assert sample_only_models(store) == {"smollm2-135m"}


def test_the_label_goes_once_a_run_of_the_users_holds_results_of_the_model(
    tmp_path: Path,
) -> None:
    db = tmp_path / "mixed.duckdb"
    with open_store(db) as store:
        import_parquet(store, sample_runs_dir() / "smollm2-synthetic")
        (sample,) = sample_run_ids()
        con = store.cursor()
        # One generation moved to a run of the user's (written by hand, so the results
        # pivot is rebuilt as `lctui` would find it behind and rebuild it).
        con.execute(
            "UPDATE generations SET run_id = 'users-own-run' WHERE generation_id = "
            "(SELECT min(generation_id) FROM generations WHERE run_id = ?)",
            [sample],
        )
        rebuild_result_cells(con)
        con.close()
    assert _headings(db) == {"smollm2-135m"}
