"""The real embedded model end to end: generate, stream, score, store, read back, resume."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from lctui.cli import main


@pytest.mark.slow
def test_smollm2_two_tasks_two_lengths_three_examples(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps tables at the terminal width
    db = tmp_path / "smol.duckdb"
    args = [
        "run",
        "--model",
        "smollm2-135m",
        "--tasks",
        "niah_single_1,vt",
        "--lengths",
        "1k,2k",
        "--n",
        "3",
        "--db",
        str(db),
    ]
    assert main(args) == 0
    out = capsys.readouterr().out
    assert "12 done, 0 error(s)" in out

    con = duckdb.connect(str(db), read_only=True)
    rows = con.execute(
        "SELECT task, length, status, score, prompt_tokens, output, generation_id "
        "FROM results ORDER BY task, length"
    ).fetchall()
    assert len(rows) == 12
    assert {(r[0], r[1]) for r in rows} == {
        (t, n) for t in ("niah_single_1", "vt") for n in (1024, 2048)
    }
    for task, length, status, score, prompt_tokens, _output, _gid in rows:
        assert status in ("ok", "unparsed")
        assert score is not None and 0.0 <= score <= 1.0
        # The whole prompt as the model saw it (chat template included) fits the length.
        max_new = 128 if task.startswith("niah") else 30
        assert length - max(8, length // 200) - 8 <= prompt_tokens + max_new <= length
    # Every stored generation has its rubric points and the exact prompt pieces.
    points = con.execute("SELECT count(*) FROM rubric").fetchone()
    assert points is not None and points[0] >= 24
    head = con.execute("SELECT prompt_head, prompt_tail FROM generations LIMIT 1").fetchone()
    assert head is not None and "<|im_start|>" in head[0] and "assistant" in head[1]
    con.close()

    # `lctui show` prints the prompt, output and rubric of one generation.
    assert main(["show", rows[0][6], "--db", str(db)]) == 0
    shown = capsys.readouterr().out
    assert "all requested values present" in shown and "Gold:" in shown

    # The same command again adds nothing and says so.
    assert main(args) == 0
    assert "Nothing to do" in capsys.readouterr().out
