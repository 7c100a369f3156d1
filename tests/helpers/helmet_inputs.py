"""An invented checkout of HELMET for the `helmet` input kind's tests: a data.py whose
loaders assign their templates as HELMET 4526dfb's do (the same names, statements and
structure) but with sentences of our own, a utils.py with parse_output's signature,
flat YAML configs, and a data/ folder with the invented release files of
tests/fixtures/helmet plus a JSON KV file written here.

The templates are also here as constants, so that a test can write the prompt it
expects by hand. The re-ranking loader joins its prompt template with " || ", not
HELMET's newline, so a test sees the joiner read from the checkout, not assumed.
"""

from __future__ import annotations

import json
import random
import shutil
import uuid
from pathlib import Path
from typing import Any

from helpers.helmet_data import HELMET_FIXTURES, copy_fixtures

QA_USER = "Read the notes and reply in a few words.\n\n{demos}{context}\n\nAsk: {question}"
QA_SYSTEM = "Reply:"
QA_DEMO = "{documents}\n\nAsk: {question}\nReply: {answer}"
QA_PASSAGE = "Note [{title}]: {text}"
KV_USER = "{context}\n\nGive the value that the key below has.\n\n{demos}K: {question}"
KV_SYSTEM = "V:"
KV_DEMO = "K: {key}\nV:{value}"
KV_PARSE = "v:"
RANK_USER = "Order the notes by use.\n\n{demos}{context}\n\nFind: {question}"
RANK_SYSTEM = "Order:"
RANK_TITLED = "<{id}> Note ({title}): {text}"
RANK_PLAIN = "<{id}> Note: {text}"
RANK_JOINER = " || "
CITE_USER = "{demo_text}{instruction}\n\nAsk: {question}\n\n{context}"
CITE_SYSTEM = "Reply:"
# The prompts file's texts (HELMET keeps them in prompts/*.json of its checkout).
CITE_INSTRUCTION = "Answer from the numbered notes; put the number of each note you use as [n]."
CITE_DEMO = "{instruction}\n\nAsk: {question}\n\n{context}\n\nReply: {answer}"
CITE_DOC = "Note [{ID}] ({title}): {text}"
BOOK_QA_USER = "Read the book and reply in a few words.\n\n{demo}{context}\n\nAsk: {question}"
BOOK_MC_USER = (
    "Read the book and pick one letter.\n\n{demo}{context}\n\nAsk: {question}\nPicks:\n{options}"
)
BOOK_SUM_USER = "Read the book and retell it.\n\n{demo}{context}\n\nRetell the book now."
BOOK_SYSTEM = "Reply:"
BOOK_SUM_SYSTEM = "Retelling:"
BOOK_QA_DEMO = "[book]\nAsk: {question}\nReply: {answer[0]}"
BOOK_MC_DEMO = "[book]\nAsk: {question}\nPicks:\n{options}\nReply: {answer[0]}"
BOOK_DEMOS_OPEN = "Solved ones:\n\n"
BOOK_DEMOS_CLOSE = "\n\nNow the book:\n\n"
BOOK_POSTFIX = " [the book goes on]"
# HELMET's filter_length bound on InfiniteBench's books, in (Llama-2) tokens.
BOOK_MIN_TOKENS = 65536
LABEL_ITEM = "{text}\nkind: {label}"
LABEL_USER = "Give the kind of the last text, as the mapping shows.\n\n{context}\n\n{question}"
LABEL_SYSTEM = "kind:"
# utils.py's default differs from QA's answer prefix, which load_qa parses with.
PARSE_DEFAULT = "Result:"

DATA_PY = f"""
import hashlib


def load_qa(dataset, path, demo_path, max_test_samples=None, popularity_threshold=None, shots=0):
    if "nq_bad" in dataset:
        user_template = "Not this one.\\n\\n{{demos}}{{context}}\\n\\nAsk: {{question}}"
    else:
        user_template = {QA_USER!r}
    system_template = {QA_SYSTEM!r}
    prompt_template = user_template + "\\n" + system_template
    key = "id" if "id" in data.column_names else "question"
    demo_template = {QA_DEMO!r}
    passage_template = {QA_PASSAGE!r}

    def update(sample):
        demo_text = ""
        if shots > 0:
            demo_text = "\\n\\n".join([demo_template.format(**d) for d in demos]) + "\\n\\n"
        return {{"demos": demo_text}}

    def post_process(output, example):
        parsed_pred = parse_output(output["output"], system_template)
        return {{}}, {{"parsed_output": parsed_pred}}


def load_json_kv(path, shots, max_test_samples=None, seed=42):
    user_template = {KV_USER!r}
    system_template = {KV_SYSTEM!r}
    prompt_template = user_template + "\\n" + system_template
    demo_template = {KV_DEMO!r}

    def post_process(output, example):
        parsed_pred = parse_output(output["output"], {KV_PARSE!r})
        return {{}}, {{"parsed_output": parsed_pred}}


def load_msmarco_rerank(path, demo_path=None, max_test_samples=None, shots=0, seed=42):
    user_template = {RANK_USER!r}
    system_template = {RANK_SYSTEM!r}
    prompt_template = user_template + {RANK_JOINER!r} + system_template

    def update(sample, demos):
        passage_template = {RANK_TITLED!r} if "title" in sample["ctxs"][0] else {RANK_PLAIN!r}
        demo_text = ""
        if shots > 0:
            for d in demo:
                ranking = " > ".join([x["id"] for x in d["ctxs"]])
                listed = "\\n\\n".join([passage_template.format(**c) for c in d["ctxs"]])
                demo_text += listed + f"\\n\\nFind: {{d['query']}}\\nOrder: {{ranking}}" + "\\n\\n"
        return {{"demos": demo_text}}


def truncate_llama2(dataset, data, postfix_text={BOOK_POSTFIX!r}):
    max_length = int(dataset.split("_")[-1])
    return data


def filter_length(data, min_length, key):
    return data


def load_infbench(dataset, shots=0, max_test_samples=None, seed=42):
    if "qa_eng" in dataset:
        user_template = {BOOK_QA_USER!r}
        system_template = {BOOK_SYSTEM!r}
    elif "choice_eng" in dataset:
        user_template = {BOOK_MC_USER!r}
        system_template = {BOOK_SYSTEM!r}
    elif "sum_eng" in dataset:
        user_template = {BOOK_SUM_USER!r}
        system_template = {BOOK_SUM_SYSTEM!r}
    prompt_template = user_template + "\\n\\n" + system_template

    def add_demos(example):
        demos = data.filter(lambda x: x["id"] != example["id"]).shuffle(seed=seed)
        if "qa_eng" in dataset:
            temp = {BOOK_QA_DEMO!r}
            demo = "\\n\\n".join([temp.format(**x) for x in demos])
        elif "choice_eng" in dataset:
            temp = {BOOK_MC_DEMO!r}
            demo = "\\n\\n".join([temp.format(**x) for x in demos])
        elif "sum_eng" in dataset:
            demo = "\\n\\n".join([f"[book]\\nRetelling: {{x['answer'][0].strip()}}" for x in demos])
        return {{"demo": f"Solved ones:\\n\\n{{demo}}\\n\\nNow the book:\\n\\n"}}

    data = filter_length(data, {BOOK_MIN_TOKENS}, "context")


def load_icl(dataset, max_test_sample=None, seed=42):
    shot = int(dataset.split("shot")[0].split("_")[-1])
    item_template = {LABEL_ITEM!r}
    user_template = {LABEL_USER!r}
    system_template = {LABEL_SYSTEM!r}
    prompt_template = user_template + "\\n" + system_template

    def post_process(output, example):
        prediction = parse_output(output["output"], system_template)
        return {{}}, {{"parsed_output": prediction}}


def load_alce(dataset, path, demo_path, shots=0):
    with open(demo_path, "r") as f:
        demos = json.load(f)
    instruction = demos["instruction"]
    user_template = {CITE_USER!r}
    system_template = {CITE_SYSTEM!r}
    prompt_template = user_template + "\\n\\n" + system_template
"""

UTILS_PY = f"""
def parse_output(output, prefix={PARSE_DEFAULT!r}):
    return output
"""

KV_FILE = "json_kv/test_k12_dep6.jsonl"
NQ_FILE = "kilt/nq-dev-multikilt_1000_k20_dep6.jsonl"
NQ_DEMOS = "kilt/nq-train-multikilt_1000_k3_dep6.jsonl"
POPQA_FILE = "kilt/popqa_test_1000_k20_dep6.jsonl"
POPQA_DEMOS = "kilt/popqa_test_1000_k3_dep6.jsonl"
TRIVIA_FILE = "kilt/triviaqa-dev-multikilt_1000_k20_dep6.jsonl"
TRIVIA_DEMOS = "kilt/triviaqa-train-multikilt_1000_k3_dep6.jsonl"
RANK_FILE = "msmarco/test_reranking_data_k14_dep3.jsonl"
RANK_DEMOS = "msmarco/test_reranking_data_k10_dep3.jsonl"
ASQA_FILE = "alce/asqa_eval_gtr_top2000.json"
QAMPARI_FILE = "alce/qampari_eval_gtr_top2000.json"
# Not under data/: HELMET's configs name prompts/ of the checkout.
ASQA_PROMPTS = "../prompts/asqa_ours.json"
QAMPARI_PROMPTS = "../prompts/qampari_ours.json"


def config_text(
    datasets: list[tuple[str, str, str, int, int]],
    *,
    use_chat_template: bool = False,
    max_test_samples: int | None = 3,
    shots: int = 2,
) -> str:
    """A flat config as HELMET writes them: (dataset, test file, demo file, input length,
    answer budget) per dataset, paths under data/."""
    names, tests, demos, lengths, budgets = zip(*datasets, strict=True)
    lines = [
        f"input_max_length: {','.join(map(str, lengths))}",
        f"datasets: {','.join(names)}",
        f"generation_max_length: {','.join(map(str, budgets))}",
        "test_files: '" + ",".join(f"data/{t}" if t else "" for t in tests) + "'",
        "demo_files: '" + ",".join(_demo_path(d) for d in demos) + "'",
        f"use_chat_template: {str(use_chat_template).lower()}",
        f"shots: {shots}",
        "stop_new_line: true",
        "model_name_or_path: our-model",
    ]
    if max_test_samples is not None:
        lines.append(f"max_test_samples: {max_test_samples}")
    return "\n".join(lines) + "\n"


SMALL = [
    ("json_kv", KV_FILE, "", 4096, 100),
    ("kilt_nq", NQ_FILE, NQ_DEMOS, 4096, 20),
    ("kilt_popqa_3", POPQA_FILE, POPQA_DEMOS, 4096, 20),
    ("msmarco_rerank_psg", RANK_FILE, RANK_DEMOS, 4096, 200),
]
CHAT = [("kilt_triviaqa", TRIVIA_FILE, TRIVIA_DEMOS, 2048, 30)]
CITE = [
    ("alce_asqa_8", ASQA_FILE, ASQA_PROMPTS, 8192, 300),
    ("alce_qampari_5", QAMPARI_FILE, QAMPARI_PROMPTS, 8192, 300),
]


def _demo_path(demo: str) -> str:
    if not demo:
        return ""
    return demo[3:] if demo.startswith("../") else f"data/{demo}"


def write_alce_prompts(root: Path) -> None:
    """prompts/{asqa,qampari}_ours.json of the checkout: our texts, the fixture's demos."""
    folder = root / "prompts"
    folder.mkdir(exist_ok=True)
    for name, target in (("asqa", ASQA_PROMPTS), ("qampari", QAMPARI_PROMPTS)):
        demos = json.loads((HELMET_FIXTURES / "prompts" / f"{name}_revised.json").read_text())
        prompts = {
            "instruction": CITE_INSTRUCTION,
            "demo_sep": "\n\n\n",
            "demo_prompt": CITE_DEMO,
            "doc_prompt": CITE_DOC,
            "demos": demos["demos"],
        }
        (root / target[3:]).write_text(json.dumps(prompts, indent=1), encoding="utf-8")


BOOKS_REPO = "xinrongzhang2022/infinitebench"
BOOK_STEMS = {"qa": "longbook_qa_eng", "mc": "longbook_choice_eng", "sum": "longbook_sum_eng"}
# Each book's length in characters (one token each with make_char_tokenizer, after <s>):
# one under BOOK_MIN_TOKENS, which HELMET leaves out; the others over 68,000 are cut.
BOOK_CHARS = (70_500, 66_000, 52_000, 80_250, 67_300)
BOOKS = [
    ("infbench_qa_eng_68000", "", "", 70000, 10),
    ("infbench_choice_eng_68000", "", "", 70000, 10),
]
LABELS = [
    ("icl_trec_coarse_12shot_balance", "", "", 4096, 20),
    ("icl_trec_fine_9shot_balance", "", "", 4096, 20),
    ("icl_banking77_8shot_balance", "", "", 4096, 20),
    ("icl_banking77_5shot_balance_natural_label", "", "", 8192, 20),
    ("icl_clinic150_7shot_balance", "", "", 4096, 20),
    ("icl_nlu_6shot_balance", "", "", 4096, 20),
]
# HELMET's ICL repositories (tests/fixtures/helmet/icl/hub, in the mirrored layout).
ICL_HUB = HELMET_FIXTURES / "icl" / "hub"
SUMMARIES = [("infbench_sum_eng_69000", "", "", 71000, 1200)]

# The configs scripts/parity/helmet_inputs.py runs HELMET's load_data on: a draw of rows
# with two demonstrations, and every row with one.
PARITY_CONFIGS = {
    "cite.yaml": config_text(CITE, use_chat_template=True, max_test_samples=3),
    "cite_all.yaml": config_text(
        [
            ("alce_asqa_3", ASQA_FILE, ASQA_PROMPTS, 4096, 300),
            ("alce_qampari_12", QAMPARI_FILE, QAMPARI_PROMPTS, 16384, 300),
        ],
        max_test_samples=None,
        shots=1,
    ),
    "icl.yaml": config_text(LABELS, max_test_samples=4, shots=0),
    "longqa.yaml": config_text(BOOKS, use_chat_template=True, max_test_samples=3),
    "summ.yaml": config_text(SUMMARIES, max_test_samples=None, shots=1),
}


def book_rows(kind: str, seed: int = 11) -> list[dict[str, Any]]:
    """InfiniteBench rows in the hub file's format (id, context, input, answer, options)."""
    rng = random.Random(seed)
    syllables = ["vel", "kor", "dun", "oma", "reth", "sab", "quin", "lor", "bra", "tas"]
    rows = []
    for index, chars in enumerate(BOOK_CHARS):
        name = f"Velkor{index}"
        words = [f"{name} kept the ferry."]
        total = len(words[0])
        while total < chars:
            word = rng.choice(syllables) + rng.choice(syllables)
            words.append(word + ("." if rng.random() < 0.1 else ""))
            total += len(words[-1]) + 1
        options: list[str] = []
        question = f"Who kept the ferry in book {index}?"
        if kind == "mc":
            options = [f"{name} of the {place}" for place in ("north", "south", "east", "west")]
            answer = [options[index % 4]]
        elif kind == "qa":
            answer = [name, f"the keeper {name}"]
        else:
            question = ""
            answer = [f"  {name} kept the ferry for years, then sailed away.\n"]
        rows.append(
            {
                "id": 100 + 3 * index,
                "context": " ".join(words)[:chars],
                "input": question,
                "answer": answer,
                "options": options,
            }
        )
    return rows


def write_books(folder: Path) -> Path:
    """InfiniteBench's three files in `folder` (a hub snapshot, or FOLDER/hub/ORG/NAME)."""
    folder.mkdir(parents=True, exist_ok=True)
    for kind, stem in BOOK_STEMS.items():
        lines = [json.dumps(row) for row in book_rows(kind)]
        (folder / f"{stem}.jsonl").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return folder


def kv_rows(count: int = 5, pairs: int = 12, seed: int = 7) -> list[dict[str, Any]]:
    """JSON KV rows in the release's format (context, question, answer, demos, num_kvs)."""
    rng = random.Random(seed)

    def uid() -> str:
        return str(uuid.UUID(int=rng.getrandbits(128), version=4))

    rows = []
    for index in range(count):
        pairs_of = [(uid(), uid()) for _ in range(pairs)]
        key, value = pairs_of[rng.randrange(pairs)]
        rows.append(
            {
                "id": index,
                "context": json.dumps(dict(pairs_of), indent=1),
                "question": key,
                "answer": value,
                "demos": [[uid(), uid()] for _ in range(3)],
                "num_kvs": pairs,
            }
        )
    return rows


def write_checkout(root: Path, configs: dict[str, str] | None = None) -> Path:
    """The invented checkout at `root` with its data/ folder; `configs` by file name
    (default: small.yaml with SMALL, chat.yaml with CHAT under the chat template)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "data.py").write_text(DATA_PY, encoding="utf-8")
    (root / "utils.py").write_text(UTILS_PY, encoding="utf-8")
    folder = root / "configs"
    folder.mkdir(exist_ok=True)
    chosen = configs or {
        "small.yaml": config_text(SMALL),
        "chat.yaml": config_text(CHAT, use_chat_template=True),
    }
    for name, text in chosen.items():
        (folder / name).write_text(text, encoding="utf-8")
    data = copy_fixtures(root / "data")
    shutil.copytree(HELMET_FIXTURES / "alce", data / "alce")
    write_books(root / "hub" / BOOKS_REPO)
    shutil.copytree(ICL_HUB, root / "hub", dirs_exist_ok=True)
    write_alce_prompts(root)
    (data / "json_kv").mkdir()
    lines = [json.dumps(row) for row in kv_rows()]
    (data / KV_FILE).write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


def read_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line]
