"""Invented SQuAD v2.0- and HotpotQA-format data for RULER's qa_1 and qa_2, in the layouts
where `--data DIR` finds them.

The committed files are `tests/fixtures/ruler_qa/squad.json` and `hotpotqa.json` (written
by its make_ruler_qa.py; every fact made up): 16 SQuAD articles of 10 paragraphs (224
answerable questions, some unanswerable ones), 36 HotpotQA rows of 10 paragraphs (249
distinct documents). Enough to fill 8K tokens. The folder itself is a valid `--data DIR`
(files at DIR/squad.json, DIR/hotpotqa.json).

- `write_ruler_qa(folder, layout)` copies them into `folder` as a user would keep them:
  "ruler" (DIR/ruler/squad.json, DIR/ruler/hotpotqa.json: RULER's names), "original"
  (DIR/dev-v2.0.json, DIR/hotpot_dev_distractor_v1.json: the download names) or
  "checkout" (a RULER checkout: DIR/scripts/data/synthetic/json/...).
- `write_hotpotqa_hub(home)` puts the HotpotQA file into a hub cache under `home` where
  RULER's download script fetches it (namlh2004/hotpotqa at its pinned revision).
- `write_large_hotpotqa(folder, copies)`: a HotpotQA file many times the fixture's size.
- `break_squad(path)` and `break_hotpotqa(path)` spoil a few entries of a copy and
  return the problems `data_problems()` must report, as `FILE:N: reason; line skipped`.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from helpers.hub_cache import hub_repo
from lctui.suites.ruler.tasks.qa_data import HOTPOTQA_ORIGINAL, HOTPOTQA_REPO, HOTPOTQA_REVISION

RULER_QA_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "ruler_qa"
SQUAD = RULER_QA_FIXTURES / "squad.json"
HOTPOTQA = RULER_QA_FIXTURES / "hotpotqa.json"
LAYOUTS: dict[str, tuple[str, str]] = {
    "ruler": ("ruler/squad.json", "ruler/hotpotqa.json"),
    "original": ("dev-v2.0.json", HOTPOTQA_ORIGINAL),
    "checkout": (
        "scripts/data/synthetic/json/squad.json",
        "scripts/data/synthetic/json/hotpotqa.json",
    ),
}


def write_ruler_qa(folder: Path, layout: str = "ruler") -> tuple[Path, Path]:
    """The two fixture files copied into `folder` in `layout`; their new paths."""
    out = []
    for source, relative in zip((SQUAD, HOTPOTQA), LAYOUTS[layout], strict=True):
        target = folder / relative
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(source, target)
        out.append(target)
    return out[0], out[1]


def write_hotpotqa_hub(home: Path) -> Path:
    """The HotpotQA fixture as hotpot_dev_distractor_v1.json of namlh2004/hotpotqa at
    RULER's pinned revision, in a hub cache under `home`."""
    target = hub_repo(home, HOTPOTQA_REPO, HOTPOTQA_REVISION) / HOTPOTQA_ORIGINAL
    shutil.copy(HOTPOTQA, target)
    return target


def break_squad(path: Path) -> list[str]:
    """Spoil article 2 (no paragraphs), a paragraph of article 3 (no context) and a
    question of article 4 (no answer text) of the SQuAD file at `path`."""
    data = json.loads(path.read_text())
    articles = data["data"]
    articles[1] = {"title": "broken"}
    articles[2]["paragraphs"][1] = {"qas": []}
    articles[3]["paragraphs"][0]["qas"][0]["answers"] = [{"answer_start": 0}]
    path.write_text(json.dumps(data))
    return [
        f"{path}:2: article 2: no 'paragraphs' list; line skipped",
        f"{path}:3: article 3: paragraph 2 has no 'context' text; line skipped",
        f"{path}:4: article 4: paragraph 1, question 1 has no answers with text; line skipped",
    ]


def break_hotpotqa(path: Path) -> list[str]:
    """Spoil row 2 (no answer), row 3 (a context entry without sentences) and row 5 (not
    an object) of the HotpotQA file at `path`."""
    rows = json.loads(path.read_text())
    del rows[1]["answer"]
    rows[2]["context"][0] = [rows[2]["context"][0][0]]
    rows[4] = "not a row"
    path.write_text(json.dumps(rows))
    return [
        f"{path}:5: item is not an object; line skipped",
        f"{path}:2: no 'question' or 'answer' text; line skipped",
        f"{path}:3: 'context' is not a list of [title, [sentences]] pairs; line skipped",
    ]


def write_large_hotpotqa(folder: Path, copies: int) -> Path:
    """`folder/ruler/hotpotqa.json` holding the fixture's rows `copies` times, each copy's
    titles numbered (`Title 3`), so it has about 249 x `copies` distinct documents (12
    copies: about 170K o200k_base tokens, enough for 128K)."""
    rows = json.loads(HOTPOTQA.read_text())
    out = []
    for copy in range(copies):
        for row in rows:

            def named(title: str, copy: int = copy) -> str:
                return f"{title} {copy}"

            out.append(
                {
                    **row,
                    "_id": f"{row['_id']}-{copy}",
                    "supporting_facts": [[named(t), i] for t, i in row["supporting_facts"]],
                    "context": [
                        [named(t), [s.replace(t, named(t)) for s in sentences]]
                        for t, sentences in row["context"]
                    ],
                }
            )
    target = folder / "ruler" / "hotpotqa.json"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(json.dumps(out))
    return target
