"""What the inspector adds for a LongBench v2 question: its domain, difficulty and
length bucket for the header, and the sentence its option was read from (marked in
the output). Read from the metadata the tasks write (tasks/task.py)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from lctui.suites.longbench.analysis import DOMAIN_HEADINGS
from lctui.suites.longbench.scoring import choice_span


def example_facts(meta: Mapping[str, Any], short: bool = False) -> str:
    """The question's domain, difficulty and length bucket, those it records; `short`:
    the domain's short name (the tables' headings), for a narrow header; else its
    sub-domain too."""
    domain, sub = meta.get("domain"), meta.get("sub_domain")
    if isinstance(domain, str) and short:
        domain = DOMAIN_HEADINGS.get(domain, domain)
    elif domain and sub:
        domain = f"{domain} ({sub})"
    return ", ".join(
        str(v) for v in (domain, meta.get("difficulty"), meta.get("length_bucket")) if v
    )


def answer_span(output: str) -> tuple[int, int] | None:
    """The offsets of the answer sentence the option is read from (None: none named)."""
    found = choice_span(output)
    return None if found is None else (found.start, found.end)
