"""The README a newcomer reads and the user guide under docs/: short, linked both ways,
no link that leads nowhere, and every `src/lctui/...` path they name exists."""

from __future__ import annotations

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
GUIDE = sorted((ROOT / "docs").glob("*.md"))
README_LINES = 200  # the "at most about 200 lines"

_LINK = re.compile(r"\]\(([^)\s]+)\)")
_SRC_PATH = re.compile(r"src/lctui/[\w./-]*\w")


def _links(path: Path) -> list[str]:
    return [t for t in _LINK.findall(path.read_text(encoding="utf-8")) if "://" not in t]


def test_the_readme_stays_short() -> None:
    lines = README.read_text(encoding="utf-8").count("\n")
    assert lines <= README_LINES, f"README.md has {lines} lines: move detail to docs/"


def test_every_local_link_leads_to_a_file() -> None:
    broken = []
    for page in [README, *GUIDE]:
        for target in _links(page):
            path = target.split("#", 1)[0]
            if path and not (page.parent / path).exists():
                broken.append(f"{page.relative_to(ROOT)}: {target}")
    assert broken == []


def test_the_readme_links_every_guide_page_and_each_links_back() -> None:
    linked = {(ROOT / t.split("#", 1)[0]).resolve() for t in _links(README)}
    assert {p.resolve() for p in GUIDE} <= linked
    for page in GUIDE:
        if page.name != "ARCHITECTURE.md":
            assert "../README.md" in _links(page), page.name


def test_source_paths_named_in_the_guide_exist() -> None:
    missing = []
    for page in [README, *GUIDE]:
        for path in _SRC_PATH.findall(page.read_text(encoding="utf-8")):
            matches = list(ROOT.glob(path)) if "*" in path else [ROOT / path]
            if not any(m.exists() for m in matches):
                missing.append(f"{page.relative_to(ROOT)}: {path}")
    assert missing == []
