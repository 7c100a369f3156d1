"""`lctui data list` and `lctui data check` on data folders holding the committed HELMET
fixtures (the originals' file formats), on a hub cache, and with malformed lines.

The real CLI runs in-process (main) reading a temporary folder, or in a fresh process
for the hub cache (huggingface_hub reads HF_HOME at import).
"""

from __future__ import annotations

import json
import random
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from helpers.data_folder import LONGBENCH_ROWS, write_data_folder
from helpers.helmet_data import HELMET_FIXTURES
from helpers.hub_cache import hub_repo, lctui_offline
from helpers.longqa_data import story
from lctui.cli import main
from lctui.core import runtime
from lctui.tasks.catalog import catalog
from lctui.tasks.tokenizers import reference_tokenizer

DATA_SETS = {d.name for d in catalog() if not d.builtin}
NQ_TEST = "kilt/nq-dev-multikilt_1000_k20_dep6.jsonl"
TRIVIA_TEST = "kilt/triviaqa-dev-multikilt_1000_k20_dep6.jsonl"
HELMET_LENGTHS = [4096, 8192, 16384, 32768, 65536, 131072]


@pytest.fixture(autouse=True)
def _offline_hub(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Hub lookups read an empty cache, never the network; HF_HUB_OFFLINE is the user's."""
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hub-cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setattr(runtime, "_APPLIED", set())
    monkeypatch.setenv("COLUMNS", "250")
    yield


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every committed fixture in one data folder (read only by the tests using it)."""
    return write_data_folder(tmp_path_factory.mktemp("data"))


def _json(args: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, object]:
    code = main([*args, "--format", "json"])
    return code, json.loads(capsys.readouterr().out)


def test_list_says_what_a_data_folder_holds_where_and_its_size(
    release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, listed = _json(["data", "list", "--data", str(release)], capsys)
    assert code == 0
    rows = {row["name"]: row for row in listed}  # type: ignore[attr-defined]
    assert list(rows) == [d.name for d in catalog()]
    assert {n for n, r in rows.items() if r["state"] == "present"} == DATA_SETS
    assert {n for n, r in rows.items() if r["state"] == "built in"} == {
        "ruler_synthetic",
        "json_kv",
        "lifbench_corpora",
    }
    nq = rows["kilt_nq"]
    files = sorted(map(str, (release / "kilt").glob("nq-*")))  # the test file and the demos
    assert sorted(nq["files"]) == files and nq["places"] == [str(release)]
    assert nq["size_bytes"] == sum(Path(f).stat().st_size for f in files)
    # Two tasks read TREC's two files: each file is listed and sized once.
    trec = rows["trec"]
    assert trec["tasks"] == ["icl_trec_coarse", "icl_trec_fine"] and len(trec["files"]) == 2
    assert trec["size_bytes"] == sum(Path(f).stat().st_size for f in trec["files"])
    assert rows["kilt_nq"]["licence"] == "CC BY-SA 3.0" and rows["narrativeqa"]["licence"]
    commands = [d["command"] for d in rows["narrativeqa"]["downloads"]]
    assert commands == [
        "hf download deepmind/narrativeqa --repo-type dataset --include 'data/*' "
        f"--local-dir {release}/hub/deepmind/narrativeqa"
    ]


def test_list_marks_a_dataset_partial_when_one_of_its_tasks_lacks_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_data_folder(tmp_path / "data")
    (folder / "hub/xinrongzhang2022/infinitebench/longbook_choice_eng.jsonl").unlink()
    shutil.rmtree(folder / "msmarco")
    code, listed = _json(["data", "list", "--data", str(folder)], capsys)
    rows = {row["name"]: row for row in listed}  # type: ignore[attr-defined]
    infbench = rows["infinitebench"]
    assert code == 0 and infbench["state"] == "partial" and len(infbench["files"]) == 3
    assert list(infbench["missing"]) == ["infbench_mc"]
    assert "longbook_choice_eng.jsonl" in infbench["missing"]["infbench_mc"]
    assert rows["msmarco"]["state"] == "missing" and rows["msmarco"]["files"] == []


def test_list_piped_prints_whole_values_one_dataset_a_line(
    release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "list", "--data", str(release)]) == 0  # stdout is not a terminal
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split("\t") == [
        "dataset",
        "suite",
        "tasks",
        "data",
        "where",
        "size",
        "licence",
        "how to get it",
    ]
    cells = {line.split("\t")[0]: line.split("\t") for line in lines[1:]}
    assert list(cells) == [d.name for d in catalog()]
    assert cells["kilt_nq"][3:5] == ["present", str(release)]
    # The release's command is whole, not cut to a terminal's width.
    assert (
        f"curl -fL -C - --create-dirs -o {release}/data.tar.gz https://huggingface.co/datasets/"
        f"princeton-nlp/HELMET/resolve/main/data.tar.gz && tar -xzf {release}/data.tar.gz "
        f"-C {release}"
    ) in cells["kilt_nq"][7]


def test_list_at_a_terminal_is_a_table_with_each_command_once(
    release: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["data", "list", "--data", str(release), "--format", "table"]) == 0
    out = capsys.readouterr().out
    assert "┃ dataset" in out and "lctui data fetch kilt_nq --data" in out
    # HELMET's release serves seven datasets: its command is printed once, under the table
    # (marked [3]: RULER's two QA files come first).
    assert out.count("tar -xzf") == 1 and "[3] HELMET's data release" in out


def test_list_reads_hub_origin_datasets_from_the_hub_cache(tmp_path: Path) -> None:
    home = tmp_path / "hf"
    clinc = hub_repo(home, "clinc/clinc_oos")
    shutil.copytree(HELMET_FIXTURES / "icl/hub/clinc/clinc_oos", clinc, dirs_exist_ok=True)
    books = hub_repo(home, "xinrongzhang2022/infinitebench")
    for group in ("longqa", "summ"):
        source = HELMET_FIXTURES / group / "hub/xinrongzhang2022/infinitebench"
        shutil.copytree(source, books, dirs_exist_ok=True)
    listed = lctui_offline(["data", "list", "--format", "json"], home)
    assert listed.returncode == 0, listed.stderr
    rows = {row["name"]: row for row in json.loads(listed.stdout)}
    cache = f"hub cache ({home / 'hub'})"
    for name, count in (("clinc150", 2), ("infinitebench", 3)):
        assert rows[name]["state"] == "present" and rows[name]["places"] == [cache]
        assert len(rows[name]["files"]) == count
    # Sized by the files the cache's snapshot links to, once each.
    expected = sum(f.stat().st_size for f in clinc.rglob("*.parquet"))
    assert rows["clinc150"]["size_bytes"] == expected
    # The release's datasets need a folder: without --data they are missing.
    assert rows["kilt_nq"]["state"] == "missing" and rows["banking77"]["state"] == "missing"


def _broken_release(folder: Path) -> tuple[Path, Path]:
    """A data folder with one line of bad JSON (NQ) and one row without a question
    (TriviaQA); returns the two files."""
    write_data_folder(folder)
    nq, trivia = folder / NQ_TEST, folder / TRIVIA_TEST
    with nq.open("a") as handle:
        handle.write('{"question": "cut short", "answers": ["x"]\n')
    row = json.loads(trivia.read_text().splitlines()[0])
    del row["question"]
    with trivia.open("a") as handle:
        handle.write(json.dumps(row) + "\n")
    return nq, trivia


def test_check_reports_malformed_lines_with_file_and_line_and_fails(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nq, trivia = _broken_release(tmp_path / "data")
    nq_line = len(nq.read_text().splitlines())
    trivia_line = len(trivia.read_text().splitlines())
    assert main(["data", "check", str(tmp_path / "data")]) == 1
    out = capsys.readouterr().out
    assert f"malformed: {nq}:{nq_line}: not valid JSON" in out
    assert f"malformed: {trivia}:{trivia_line}: no 'question' text" in out
    assert "2 malformed line(s), 0 unusable task(s)" in out
    rows = {line.split("\t")[1]: line.split("\t") for line in out.splitlines() if "\t" in line}
    assert rows["kilt_nq"][2] == "malformed lines" and rows["kilt_popqa"][2] == "present"


def test_check_says_which_lengths_each_file_fills_and_what_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = write_data_folder(tmp_path / "data")
    # HELMET's k220 file is the one it uses at 32K: present, it is the largest and decides.
    shutil.copy(folder / NQ_TEST, folder / NQ_TEST.replace("_k20_", "_k220_"))
    (folder / "msmarco/test_reranking_data_k10_dep3.jsonl").unlink()
    code, report = _json(["data", "check", str(folder)], capsys)
    assert code == 0 and report["malformed_lines"] == 0  # type: ignore[index]
    tasks = {t["task"]: t for d in report["datasets"] for t in d["tasks"]}  # type: ignore[index]
    nq = tasks["kilt_nq"]
    rows = nq["questions"]
    assert rows > 0 and "k220" in nq["how"] and nq["estimated"] is True
    assert nq["filled"] == {str(n): (rows if n <= 32768 else 0) for n in HELMET_LENGTHS}
    trivia = tasks["kilt_triviaqa"]  # only HELMET's 4K file
    assert trivia["filled"] == {
        str(n): (trivia["questions"] if n == 4096 else 0) for n in HELMET_LENGTHS
    }
    # ALCE: a question fills a length when it has the documents HELMET shows there.
    asqa = json.loads((HELMET_FIXTURES / "alce/asqa_eval_gtr_top2000.json").read_text())
    docs = [len(row["docs"]) for row in asqa]
    needed = dict(zip(HELMET_LENGTHS, (8, 30, 75, 165, 345, 700), strict=True))
    assert tasks["alce_asqa"]["filled"] == {
        str(n): sum(1 for d in docs if d >= needed[n]) for n in HELMET_LENGTHS
    }
    assert tasks["icl_banking77"]["questions"] is None  # any length: demonstrations repeat
    # LongBench v2's fixture contexts are 400 words: shorter than 4K, they stay whole.
    longbench = tasks["longbench_v2"]
    assert longbench["questions"] == LONGBENCH_ROWS and set(longbench["filled"].values()) == {0}
    assert tasks["longbench_v2_no_context"]["questions"] is None
    rerank = tasks["msmarco_rerank"]
    assert rerank["filled"] is None and "test_reranking_data_k10_dep3.jsonl" in rerank["missing"]


@pytest.fixture(scope="module")
def long_books(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[int]]:
    """InfiniteBench's QA file with three stories of about 26K, 84K and 152K o200k tokens,
    and their real token counts."""
    folder = tmp_path_factory.mktemp("books")
    rng = random.Random(7)
    stories = [story(rng, "Bravel", "Kiodun", "mill", n) for n in (1400, 4500, 8200)]
    rows = [
        {"id": i, "context": text, "input": "What did Bravel keep?", "answer": ["the mill"]}
        for i, text in enumerate(stories)
    ]
    path = folder / "hub/xinrongzhang2022/infinitebench/longbook_qa_eng.jsonl"
    path.parent.mkdir(parents=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    o200k = reference_tokenizer("o200k_base")
    return folder, [o200k.count(text) for text in stories]


def test_check_estimates_which_stories_fill_which_length_as_the_real_counts_say(
    long_books: tuple[Path, list[int]], capsys: pytest.CaptureFixture[str]
) -> None:
    folder, counts = long_books
    lengths = [16384, 65536, 131072]
    args = ["data", "check", str(folder), "--lengths", "16k,64k,128k"]
    code, report = _json(args, capsys)
    assert code == 0
    tasks = {t["task"]: t for d in report["datasets"] for t in d["tasks"]}  # type: ignore[index]
    qa = tasks["infbench_qa"]
    bound = 65536  # HELMET leaves stories under 64K tokens out
    asked = [c for c in counts if c >= bound]
    assert qa["questions"] == len(asked) == 2
    assert qa["filled"] == {str(n): sum(1 for c in asked if c >= n) for n in lengths}
    assert qa["estimated"] is True and "characters per o200k_base token" in qa["how"]
    assert "longbook_choice_eng.jsonl" in tasks["infbench_mc"]["missing"]
