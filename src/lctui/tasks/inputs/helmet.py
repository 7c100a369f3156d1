"""The `helmet` kind: HELMET's released data files, made into HELMET's own prompts with the
templates of the user's checkout, sent as HELMET's eval.py sends them.

HELMET builds its prompts in code, so this kind reads three things at run time: the
data files (the release's `data/` folder, or a checkout holding it), the checkout's
configs (configs/*.yaml: which dataset runs on which file at which length, with which
answer budget, `use_chat_template`, shots and sample size; helmet_configs.py) and the
checkout's data.py (the templates of each loader, read with `ast`; helmet_templates.py).
Each config entry whose test file is present is one input file at the entry's
`input_max_length`; its rows are HELMET's test items (helmet_items.py: JSON KV, RAG,
re-ranking; helmet_alce.py: ALCE with the checkout's prompts file; helmet_longdocs.py:
InfiniteBench QA, multiple choice and summaries, which HELMET loads from the hub and
counts and cuts with Llama-2's tokenizer; helmet_icl.py: the ICL datasets of the hub),
formatted with the loader's templates and
cut as the model class cuts them (helmet_cut.py).

How a prompt is sent follows HELMET's model classes (`client`):

- `local` (HFModel, VLLMModel; HELMET's way for open models): with use_chat_template
  false, the prompt template (user template, joiner, answer prefix) as a completion;
  with true, the user template as one chat user message.
- `serving` (TgiVllmModel, `--use_tgi_or_vllm_serving`) and `openai` (OpenAIModel): the
  user template as one chat user message, whatever use_chat_template says.

eval.py puts the answer prefix in front of every output made with use_chat_template
false before scoring it; the examples say so (core.types.OUTPUT_PREFIX), and lctui's
HELMET scorers do the same. Decoding is greedy (HELMET's do_sample false); no stop
sequence (HELMET's configs write `stop_new_line`, an argument its parser does not have).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from lctui.core.errors import UserInputError
from lctui.core.types import (
    COMPLETION,
    OUTPUT_PREFIX,
    PARSE_PREFIX,
    ROW_KEY,
    USER_MESSAGE,
    JSONValue,
    ParamSpec,
)
from lctui.tasks.datasets import JsonLines, read_records
from lctui.tasks.inputs.base import InputFile, InputKind, InputRow, RowProblem
from lctui.tasks.inputs.helmet_alce import DOC_PARTS, alce_items, read_alce_prompts
from lctui.tasks.inputs.helmet_configs import ConfigEntry, read_configs, resolve_release
from lctui.tasks.inputs.helmet_cut import CLIENTS, LOCAL, NO_TOKENIZER, Fitted, HelmetCutter
from lctui.tasks.inputs.helmet_icl import IclFiles, icl_files, icl_items
from lctui.tasks.inputs.helmet_items import (
    HelmetItem,
    ItemProblem,
    Sampling,
    family_of,
    json_kv_items,
    passage_spans,
    qa_items,
    rerank_items,
)
from lctui.tasks.inputs.helmet_longdocs import (
    INFBENCH_REPO,
    LLAMA_TOKENIZER,
    infbench_file,
    infbench_items,
    long_cut,
)
from lctui.tasks.inputs.helmet_templates import (
    DATA_MODULE,
    LoaderTemplates,
    data_digest,
    default_parse_prefix,
    loader_templates,
)

CHECKOUT = ParamSpec(
    "helmet",
    "",
    "the user's checkout of princeton-nlp/HELMET, whose configs and data.py templates make "
    "the prompts (read, never run); default: the inputs' path when it is one",
)
CONFIGS = ParamSpec(
    "configs",
    "",
    "the checkout's configs to run, comma-separated (rag_short.yaml,rerank.yaml); "
    "default: every configs/*.yaml",
)
CLIENT = ParamSpec(
    "client",
    LOCAL,
    "HELMET's model class: local (HFModel, VLLMModel: use_chat_template false sends a "
    "completion with the answer prefix, true one chat user message), serving "
    "(TgiVllmModel, --use_tgi_or_vllm_serving) or openai (OpenAIModel): one chat user "
    "message always",
    kind="choice",
    choices=CLIENTS,
)
USE_CHAT_TEMPLATE = ParamSpec(
    "use_chat_template",
    "config",
    "HELMET's --use_chat_template: config (each config's), true or false",
)
TOKENIZER = ParamSpec(
    "tokenizer",
    "",
    "the model's tokenizer HELMET cuts prompts over input_max_length with (a Hugging Face "
    "folder or cached hub id; o200k_base or cl100k_base for client=openai), or none to "
    "send every prompt uncut",
)
MAX_TEST_SAMPLES = ParamSpec(
    "max_test_samples",
    0,
    "HELMET's --max_test_samples; 0: each config's",
    kind="int",
    low=0,
    high=10_000_000,
)
SEED = ParamSpec("seed", 42, "HELMET's --seed", kind="int", low=0, high=2**32 - 1)
LLAMA = ParamSpec(
    "llama_tokenizer",
    LLAMA_TOKENIZER,
    "the tokenizer HELMET counts and cuts InfiniteBench's books with before its prompt is "
    "made (truncate_llama2, filter_length): Llama-2's, a Hugging Face folder or cached hub id",
)
# lctui's task order within a length.
TASK_ORDER = (
    "json_kv",
    "kilt_nq",
    "kilt_triviaqa",
    "kilt_hotpotqa",
    "kilt_popqa",
    "msmarco_rerank",
    "alce_asqa",
    "alce_qampari",
    "infbench_qa",
    "infbench_mc",
    "infbench_sum",
    "icl_trec_coarse",
    "icl_trec_fine",
    "icl_banking77",
    "icl_clinc150",
    "icl_nlu",
)


@dataclass(frozen=True)
class HelmetFile(InputFile):
    """A test file as one config entry runs it."""

    entry: ConfigEntry | None = None
    demo: Path | None = None
    checkout: Path | None = None


@dataclass(frozen=True)
class _Settings:
    checkout: Path
    configs: list[str]
    client: str
    use_chat_template: bool | None  # None: each config's
    tokenizer: str
    max_test_samples: int | None  # None: each config's
    seed: int


def _settings(path: Path, options: Mapping[str, Any]) -> _Settings:
    given = str(options[CHECKOUT.name] or "")
    checkout = Path(given).expanduser() if given else path
    if not (checkout / DATA_MODULE).is_file():
        raise UserInputError(
            f"{checkout} is no checkout of HELMET (no {DATA_MODULE}): pass the checkout with "
            "--input-option helmet=PATH (its templates make the prompts; lctui holds none)"
        )
    flag = options[USE_CHAT_TEMPLATE.name]
    if flag not in ("config", True, False):
        raise UserInputError(
            f"--input-option use_chat_template={flag}: write config, true or false"
        )
    tokenizer = str(options[TOKENIZER.name] or "")
    if not tokenizer:
        raise UserInputError(
            "helmet inputs are cut to input_max_length as HELMET cuts them, with the model's "
            "tokenizer: pass --input-option tokenizer=PATH_OR_HUB_ID (o200k_base for "
            "client=openai), or tokenizer=none to send every prompt uncut"
        )
    names = [n.strip() for n in str(options[CONFIGS.name] or "").split(",") if n.strip()]
    samples = int(options[MAX_TEST_SAMPLES.name])
    return _Settings(
        checkout=checkout.resolve(),
        configs=names,
        client=str(options[CLIENT.name]),
        use_chat_template=None if flag == "config" else bool(flag),
        tokenizer=tokenizer,
        max_test_samples=samples or None,
        seed=int(options[SEED.name]),
    )


class HelmetKind(InputKind):
    name = "helmet"
    suite = "helmet"
    title = "HELMET's released data as its eval.py prompts it (templates of your checkout)"
    files = (
        "HELMET's data release as its configs name it (json_kv/test_k*.jsonl, "
        "kilt/*_k*_dep*.jsonl, msmarco/test_reranking_data_k*_dep3.jsonl, "
        "alce/*_eval_gtr_top2000.json; InfiniteBench's and the ICL datasets' files from the "
        "hub cache or PATH/hub/ORG/NAME/): give the checkout, its data/ "
        "folder or one file; the configs, data.py and prompts/ of the checkout (`helmet` "
        "option) make the prompts"
    )
    origin = (
        "a checkout of princeton-nlp/HELMET and its data (scripts/download_data.sh: "
        "data.tar.gz from the princeton-nlp/HELMET dataset)"
    )
    length_hint = "HELMET's configs name it: each dataset's input_max_length"
    framings = ()  # each file's, from `client` and its config's use_chat_template
    option_specs = (
        CHECKOUT,
        CONFIGS,
        CLIENT,
        USE_CHAT_TEMPLATE,
        TOKENIZER,
        MAX_TEST_SAMPLES,
        SEED,
        LLAMA,
    )

    def framing_of(self, file: InputFile, options: Mapping[str, Any]) -> str:
        assert isinstance(file, HelmetFile) and file.entry is not None
        return (
            COMPLETION
            if not _chat(file.entry, options) and options[CLIENT.name] == LOCAL
            else USER_MESSAGE
        )

    def locate(self, path: Path, options: Mapping[str, Any]) -> tuple[list[InputFile], list[str]]:
        settings = _settings(path, options)
        entries, problems = read_configs(settings.checkout, settings.configs)
        found: dict[tuple[str, str, int], HelmetFile] = {}
        skipped: dict[str, list[str]] = {}
        for entry in entries:
            family = family_of(entry.dataset)
            if family is None:
                skipped.setdefault(entry.config, []).append(entry.dataset)
                continue
            test = resolve_release(path, entry.test_file)
            icl_train = None
            if family.loader == "load_icl":
                # HELMET loads its ICL datasets from the hub, whatever the config says.
                icl = icl_files(path, entry.dataset)
                if isinstance(icl, str):
                    problems.append(f"{entry.config}: {entry.dataset} not run: no {icl}")
                    continue
                test, icl_train = (path, icl.test or icl.train), icl.train
            if family.loader == "load_infbench":
                # HELMET loads InfiniteBench from the hub, whatever the config's test file.
                hub = infbench_file(path, entry.dataset)
                test = (path, hub) if hub is not None else None
                if hub is None:
                    problems.append(
                        f"{entry.config}: {entry.dataset} not run: {INFBENCH_REPO}'s file is "
                        f"neither under {path}/hub/ nor in the hub cache"
                    )
            if test is None:
                continue
            if isinstance(test, str):
                problems.append(test)
                continue
            root, test_path = test
            demo = resolve_release(root, entry.demo_file) if entry.demo_file else None
            if icl_train is not None:
                demo = (root, icl_train)  # the train split, the demonstrations' pool
            elif demo is None and entry.demo_file:
                # ALCE's demo file is a prompts file of the checkout, not of the release.
                demo = resolve_release(settings.checkout, entry.demo_file)
            if isinstance(demo, str):
                problems.append(demo)
                continue
            if demo is None and family.loader == "load_alce":
                problems.append(
                    f"{entry.config}: {entry.dataset}'s prompts file {entry.demo_file} is not in "
                    f"{settings.checkout}; not run"
                )
                continue
            key = (entry.dataset, str(test_path), entry.input_max_length)
            file = HelmetFile(
                test_path,
                family.task,
                entry.input_max_length,
                entry=entry,
                demo=demo[1] if demo else None,
                checkout=settings.checkout,
            )
            first = found.get(key)
            if first is None:
                found[key] = file
            elif _differs(first, file):
                problems.append(
                    f"{entry.config}: {entry.dataset} on {test_path} at {entry.input_max_length} "
                    f"runs as in {first.entry.config if first.entry else '?'} (read first); its "
                    "other settings here are not run"
                )
        for config, names in skipped.items():
            problems.append(
                f"{config}: {', '.join(dict.fromkeys(names))} not run (the helmet kind makes "
                "JSON KV, RAG, re-ranking, ALCE, InfiniteBench and ICL prompts)"
            )
        if not found:
            raise UserInputError(
                f"{path} holds none of the test files of {settings.checkout}'s configs that the "
                "helmet kind runs (json_kv/, kilt/, msmarco/, alce/ of HELMET's data release)"
                + (f"; {problems[0]}" if problems else "")
            )
        files: list[InputFile] = sorted(
            found.values(),
            key=lambda f: (f.length or 0, TASK_ORDER.index(f.task), str(f.path)),
        )
        return files, problems

    def rows(self, file: InputFile, options: Mapping[str, Any]) -> Iterator[InputRow | RowProblem]:
        assert isinstance(file, HelmetFile) and file.entry is not None and file.checkout
        entry = file.entry
        settings = _settings(file.checkout, {**options, CHECKOUT.name: str(file.checkout)})
        family = family_of(entry.dataset)
        assert family is not None
        templates = loader_templates(file.checkout, family.loader, entry.dataset)
        prompt = _Prompt.of(templates, file.checkout)
        chat = _chat(entry, options)
        completion = self.framing_of(file, options) == COMPLETION
        cutter = _cutter(settings.tokenizer, settings.client)
        sampling = Sampling(
            entry.dataset,
            entry.shots,
            settings.max_test_samples or entry.max_test_samples,
            settings.seed,
        )
        test = read_records(file.path)
        prompts = None
        if family.loader == "load_alce":
            assert file.demo is not None
            read = read_alce_prompts(file.demo)
            if isinstance(read, str):
                yield RowProblem(1, read)
                return
            prompts, demo = read, None
        else:
            demo = read_records(file.demo) if file.demo is not None else None
        for problem in (*test.problems, *(demo.problems if demo else ())):
            yield RowProblem(problem.line, f"{problem.reason} ({Path(problem.path).name})")
        where = {
            "dataset": entry.dataset,
            "config": entry.config,
            "input_max_length": entry.input_max_length,
            "use_chat_template": chat,
            "client": settings.client,
            "shots": entry.shots,
            "seed": settings.seed,
            "data_py_sha256": data_digest(file.checkout),
        }
        if prompts is not None:
            items = alce_items(test, prompts, sampling)
        elif family.loader == "load_icl":
            assert file.demo is not None
            test_file = None if file.path == file.demo else file.path
            item_template = templates.text("item_template")
            items = icl_items(IclFiles(file.demo, test_file), item_template, sampling)
        elif family.loader == "load_infbench":
            cut = long_cut(file.checkout, family.loader, str(options[LLAMA.name]))
            items = infbench_items(test, templates, sampling, cut)
        else:
            items = _items(family.loader, test, demo, templates, sampling)
        for item in items:
            if isinstance(item, ItemProblem):
                yield RowProblem(item.line, item.why)
                continue
            try:
                yield _row(file.task, entry, item, prompt, chat, completion, cutter, where)
            except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
                yield RowProblem(item.line, f"HELMET's prompt cannot be made ({err})")


def _chat(entry: ConfigEntry, options: Mapping[str, Any]) -> bool:
    flag = options[USE_CHAT_TEMPLATE.name]
    return entry.use_chat_template if flag == "config" else bool(flag)


def _differs(first: HelmetFile, other: HelmetFile) -> bool:
    a, b = first.entry, other.entry
    assert a is not None and b is not None
    return dataclasses.replace(a, config="") != dataclasses.replace(b, config="")


@cache
def _cutter(tokenizer: str, client: str) -> HelmetCutter | None:
    return None if tokenizer == NO_TOKENIZER else HelmetCutter(tokenizer, client)


@dataclass(frozen=True)
class _Prompt:
    user: str
    system: str
    joiner: str
    parse_prefix: str

    @classmethod
    def of(cls, templates: LoaderTemplates, checkout: Path) -> _Prompt:
        prefixes = templates.parse_prefixes
        return cls(
            templates.text("user_template"),
            templates.text("system_template"),
            templates.prompt_joiner(),
            prefixes[0] if prefixes else default_parse_prefix(checkout),
        )


def _items(
    loader: str,
    test: JsonLines,
    demo: JsonLines | None,
    templates: LoaderTemplates,
    sampling: Sampling,
) -> list[HelmetItem | ItemProblem]:
    if loader == "load_json_kv":
        return json_kv_items(test, templates, sampling)
    if loader == "load_qa":
        return qa_items(test, demo, templates, sampling)
    return rerank_items(test, demo, templates, sampling)


def _row(
    task: str,
    entry: ConfigEntry,
    item: HelmetItem,
    prompt: _Prompt,
    chat: bool,
    completion: bool,
    cutter: HelmetCutter | None,
    where: dict[str, JSONValue],
) -> InputRow:
    whole = prompt.user + prompt.joiner + prompt.system
    fitted = Fitted(item.fields, 0, 0)
    if cutter is not None:
        fitted = cutter.fit(
            item.fields,
            lambda f: prompt.user.format(**f),
            (lambda f: whole.format(**f)) if completion else None,
            entry.input_max_length,
            entry.generation_max_length,
        )
    fields = fitted.fields
    text = prompt.user.format(**fields)
    system = prompt.system.format(**fields)
    spans = passage_spans(prompt.user, fields, item.passages)
    metadata = dict(item.metadata)
    parts = metadata.pop(DOC_PARTS, None)
    if isinstance(parts, list):
        # The documents shown whole, as offsets in the text, for `lctui cite-score`.
        metadata["documents"] = [
            [span.start + offset for offset in part]
            for span, part in zip(spans, parts, strict=False)
            if isinstance(part, list) and all(isinstance(o, int) for o in part)
        ]
    return InputRow(
        line=item.line,
        task=task,
        text=text,
        answer_prefix=prompt.joiner + system if completion else "",
        gold=item.gold,
        max_new_tokens=entry.generation_max_length,
        prompt_tokens=max(0, fitted.tokens - fitted.cut_tokens),
        metadata={
            **metadata,
            # eval.py: without chat template the answer prefix goes before the output.
            OUTPUT_PREFIX: "" if chat else system,
            PARSE_PREFIX: prompt.parse_prefix,
            # eval.py runs and scores every row, also two its cut makes the same prompt.
            ROW_KEY: item.line,
            "helmet": {**where, "tokens": fitted.tokens, "cut_tokens": fitted.cut_tokens},
        },
        spans=spans,
        temperature=0.0,  # HELMET's do_sample false: greedy
    )
