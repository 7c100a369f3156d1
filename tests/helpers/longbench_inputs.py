"""A checkout in the layout of THUDM/LongBench with templates of our own wording, and what
its pred.py would send, restated here for the tests of the `longbench` input kind.

`write_checkout` writes prompts/0shot.txt, 0shot_cot.txt, 0shot_cot_ans.txt and
0shot_no_context.txt (pred.py's placeholders `$DOC$ $Q$ $C_A$..$C_D$ $COT$` in our
sentences; 0shot.txt with CRLF line ends, which pred.py's text-mode read turns into
LF) and config/model2maxlen.json and model2path.json naming the models a test gives.
`pred_fill` and `pred_cut_hf` / `pred_cut_tiktoken` say what pred.py does with a row
(fill by str.replace in its order; keep the first and last halves of max_len tokens,
decoded as one sequence), as the tests' expectation. `bpe_tokenizer` saves a small
byte-level BPE tokenizer that adds a BOS token, as Llama's do, into a folder that
AutoTokenizer loads offline.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from helpers.longbench_data import prose

QUESTION = "Question: $Q$\nOptions:\n(A) $C_A$\n(B) $C_B$\n(C) $C_C$\n(D) $C_D$\n\n"
TEMPLATES = {
    "0shot.txt": (
        "Study the passage between the markers.\r\n\r\n<<<\r\n$DOC$\r\n>>>\r\n\r\n"
        + QUESTION.replace("\n", "\r\n")
        + 'Reply with "The correct answer is (X)".'
    ),
    "0shot_cot.txt": "Study the passage.\n\n<<<\n$DOC$\n>>>\n\n" + QUESTION + "Reason it out:",
    "0shot_cot_ans.txt": (
        "The passage is left out this time.\n\n"
        + QUESTION
        + 'Reason it out: $COT$\n\nSo which one? Reply with "The correct answer is (X)".'
    ),
    "0shot_no_context.txt": QUESTION + 'Guess. Reply with "The correct answer is (X)".',
}
MODES = {
    "longbench_v2": "0shot.txt",
    "longbench_v2_cot": "0shot_cot.txt",
    "longbench_v2_no_context": "0shot_no_context.txt",
}


def write_checkout(
    folder: Path,
    maxlens: Mapping[str, int],
    paths: Mapping[str, str] | None = None,
    templates: Mapping[str, str] = TEMPLATES,
) -> Path:
    """A folder laid out as THUDM/LongBench (prompts/, config/): `templates` written as
    bytes (line ends kept), `maxlens` and `paths` as model2maxlen.json and model2path.json."""
    (folder / "prompts").mkdir(parents=True, exist_ok=True)
    (folder / "config").mkdir(exist_ok=True)
    for name, text in templates.items():
        (folder / "prompts" / name).write_bytes(text.encode("utf-8"))
    (folder / "config" / "model2maxlen.json").write_text(json.dumps(dict(maxlens)))
    (folder / "config" / "model2path.json").write_text(json.dumps(dict(paths or {})))
    (folder / "pred.py").write_text("# the original's pred.py would be here\n")
    return folder


def pred_fill(template: str, row: Mapping[str, Any], reasoning: str | None = None) -> str:
    """The prompt pred.py makes of a template read in text mode and a dataset row."""
    text = template.replace("\r\n", "\n")
    text = text.replace("$DOC$", row["context"].strip()).replace("$Q$", row["question"].strip())
    for letter in "ABCD":
        text = text.replace(f"$C_{letter}$", row[f"choice_{letter}"].strip())
    return text if reasoning is None else text.replace("$COT$", reasoning)


def pred_cut_hf(tokenizer: Any, prompt: str, max_len: int) -> str:
    """pred.py's cut for a model of model2path.json: encode (special tokens added), keep
    the first max_len // 2 and the last ceil(max_len / 2) ids, decode skipping specials."""
    ids = tokenizer.encode(prompt)
    if len(ids) <= max_len:
        return prompt
    kept = ids[: max_len // 2] + ids[len(ids) - (max_len - max_len // 2) :]
    return str(tokenizer.decode(kept, skip_special_tokens=True))


def pred_cut_tiktoken(encoding: Any, prompt: str, max_len: int) -> str:
    """pred.py's cut for a gpt model: special-token text encoded as text."""
    ids = encoding.encode(prompt, disallowed_special=())
    if len(ids) <= max_len:
        return prompt
    return str(encoding.decode(ids[: max_len // 2] + ids[len(ids) - (max_len - max_len // 2) :]))


def bpe_tokenizer(folder: Path) -> Path:
    """A byte-level BPE tokenizer (trained on a little prose) that adds `<bos>` before
    every text, saved in `folder` as AutoTokenizer loads it."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers
    from transformers import PreTrainedTokenizerFast

    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=600,
        special_tokens=["<bos>", "<eos>"],
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
    )
    core.train_from_iterator([prose(3000, offset) for offset in range(0, 9000, 3000)], trainer)
    core.post_processor = processors.TemplateProcessing(
        single="<bos> $A", special_tokens=[("<bos>", core.token_to_id("<bos>"))]
    )
    tokenizer = PreTrainedTokenizerFast(tokenizer_object=core, bos_token="<bos>", eos_token="<eos>")
    tokenizer.save_pretrained(folder)
    return folder
