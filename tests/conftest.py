"""Shared test setup: an isolated data/cache dir per session so tests never touch ~."""

from __future__ import annotations

import os
import shutil
import signal
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from helpers.helmet_data import HELMET_FIXTURES
from helpers.longbench_data import cached_longbench_release
from helpers.longqa_data import cached_longqa_release
from helpers.ruler_qa_data import RULER_QA_FIXTURES
from lctui.core.runtime import prepare_environment
from lctui.suites.longbench.tasks import LongBenchV2
from lctui.suites.ruler.tasks.qa import RulerQA
from lctui.tasks.datasets import DataSource
from lctui.tasks.helmet.alce import AlceCite
from lctui.tasks.helmet.icl import HelmetIcl
from lctui.tasks.helmet.longqa import LongDocQA
from lctui.tasks.helmet.rag import KiltRag
from lctui.tasks.helmet.rerank import MsmarcoRerank
from lctui.tasks.helmet.summ import SummTask
from lctui.tasks.tokenizers import TiktokenTokenizer, reference_tokenizer

if TYPE_CHECKING:
    from lctui.store import Store

_SESSION_ROOT = Path(os.environ.get("LCTUI_TEST_ROOT", "/tmp/lctui-tests"))
# The model cache is kept between sessions (materialising SmolLM2 takes ~15 s).
os.environ.setdefault("LCTUI_CACHE_DIR", str(_SESSION_ROOT / "cache"))
prepare_environment()
# A test suite started in the background by a shell without job control (`cmd &`, nohup)
# inherits SIGINT (and from nohup SIGHUP) ignored, and so would every process a test
# starts: `lctui run` would never see the Ctrl-C a test sends, nor a shell the hang-up
# of its closed terminal. The tests' processes start with the default dispositions.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
if signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
# Tasks that read real datasets read the invented fixtures (tests/fixtures/helmet, in the
# data release's layout) unless a test binds another source with `with_data`, so the
# tests that cover every task (budget, params, scoring) cover them too.
KiltRag.data = DataSource(folder=HELMET_FIXTURES)
MsmarcoRerank.data = DataSource(folder=HELMET_FIXTURES)
# The summarization fixtures' documents are short (1-4K tokens): no length filter.
SummTask.data = DataSource(folder=HELMET_FIXTURES / "summ")
SummTask.default_min_document_tokens = 0
# Long-document QA leaves out stories under HELMET's bound (131,073 tokens for
# NarrativeQA): its invented stories are written long enough once (8 MB, kept between
# sessions) rather than committed.
LongDocQA.data = DataSource(folder=cached_longqa_release(_SESSION_ROOT, sentences=7600))
AlceCite.data = DataSource(folder=HELMET_FIXTURES)
HelmetIcl.data = DataSource(folder=HELMET_FIXTURES / "icl")
# LongBench v2's invented questions (contexts of 300 to 30,000 words), written once.
LongBenchV2.data = DataSource(folder=cached_longbench_release(_SESSION_ROOT))
# RULER's QA tasks read the invented SQuAD and HotpotQA files (enough for 8K tokens).
RulerQA.data = DataSource(folder=RULER_QA_FIXTURES)


# The fixtures that hold a loaded model for the whole session (a worker's session).
_MODEL_FIXTURES = frozenset({"smollm2", "vllm_test_server"})


@pytest.hookimpl(tryfirst=True)  # before xdist's own hook reads the xdist_group marks
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Under pytest-xdist (`--dist loadgroup`, scripts/test.sh) the tests that load a model
    share one worker: two engines at once would each want both cores and the memory, and
    the session fixtures that hold a model are then loaded once, not once per worker."""
    for item in items:
        if item.get_closest_marker("model") or _MODEL_FIXTURES & set(
            getattr(item, "fixturenames", ())
        ):
            item.add_marker(pytest.mark.xdist_group("model"))


@pytest.fixture(autouse=True)
def _isolated_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LCTUI_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LCTUI_DB", raising=False)


@pytest.fixture(scope="module")
def o200k() -> TiktokenTokenizer:
    """The o200k_base reference tokenizer the task generators count tokens with."""
    return reference_tokenizer("o200k_base")


@pytest.fixture(scope="session")
def _published_lifbench_template(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published LIFBench scores (20 models) imported once per session."""
    from helpers.lifbench_data import published_folder
    from lctui.store import open_store
    from lctui.suites.lifbench.importer import import_lifbench_scores

    db = tmp_path_factory.mktemp("published-lifbench") / "template.duckdb"
    with open_store(db) as store:
        import_lifbench_scores(store, published_folder())
    return db


@pytest.fixture(scope="module")
def published_db(
    _published_lifbench_template: Path, tmp_path_factory: pytest.TempPathFactory
) -> Path:
    """A module's own copy of the imported published scores (tests may write to it)."""
    db = tmp_path_factory.mktemp("published") / "published.duckdb"
    shutil.copy(_published_lifbench_template, db)
    return db


@pytest.fixture(scope="module")
def two_gold_runs_db(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, str]:
    """Two runs of gold on the same 8 examples (the second at another temperature, so a
    new generation key) and the ids of both runs (the A/B tests of analysis and the TUI)."""
    from helpers.gold_runs import two_gold_runs

    return two_gold_runs(tmp_path_factory.mktemp("compare"), 8)


@pytest.fixture(scope="module")
def published_scores() -> Path:
    """The folder of published LIFBench score files (shared/data, read in place)."""
    from helpers.lifbench_data import published_folder

    return published_folder()


@pytest.fixture(scope="module")
def published_store(published_db: Path) -> Iterator[Store]:
    """The module's copy of the published scores, open read-write."""
    from lctui.store import open_store

    with open_store(published_db) as opened:
        yield opened
