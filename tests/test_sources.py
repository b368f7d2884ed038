"""Every sentence that says what a named model, library or paper does links a registered source."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from rmsnorm_course.studies import sources

BOOK = Path(__file__).resolve().parent.parent / "book"
PAGES = sorted(BOOK.glob("*.md"))
# Names of models, libraries and papers whose behaviour a sentence may claim.
NAMED = (
    "LLaMA", "Llama", "Gemma", "OLMo", "Qwen", "GPT-2", "GPT-3", "ViT", "PyTorch", "vLLM", "torchtitan",
    "nanoGPT", "CogView", "Zhang and Sennrich", "Vaswani", "Xiong", "Ioffe", "Ba et al", "Henry et al",
    "Dehghani", "Loshchilov", "Dettmers", "Touvron", "SmolLM2",
)  # fmt: skip
LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def prose(text: str) -> str:
    """A page's prose: no code cells, literal blocks, directive options or front matter."""
    text = re.sub(r"\A---\n.*?\n---\n", "", text, flags=re.S)
    text = re.sub(r"```\{code-cell\}.*?```", " ", text, flags=re.S)
    text = re.sub(r"```(python|text)?\n.*?```", " ", text, flags=re.S)
    text = re.sub(r"```\{code-block\}.*?```", " ", text, flags=re.S)
    return re.sub(r"^#+ .*$", " ", text, flags=re.M)  # a heading names a subject; it claims nothing


def sentences(text: str) -> list[str]:
    """Sentences, roughly: paragraphs joined, split after a full stop that ends a sentence."""
    paragraphs = [" ".join(block.split()) for block in re.split(r"\n\s*\n", prose(text))]
    found = []
    for paragraph in paragraphs:
        found += re.split(r"(?<=[.!?])\s+(?=[A-Z\[(*])", paragraph)
    return [s for s in found if s]


def naming(sentence: str) -> list[str]:
    words = LINK.sub(lambda m: m.group(0).split("](")[0], sentence)  # a link's address names nothing
    return [name for name in NAMED if name in words]


def unsourced(text: str) -> list[str]:
    return [
        s for s in sentences(text) if naming(s) and not any(address in sources.BY_URL for address in LINK.findall(s))
    ]


@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_every_sentence_naming_a_model_library_or_paper_links_its_source(page):
    assert unsourced(page.read_text(encoding="utf-8")) == []


def test_a_sentence_whose_source_entry_is_removed_fails(monkeypatch):
    """The check can fail: take LLaMA's entry away, and the sentence that links it is unsourced."""
    text = (BOOK / "modern-gains.md").read_text(encoding="utf-8")
    assert unsourced(text) == []
    monkeypatch.delitem(sources.BY_URL, sources.url("llama-rmsnorm"))
    assert any("LLaMA" in s for s in unsourced(text))


def test_every_source_is_linked_by_some_page():
    linked = {address for page in PAGES for address in LINK.findall(page.read_text(encoding="utf-8"))}
    placements = {sources.url(key) for p in __import__("rmsnorm_course.pages.modern_blocks", fromlist=["x"]).PLACEMENTS
                  for key in p.sources}  # fmt: skip
    assert set(sources.BY_URL) - linked - placements == set()


def test_every_placement_row_names_registered_sources():
    from rmsnorm_course.pages.modern_blocks import PLACEMENTS

    for placement in PLACEMENTS:
        assert placement.sources and all(key in sources.SOURCES for key in placement.sources), placement.name
