"""A stored cwe output like issue 15's: words the list never holds, one repeated, scored.

Tests of the inspector and of `lctui show` store it beside a gold run and read it back.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

from lctui.core.types import Example, Generation, GenerationStatus
from lctui.scoring import score_example
from lctui.store import open_store
from lctui.store.read.generations import load_example


def issue15_output(example: Example) -> str:
    """The solved example's first answer word, one asked word, two words the prompt never
    holds, the last repeated until the answer ran out (as SmolLM2's sample output did)."""
    # The solved example's answer: the answer prefix, then its numbered words.
    solved = re.search(re.escape(example.answer_prefix) + r" 1\. (\S+) 2\. ", example.preamble)
    assert solved is not None, "cwe's preamble has a solved example"
    demo_word = solved.group(1)
    prompt = example.user_text.lower()
    assert "pursuit" not in prompt and "fliers" not in prompt
    return " " + ", ".join([demo_word, example.gold[0], "pursuit", *["fliers"] * 38])


def add_issue15_generation(db: Path, of: str, generation_id: str = "issue15-cwe") -> str:
    """Store issue 15's kind of output as another attempt at the cwe example of generation
    `of` (same run and model, its own key), scored by the real scorer."""
    store = open_store(db)
    try:
        cursor = store.cursor()
        row = cursor.execute(
            "SELECT example_id, model_id, run_id, config_hash FROM generations "
            "WHERE generation_id = ?",
            [of],
        ).fetchone()
        assert row is not None
        example_id, model_id, run_id, config_hash = row
        example = load_example(cursor, example_id)
        cursor.close()
        assert example is not None and example.task == "cwe"
        output = issue15_output(example)
        generation = Generation(
            generation_id=generation_id,
            gen_key=generation_id + "-key",
            run_id=run_id,
            model_id=model_id,
            example_id=example_id,
            config_hash=config_hash,
            status=GenerationStatus.OK,
            output=output,
            prompt_tokens=example.prompt_tokens,
            output_tokens=120,
            ttft_s=0.1,
            latency_s=2.0,
            finish_reason="length",
            error=None,
            started_at=time.time(),
        )
        store.add_generation(generation, {"max_new_tokens": 120, "temperature": 0.0})
        store.add_score(generation_id, score_example(example, output))
        store.flush(force=True)
    finally:
        store.close()
    return generation_id
