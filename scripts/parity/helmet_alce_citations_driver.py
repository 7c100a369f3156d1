"""Run HELMET's copy of ALCE's citation evaluation (eval_alce.py compute_autoais, through
its main with --citations) on results files lctui wrote, with the NLI model replaced.

Glue for tests/parity/helmet_alce_citations.jsonl, run by hand, never in CI, under the
python of the originals' venv. It imports eval_alce.py from the snapshot folder given
as the first argument and contains none of its code. Two module globals of eval_alce
are replaced before it runs:
- `_run_nli_autoais` (the T5 NLI call) by `oracle_entails` below, a deterministic rule
  the parity test applies too, and the model slot by a placeholder so nothing loads;
- `sent_tokenize` by an untrained nltk Punkt tokenizer (the pretrained punkt model
  cannot be downloaded here; same algorithm without its abbreviation list).
Every call of the NLI stand-in is recorded, so the test checks the order of the checks.

    python helmet_alce_citations_driver.py HELMET_DIR < {"files": [{"dataset", "items"}]}
"""

from __future__ import annotations

import contextlib
import io
import json
import re
import sys
import tempfile
from pathlib import Path

from helmet_driver import _load_helmet

FACT = re.compile(r"\b[a-z]+\d+\b")


def oracle_entails(premise: str, hypothesis: str) -> bool:
    """Entailed when the hypothesis names facts (lower-case word + digits, e.g. "river7")
    and the premise names every one of them."""
    wanted = set(FACT.findall(hypothesis))
    return bool(wanted) and wanted <= set(FACT.findall(premise))


def main() -> None:
    helmet = Path(sys.argv[1])
    request = json.load(sys.stdin)
    _load_helmet(helmet)
    import eval_alce  # HELMET's eval_alce.py
    from nltk.tokenize.punkt import PunktSentenceTokenizer

    calls: list[list[str]] = []

    def recorded(passage: str, claim: str) -> int:
        calls.append([passage, claim])
        return int(oracle_entails(passage, claim))

    eval_alce._run_nli_autoais = recorded
    eval_alce.autoais_model = object()  # not None: compute_autoais loads nothing
    eval_alce.sent_tokenize = PunktSentenceTokenizer().tokenize
    results = []
    with tempfile.TemporaryDirectory() as folder:
        for index, entry in enumerate(request["files"]):
            calls.clear()
            # The file name tells main which dataset it is ("qampari" in the name).
            path = Path(folder) / f"alce_{entry['dataset']}_{index}.json"
            path.write_text(json.dumps({"data": entry["items"]}))
            with contextlib.redirect_stdout(io.StringIO()):
                eval_alce.main(["--f", str(path), "--no_rouge", "--citations"])
            score = json.loads(Path(f"{path}.score").read_text())
            results.append(
                {
                    "citation_rec": score["citation_rec"],
                    "citation_prec": score["citation_prec"],
                    "calls": list(calls),
                }
            )
    json.dump(results, sys.stdout)


if __name__ == "__main__":
    main()
