"""The blocks page: its table reads as titles and names, and the stream under sandwich norms grows as sqrt(1 + L)."""

from __future__ import annotations

import re

from rmsnorm_course.pages import check, modern_blocks


def test_the_placements_table_links_titles_and_model_names_not_raw_keys():
    table = modern_blocks.placements_table().data
    texts = re.findall(r"\[([^\]]+)\]\(", table)
    assert texts and not [text for text in texts if re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)+", text)]
    assert "[RMSNorm inside the model](in-the-model.md)" in table
    rows = table.splitlines()[2:]
    assert all(not row.rstrip(" |").endswith(("modern-blocks", "modern-gains", "in-the-model")) for row in rows)


def test_the_sandwich_growth_is_the_square_root():
    assert check("sandwich-growth", "it grows as the square root of the depth").correct
    verdict = check("sandwich-growth", "it grows in proportion to the depth")  # lengths added, not squares
    assert verdict.outcome.value == "wrong" and "in their squares" in verdict.message
