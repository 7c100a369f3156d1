"""Regenerate tests/parity/ruler_qa_structure.jsonl: the structure of the examples RULER's own
qa.py builds from lctui's invented SQuAD and HotpotQA fixtures, and RULER's own
string_match_part on outputs we write for them.

Runs the snapshot's scripts/data/synthetic/qa.py as its prepare.py would (qa_1:
`--dataset squad`, qa_2: `--dataset hotpotqa`; the `base` model template plus the qa
template and answer prefix; 32 tokens to generate; --random_seed 42), reading the files
of tests/fixtures/ruler_qa as its json/squad.json and json/hotpotqa.json, counting with
tiktoken o200k_base (`--tokenizer_type openai`, read offline from lctui's cache). For
every example it records structure, not text: the question asked (its key in the
fixture), the answers, the answer prefix, the number of documents, the numbers of the
question's own documents (and a hash of each one's text), how many of its article's
other paragraphs are listed, whether any document repeats, and the tokens used. For
outputs we write from each example's answers it records RULER's postprocess_pred +
string_match_part (scripts/eval/evaluate.py, scripts/eval/synthetic/constants.py).

    PYTHONPATH=src python scripts/parity/ruler_qa_structure.py --ruler PATH/TO/RULER \
        --python PATH/TO/venv/bin/python [--commit HASH] [--n 8]

The snapshot's Python needs qa.py's imports (tiktoken, numpy, tqdm, tenacity).
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from pathlib import Path

from ruler_common import (
    ROOT,
    check_snapshot,
    run_in_snapshot_python,
    snapshot_commit,
    structure_parser,
    tiktoken_cache,
    write_fixture,
)

FIXTURES = ROOT / "tests" / "fixtures" / "ruler_qa"
LENGTHS = (2048, 4096, 8192)
TASKS = {"qa_1": ("squad", "squad.json"), "qa_2": ("hotpotqa", "hotpotqa.json")}

# Our glue, run in the snapshot's Python. It runs the original's qa.py as prepare.py
# would, reads its output file and finds the parts of each example with the template
# read from the snapshot at run time; the question's own documents come from our own
# reading of the fixture files (the same rule as RULER's readers, written here).
GLUE = r"""
import ast, hashlib, importlib.util, json, re, shutil, subprocess, sys
from pathlib import Path

ruler, work, jobs_path, out_path, squad_path, hotpot_path = map(Path, sys.argv[1:7])
scripts = work / "scripts"
shutil.copytree(ruler / "scripts", scripts)
folder = scripts / "data" / "synthetic" / "json"
folder.mkdir(parents=True, exist_ok=True)
shutil.copy(squad_path, folder / "squad.json")
shutil.copy(hotpot_path, folder / "hotpotqa.json")

def load(name, path):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module

TASKS = load("ruler_constants", scripts / "data" / "synthetic" / "constants.py").TASKS
TEMPLATES = load("ruler_template", scripts / "data" / "template.py").Templates
METRICS = load("ruler_eval_constants", scripts / "eval" / "synthetic" / "constants.py").TASKS
source = scripts / "eval" / "evaluate.py"
node = next(n for n in ast.parse(source.read_text()).body
            if isinstance(n, ast.FunctionDef) and n.name == "postprocess_pred")
namespace = {"re": re}
exec(compile(ast.Module(body=[node], type_ignores=[]), str(source), "exec"), namespace)
postprocess_pred = namespace["postprocess_pred"]
import yaml
CONFIGS = yaml.safe_load((scripts / "synthetic.yaml").read_text())
sha = lambda text: hashlib.sha1(text.encode("utf-8")).hexdigest()

def squad_questions():
    data = json.load(open(squad_path))["data"]
    out = []
    for article in data:
        paragraphs = [p["context"] for p in article["paragraphs"]]
        for p in article["paragraphs"]:
            for qa in p["qas"]:
                if not qa["is_impossible"]:
                    out.append({"key": qa["id"], "question": qa["question"],
                                "answers": [a["text"] for a in qa["answers"]],
                                "own": [p["context"]],
                                "related": [c for c in paragraphs if c != p["context"]]})
    return out

def hotpot_questions():
    return [{"key": row["_id"], "question": row["question"], "answers": [row["answer"]],
             "own": [f"{t}\n{''.join(s)}" for t, s in row["context"]], "related": []}
            for row in json.load(open(hotpot_path))]

QUESTIONS = {"squad": squad_questions(), "hotpotqa": hotpot_questions()}

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
               "--num_samples", str(n), "--random_seed", str(seed), "--pre_samples", "0"]
    for key, value in config["args"].items():
        command += [f"--{key}", str(value)]
    command += ["--template", template]
    done = subprocess.run(command, capture_output=True, text=True, cwd=scripts / "data")
    if done.returncode != 0:
        raise SystemExit(f"{task} at {length}: {done.stderr[-3000:]}")
    rows = [json.loads(line) for line in open(save / f"{task}_{length}" / "validation.jsonl")]
    return config, rows

def outputs(answers, other):
    cases = [("first_answer", answers[0]), ("last_answer", answers[-1]),
             ("upper", answers[0].upper()), ("in_prose", f"I think it is {answers[-1]}, yes."),
             ("other_question", other), ("empty", ""), ("controls", f"\x00{answers[0]}\x1f"),
             ("first_word", answers[0].split()[0]), ("near_miss", answers[0][:-1])]
    metric = METRICS["qa"]["metric_fn"]
    scored = []
    for case, output in cases:
        pred = postprocess_pred(output, {})
        scored.append({"case": case, "output": output, "null": len(pred) == 0,
                       "score_x100": metric([pred], [answers])})
    return scored

out = []
for task, dataset, length, n, seed in json.loads(jobs_path.read_text()):
    config, rows = run(task, length, n, seed)
    head, tail = config["template"].split("{context}")
    asking = tail.split("{query}")[0]
    for sample, row in enumerate(rows):
        text = row["input"]
        assert text.startswith(head)
        end = text.rindex(asking)
        context, query = text[len(head):end], text[end + len(asking):]
        numbers = [int(m) for m in re.findall(r"(?:^|\n\n)Document (\d+):\n", context)]
        docs = re.split(r"(?:^|\n\n)Document \d+:\n", context)[1:]
        assert numbers == list(range(1, len(docs) + 1)), numbers[:5]
        matches = [q for q in QUESTIONS[dataset]
                   if q["question"] == query and q["answers"] == row["outputs"]]
        assert len(matches) == 1, (query, len(matches))
        asked = matches[0]
        own = [docs.index(d) + 1 for d in asked["own"]]
        other = rows[(sample + 1) % len(rows)]["outputs"][0]
        out.append({
            "task": task, "length": length, "sample": sample, "seed": seed,
            "question_key": asked["key"], "answers": row["outputs"],
            "answer_prefix": row["answer_prefix"],
            "budget_tokens": row["length"], "max_new_tokens": config["tokens_to_generate"],
            "num_documents": len(docs),
            "question_documents": own,
            "question_document_sha1": [sha(d) for d in asked["own"]],
            "related_listed": sum(d in docs for d in set(asked["related"])),
            "related_total": len(set(asked["related"])),
            "repeated_documents": len(docs) - len(set(docs)),
            "outputs": outputs(row["outputs"], other),
        })
    print(f"{task} at {length}: {len(rows)} examples", file=sys.stderr)
json.dump(out, open(out_path, "w"))
"""


def main() -> None:
    parser = structure_parser(
        __doc__ or "", "ruler_qa_structure.jsonl", "examples per task and length", 8
    )
    args = parser.parse_args()
    check_snapshot(args.ruler)
    commit = snapshot_commit(args.ruler, args.commit)
    jobs = [
        (task, dataset, length, args.n, args.seed)
        for task, (dataset, _) in TASKS.items()
        for length in LENGTHS
    ]
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        (folder / "jobs.json").write_text(json.dumps(jobs))
        os.environ.setdefault("TIKTOKEN_CACHE_DIR", str(tiktoken_cache()))
        run_in_snapshot_python(
            args.python,
            GLUE,
            str(args.ruler),
            str(folder / "work"),
            str(folder / "jobs.json"),
            str(folder / "out.json"),
            str(FIXTURES / TASKS["qa_1"][1]),
            str(FIXTURES / TASKS["qa_2"][1]),
        )
        rows = json.loads((folder / "out.json").read_text())
        if args.keep:
            shutil.copytree(folder / "work" / "out", args.keep, dirs_exist_ok=True)
    files = {
        name: hashlib.sha1((FIXTURES / name).read_bytes()).hexdigest() for _, name in TASKS.values()
    }
    notes = (
        "RULER's own qa.py (prepare.py's arguments, base template, o200k_base, "
        f"--random_seed {args.seed}) on lctui's invented fixtures tests/fixtures/ruler_qa "
        "(the files row holds their sha1); document numbers are 1-based as the prompt shows "
        "them; outputs are ours, scored by RULER's postprocess_pred + string_match_part."
    )
    path = write_fixture("ruler_qa_structure", commit, notes, [{"files": files}, *rows], args.out)
    print(f"{path}: {len(rows)} examples")


if __name__ == "__main__":
    main()
