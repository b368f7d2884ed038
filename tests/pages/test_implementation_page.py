"""The implementation page: what is in sight above its boxes does not hand over their answers."""

from __future__ import annotations

from rmsnorm_course.pages import check, implementation


def test_the_formats_table_gives_bits_and_range_but_not_the_whole_numbers_each_format_holds():
    table = implementation.float_formats_table().data
    assert "24" in table and "65504" in table  # float32's significant bits; float16's largest value
    assert "2**24" not in table and "2**53" not in table and "whole number" not in table


def test_float32_for_the_integer_row_is_told_where_its_whole_numbers_end():
    verdict = check("integer-dtype", "float32")
    assert verdict.outcome.value == "wrong" and "rounds to 2**24" in verdict.message
