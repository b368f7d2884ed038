"""Who a file is from: a template matched against a student's file name in one pass, never by backtracking."""

from __future__ import annotations

import re

import pytest

from classroom.students import PLACES, Pattern, fill


class Searched(str):
    """A file name that counts the searches made in it."""

    searches = 0

    def find(self, *args) -> int:
        Searched.searches += 1
        return super().find(*args)


def split(template: str) -> tuple[str, ...]:
    return tuple(re.split(r"(\{name\}|\{id\}|\{\*\})", template))


def lazy(template: str, name: str) -> dict[str, str] | None:
    """What a lazy regular expression finds: the meaning of a template, affordable on short names only."""
    parts = split(template)
    place = {"{name}": r"(?P<name>[^/]+?)", "{id}": r"(?P<id>[^/]+?)", "{*}": r"[^/]*?"}
    found = re.fullmatch("".join(place.get(part, re.escape(part)) for part in parts), name)
    return None if found is None else found.groupdict()


@pytest.mark.parametrize(
    ("template", "name", "found"),
    [
        ("{id}-{name}.toml", "42-ana-perez.toml", {"id": "42", "name": "ana-perez"}),
        ("{*}" * 14 + "{name}.toml", "x" * 250 + ".toml", {"name": "x" * 250}),  # places side by side
        ("{*}-{*}-{*}-{*}-{id}.toml", "a-" * 120 + "b.txt", None),  # a long name that does not fit
        ("{*}_{name}_{*}_{id}_{*}.toml", "_".join(["x"] * 120) + ".toml", {"name": "x", "id": "x"}),
        ("{name}/{*}", "ana/b/answers.toml", None),  # no place holds a "/"
    ],
)
def test_a_template_is_matched_with_one_search_per_literal_whatever_the_name(template, name, found):
    """However many places and however long the name, each literal between two places is sought once."""
    Searched.searches = 0
    parts = split(template)
    assert fill(parts, Searched(name)) == found
    assert Searched.searches <= len([part for part in parts if part in PLACES]) - 1
    assert Pattern.of(template).match(name) == (found or {})


@pytest.mark.parametrize(
    ("template", "name"),
    [
        ("{name}_{id}/answers.toml", "Ana_1/answers.toml"),
        ("{*}_{id}_{*}", "a_b_c_d"),
        ("{name}{id}.toml", "ab.toml"),
        ("x{*}{*}y{name}", "xyyy"),
        ("{id}.{*}.{name}", "1.2.3.4"),
        ("{*}/{name}.toml", "folder/ana.toml"),
        ("{*}_{name}", "a_"),
    ],
)
def test_a_template_finds_what_a_lazy_pattern_finds(template, name):
    assert fill(split(template), name) == lazy(template, name)
