"""Regenerate tests/parity/ruler_structure.jsonl: the structure of RULER's own generated examples.

Runs the snapshot's own generators (scripts/data/synthetic/{niah,variable_tracking,
common_words_extraction,freq_words_extraction}.py) with the arguments its prepare.py
builds (task arguments from synthetic.yaml, the `base` model template plus the task's
template and answer prefix, tokens to generate from its constants), counting with
tiktoken o200k_base (`--tokenizer_type openai`), and records the structure of every
example: needle counts and token depths, answer prefix fields, demonstration sizes,
word counts and shares, budget use, whether a filler or needle unit is cut (RULER
inserts them whole) and how often each of cwe's other words occurs. No text of the
examples is stored.

    PYTHONPATH=src python scripts/parity/ruler_structure.py --ruler PATH/TO/RULER \
        --python PATH/TO/venv/bin/python [--commit HASH] [--n 20] [--n-other 8] [--n-long 10]

The snapshot's Python needs RULER's generator dependencies (tiktoken, nltk, wonderwords,
numpy, scipy, pyyaml, tqdm, tenacity). Offline stand-ins, recorded in the header's notes: the
essay haystack (Paul Graham's essays, downloaded by the original) is State of the Union
prose from lctui's corpus; nltk's pretrained punkt model is an untrained
PunktSentenceTokenizer (same algorithm); RULER's english_words.json (only read beyond
~8,000 cwe words) is empty.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

from ruler_common import (
    NIAH,
    check_snapshot,
    run_in_snapshot_python,
    snapshot_commit,
    structure_parser,
    tiktoken_cache,
    write_fixture,
)

from lctui.tasks.corpora import sotu_speeches

# (task, length, examples): every task at 4K and 8K, cwe's short regime at 2K. Needle
# tasks get more examples: their depth spread is compared as a distribution. At 16K the
# tasks whose units lctui once cut to fill the budget: the filler and distractor
# haystacks' last sentence, cwe's last word.
JOBS = [
    *[(task, length, "needle") for length in (4096, 8192) for task in NIAH],
    *[(task, length, "other") for length in (4096, 8192) for task in ("vt", "cwe", "fwe")],
    ("cwe", 2048, "other"),
    *[(task, 16384, "long") for task in ("niah_single_1", "niah_multikey_2", "niah_multikey_3")],
    ("cwe", 16384, "long"),
]
ESSAY_SPEECHES = 40  # the last 40 addresses: about 200K words, enough for 8K

# Our shim for the snapshot's Python: nltk's sent_tokenize without the punkt download.
SHIM = r"""
import nltk, nltk.tokenize
from nltk.tokenize.punkt import PunktSentenceTokenizer
_untrained = PunktSentenceTokenizer()

def _sent_tokenize(text, language="english"):
    return _untrained.tokenize(text)

nltk.tokenize.sent_tokenize = _sent_tokenize
nltk.sent_tokenize = _sent_tokenize
_find = nltk.data.find

def _find_without_punkt(resource, *args, **kwargs):
    if "punkt" in str(resource):
        return resource
    return _find(resource, *args, **kwargs)

nltk.data.find = _find_without_punkt
"""

# Our glue, run in the snapshot's Python. It runs the original's generator scripts as
# prepare.py would and reads their output files; the templates, needle format and
# answer prefixes it needs to find the parts of an example are read from the snapshot
# at run time.
GLUE = r"""
import ast, collections, importlib.util, json, os, re, shutil, subprocess, sys
from pathlib import Path

ruler, work, jobs_path, out_path, essay_path, shim_dir = map(Path, sys.argv[1:7])
scripts = work / "scripts"
shutil.copytree(ruler / "scripts", scripts)
folder = scripts / "data" / "synthetic" / "json"
folder.mkdir(parents=True, exist_ok=True)
(folder / "PaulGrahamEssays.json").write_text(json.dumps({"text": essay_path.read_text()}))
(folder / "english_words.json").write_text("{}")

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

TASKS = load("ruler_constants", scripts / "data" / "synthetic" / "constants.py").TASKS
TEMPLATES = load("ruler_template", scripts / "data" / "template.py").Templates
import yaml, tiktoken
CONFIGS = yaml.safe_load((scripts / "synthetic.yaml").read_text())
ENC = tiktoken.get_encoding("o200k_base")
tokens = lambda text: len(ENC.encode(text, disallowed_special=()))

def module_string(path, name):
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == name for t in node.targets):
            return ast.literal_eval(node.value)
    raise LookupError(name)

NEEDLE_FORMAT = module_string(scripts / "data" / "synthetic" / "niah.py", "needle")
needle_parts = re.split(r"\{(\w+)\}", NEEDLE_FORMAT)
GROUPS = {"type_needle_v": r"(?P<kind>\w+)", "key": r"(?P<key>.+?)", "value": r"(?P<value>\S+?)"}
NEEDLE = re.compile("".join(re.escape(p) if i % 2 == 0 else GROUPS[p]
                            for i, p in enumerate(needle_parts)))

def module_strings(path, name):
    # Every string assigned to `name`, in any branch of the module.
    found = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant)
                and isinstance(node.value.value, str)
                and any(getattr(t, "id", "") == name for t in node.targets)):
            found.add(node.value.value)
    return found

# The noise haystacks' filler paragraphs, as the generators define them.
FILLERS = set().union(*(module_strings(scripts / "data" / "synthetic" / f"{m}.py", "haystack")
                        for m in ("niah", "variable_tracking")))

def run(task, length, n, seed):
    config = dict(CONFIGS[task])
    config.update(TASKS[config["task"]])
    template = TEMPLATES["base"].format(task_template=config["template"])
    template += config.get("answer_prefix", "")
    script = scripts / "data" / "synthetic" / f"{config['task']}.py"
    save = work / "out"
    command = [sys.executable, str(script), "--save_dir", str(save),
               "--save_name", f"{task}_{length}", "--subset", "validation",
               "--tokenizer_path", "o200k_base", "--tokenizer_type", "openai",
               "--max_seq_length", str(length),
               "--tokens_to_generate", str(config["tokens_to_generate"]),
               "--num_samples", str(n), "--random_seed", str(seed)]
    for key, value in config["args"].items():
        command += [f"--{key}", str(value)]
    command += ["--template", template]
    env = {**os.environ, "PYTHONPATH": str(shim_dir)}
    done = subprocess.run(command, env=env, capture_output=True, text=True, cwd=scripts / "data")
    if done.returncode != 0:
        raise SystemExit(f"{task} at {length}: {done.stderr[-3000:]}")
    rows = [json.loads(line) for line in open(save / f"{task}_{length}" / "validation.jsonl")]
    return config, rows

def context_of(text, template):
    # The context sits between the template's text before and after {context}: count
    # the newlines of each part (placeholders there hold no newline).
    head, tail = template.split("{context}")
    if "\n" in head:
        start = 0
        for _ in range(head.count("\n")):
            start = text.index("\n", start) + 1
    else:
        start = len(head)
    end = len(text)
    for _ in range(tail.count("\n")):
        end = text.rindex("\n", 0, end)
    return text[start:end]

def depth(context, position):
    return round(tokens(context[:position]) / max(1, tokens(context)), 4)

def niah(row, config):
    context = context_of(row["input"], config["template"])
    found = [(m.start(), m.group("key"), m.group("value")) for m in NEEDLE.finditer(context)]
    gold = set(row["outputs"])
    asked = [(pos, key) for pos, key, value in found if value in gold]
    keys = sorted({key for _, key in asked})
    kind = config["args"]["type_needle_v"]
    prefix = row["answer_prefix"]
    haystack = config["args"]["type_haystack"]
    lines = context.count("\n") + 1 if haystack != "essay" else None
    # Lines of a filler or needle haystack that are neither a whole filler paragraph nor a
    # whole needle (the essay is cut at a word by design: None).
    partial = None if haystack == "essay" else sum(
        1 for line in context.split("\n") if line not in FILLERS and not NEEDLE.fullmatch(line))
    return {
        "needles": len(found),
        "asked_needles": len(asked),
        "asked_keys": len(keys),
        "gold_depths": [depth(context, pos) for pos, _ in asked],
        "haystack": haystack,
        "context_lines": lines,
        "partial_units": partial,
        "prefix_keys_named": sum(key in prefix for key in keys),
        "prefix_names_kind": kind[:-1] in prefix,
    }

def vt(row, config):
    marker = config["template"][:20]
    second = row["input"].index(marker, row["input"].index(marker) + 1)
    demo, main = row["input"][:second], row["input"][second:]
    hops = int(config["args"]["num_hops"])
    demo_names = demo.strip().split()[-hops - 1:]
    context = context_of(main, config["template"])
    values = sorted(set(re.findall(r"\b\d{5}\b", context)))
    prefix = row["answer_prefix"]
    # Lines that are part of a filler paragraph, not all of it (the rest are whole
    # paragraphs and the chains' assignments).
    partial = sum(1 for line in context.split("\n")
                  if line.strip() and line not in FILLERS
                  and any(f.startswith(line.strip()) for f in FILLERS))
    return {
        "demo_tokens": tokens(demo),
        "demo_name_lengths": sorted({len(n) for n in demo_names}),
        "demo_names": len(demo_names),
        "name_lengths": sorted({len(n) for n in row["outputs"]}),
        "golds": len(row["outputs"]),
        "chain_values": len(values),
        "partial_units": partial,
        "prefix_names_value": bool(values) and values[0] in prefix,
        "prefix_names_count": str(len(row["outputs"])) in prefix,
    }

def word_list(block, template):
    line = context_of(block.rstrip("\n"), template)
    return [w for w in re.split(r"(?:^| )\d+\. ", line)[1:]]

def histogram(words):
    counts = collections.Counter(collections.Counter(words).values())
    return {str(k): v for k, v in sorted(counts.items())}

def cwe(row, config):
    marker = config["template"][:20]
    text = row["input"]
    starts = [m.start() for m in re.finditer(re.escape(marker), text)] + [len(text)]
    blocks = [text[a:b] for a, b in zip(starts, starts[1:])]
    demos, main = blocks[:-1], blocks[-1]
    main_words = word_list(main, config["template"])
    counts = collections.Counter(main_words)
    others = {n for word, n in counts.items() if word not in row["outputs"]}
    return {
        "demo_tokens": [tokens(b) for b in demos],
        "demo_entries": [len(word_list(b, config["template"])) for b in demos],
        "demo_histograms": [histogram(word_list(b, config["template"])) for b in demos],
        "entries": len(main_words),
        "histogram": histogram(main_words),
        "other_counts": sorted(others),
        "golds": len(row["outputs"]),
        "prefix_names_count": str(config["args"]["num_cw"]) in row["answer_prefix"],
    }

def fwe(row, config):
    words = context_of(row["input"], config["template"]).split(" ")
    counts = collections.Counter(words)
    ranked = [w for w, _ in counts.most_common()]
    return {
        "words": len(words),
        "present": len(counts),
        "counts": sorted(counts.values(), reverse=True),
        "noise_share": round(counts[ranked[0]] / len(words), 4),
        "gold_ranks": [ranked.index(g) + 1 if g in counts else None for g in row["outputs"]],
        "gold_shares": [round(counts[g] / len(words), 4) for g in row["outputs"]],
        "golds": len(row["outputs"]),
        "prefix_names_three": "three" in row["answer_prefix"],
    }

READ = {"niah": niah, "variable_tracking": vt, "common_words_extraction": cwe,
        "freq_words_extraction": fwe}
out = []
for task, length, n, seed in json.loads(jobs_path.read_text()):
    config, rows = run(task, length, n, seed)
    for sample, row in enumerate(rows):
        out.append({"task": task, "length": length, "sample": sample,
                    "max_new_tokens": config["tokens_to_generate"],
                    "budget_tokens": row["length"],
                    **READ[config["task"]](row, config)})
    print(f"{task} at {length}: {len(rows)} examples", file=sys.stderr)
json.dump(out, open(out_path, "w"))
"""


def main() -> None:
    parser = structure_parser(
        __doc__ or "", "ruler_structure.jsonl", "examples per needle task and length", 20
    )
    parser.add_argument("--n-other", type=int, default=8, help="examples per vt/cwe/fwe cell")
    parser.add_argument("--n-long", type=int, default=10, help="examples per 16K cell")
    args = parser.parse_args()
    check_snapshot(args.ruler)
    commit = snapshot_commit(args.ruler, args.commit)
    speeches = sotu_speeches()[-ESSAY_SPEECHES:]
    essay = " ".join(sentence for _, sentences in speeches for sentence in sentences)
    counts = {"needle": args.n, "other": args.n_other, "long": args.n_long}
    jobs = [(t, n, counts[kind], args.seed) for t, n, kind in JOBS]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "shim").mkdir()
        (folder / "shim" / "sitecustomize.py").write_text(SHIM)
        (folder / "essay.txt").write_text(essay)
        (folder / "jobs.json").write_text(json.dumps(jobs))
        # The snapshot's tiktoken reads o200k_base from lctui's offline cache.
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tiktoken_cache()))
        run_in_snapshot_python(
            args.python,
            GLUE,
            str(args.ruler),
            str(folder / "work"),
            str(folder / "jobs.json"),
            str(folder / "out.json"),
            str(folder / "essay.txt"),
            str(folder / "shim"),
        )
        rows = json.loads((folder / "out.json").read_text())
        if args.keep:
            shutil.copytree(folder / "work" / "out", args.keep, dirs_exist_ok=True)
    notes = (
        f"RULER's own generators (prepare.py's arguments, base template, o200k_base, "
        f"--random_seed {args.seed}); essay haystack: State of the Union prose (the last "
        f"{ESSAY_SPEECHES} addresses, lctui's corpus) instead of Paul Graham's essays; "
        "sentences split by an untrained nltk Punkt tokenizer; depths are token depths of "
        "the asked needles in the context (0..1); partial_units: lines of a filler or needle "
        "haystack that are no whole filler paragraph or needle (vt: part of a filler "
        "paragraph); other_counts: how often cwe's other words occur."
    )
    path = write_fixture("ruler_structure", commit, notes, rows, args.out)
    print(f"{path}: {len(rows)} examples")


if __name__ == "__main__":
    main()
