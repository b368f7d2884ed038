"""The book's pages in reading order, from _toc.yml: one reading for every test that walks them."""

from __future__ import annotations

from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
TOC = yaml.safe_load((ROOT / "_toc.yml").read_text(encoding="utf-8"))
CHAPTER = [entry["file"] for entry in TOC.get("chapters", [])]  # every page after the first
PAGES = [TOC["root"], *CHAPTER]  # every page, the first included
