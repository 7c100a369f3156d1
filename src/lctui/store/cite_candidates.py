"""Which stored generations ask for citation scoring (`lctui cite-score`)."""

from __future__ import annotations

from lctui.store.read.source import Source, cursor_of


def citation_candidates(src: Source, run_id: str | None = None) -> list[tuple[str, str, str]]:
    """(generation_id, example_id, output) of the latest successful generations whose
    example cites documents (metadata "citations"), optionally of one run only."""
    with cursor_of(src) as cur:
        rows = cur.execute(
            "SELECT g.generation_id, g.example_id, g.output FROM latest_generations AS g "
            "JOIN examples AS e ON e.example_id = g.example_id "
            "WHERE g.status = 'ok' "
            "AND json_extract_string(e.metadata, '$.citations') IS NOT NULL "
            "AND ($run_id IS NULL OR g.run_id = $run_id) ORDER BY g.started_at, g.generation_id",
            {"run_id": run_id},
        ).fetchall()
    return [(str(r[0]), str(r[1]), str(r[2] or "")) for r in rows]
