"""The cache: one variable (``off`` caches nothing anywhere), names from the packages' files, files worth their seal."""

from __future__ import annotations

import hashlib
import multiprocessing
import os
import stat
from pathlib import Path

import pytest

from blocking import within
from predict_check import cache, key
from predict_check.errors import CacheWarning
from rmsnorm_course.pages import COURSE, training
from rmsnorm_course.studies import cache as studies_cache

VARIABLE = studies_cache.VARIABLE


@pytest.fixture
def config(tmp_path, monkeypatch) -> Path:
    """A config folder of this test's own, so that the secret is made afresh there."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    return tmp_path / "config"


@pytest.fixture
def where(tmp_path, monkeypatch, config) -> cache.Folder:
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    found = cache.folder(VARIABLE)
    found.path.mkdir()
    return found


def test_the_variable_names_a_folder_says_off_or_leaves_the_default(monkeypatch, tmp_path):
    monkeypatch.setenv(VARIABLE, str(tmp_path))
    assert cache.folder(VARIABLE, Path("elsewhere")).path == tmp_path == studies_cache.folder().path
    monkeypatch.setenv(VARIABLE, "off")
    assert cache.folder(VARIABLE, Path("elsewhere")) is None
    monkeypatch.delenv(VARIABLE)
    assert cache.folder(VARIABLE, Path("elsewhere")).path == Path("elsewhere") and studies_cache.folder() is None


def test_off_keeps_nothing_from_any_cache(monkeypatch, tmp_path):
    """The answer key and the training runs alike: nothing under the working folder or the home folder."""
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv(VARIABLE, "off")
    monkeypatch.setattr(key.key_of(COURSE), "solved", {})
    small = training.Setup(depth=3, width=6, hidden=8, inputs=4, outputs=2, examples=10, steps=12)
    assert set(training.experiment.__wrapped__(small)) == set(training.VARIANTS)
    assert key.solution(COURSE.exercises["mean-square"]).answer == 12.5  # (9 + 16) / 2
    assert key.key_of(COURSE).path is None
    assert [Path(root, name) for root, _, names in os.walk(tmp_path) for name in names] == []


@pytest.mark.parametrize("setting", ["OFF", "Off", " off ", "off\n", "\toFF"])
def test_off_in_any_case_and_with_spaces_around_keeps_nothing(monkeypatch, tmp_path, setting):
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv(VARIABLE, setting)
    assert cache.folder(VARIABLE, tmp_path / "default") is None
    small = training.Setup(depth=2, width=4, hidden=4, inputs=2, outputs=1, examples=4, steps=2)
    assert set(training.experiment.__wrapped__(small)) == set(training.VARIANTS)
    assert list(tmp_path.iterdir()) == []


# --- the name: every file of the packages ----------------------------------------------------


@pytest.fixture
def planted(tmp_path, monkeypatch) -> Path:
    """A package of two modules, a data file and a folder of compiled files, importable from ``tmp_path``."""
    package = tmp_path / "planted"
    for name, text in {"__init__.py": "", "a.py": "X = 1\n", "data/table.csv": "1,2\n"}.items():
        (package / name).parent.mkdir(parents=True, exist_ok=True)
        (package / name).write_text(text, encoding="utf-8")
    (package / "__pycache__").mkdir()
    (package / "__pycache__" / "a.cpython.pyc").write_bytes(b"compiled")
    monkeypatch.syspath_prepend(str(tmp_path))
    return package


def test_every_file_of_the_package_is_named_in_order_and_no_compiled_one(planted):
    files = cache.package_files("planted")
    assert [relative for relative, _ in files] == ["__init__.py", "a.py", "data/table.csv"]
    assert dict(files)["data/table.csv"] == planted / "data" / "table.csv"


def test_any_change_to_any_file_of_the_package_is_a_new_name(planted):
    first = cache.fingerprint(["planted.a"], "question")
    assert cache.fingerprint(["planted"], "question") == first  # a module counts for its whole package
    (planted / "__pycache__" / "a.cpython.pyc").write_bytes(b"compiled again")
    assert cache.fingerprint(["planted"], "question") == first
    names = {first, cache.fingerprint(["planted"], "another question")}
    (planted / "data" / "table.csv").write_text("1,3\n", encoding="utf-8")
    names.add(cache.fingerprint(["planted"], "question"))
    (planted / "b.py").write_text("", encoding="utf-8")
    names.add(cache.fingerprint(["planted"], "question"))
    (planted / "b.py").rename(planted / "c.py")
    names.add(cache.fingerprint(["planted"], "question"))
    assert len(names) == 5


def test_the_engine_s_own_files_are_part_of_every_name(monkeypatch, planted):
    assert ("cache.py", Path(cache.__file__)) in cache.package_files(cache.ENGINE)
    monkeypatch.setattr(cache, "ENGINE", "planted")  # an engine whose files this test can change
    first = cache.fingerprint([], "question")
    (planted / "a.py").write_text("X = 2\n", encoding="utf-8")
    assert cache.fingerprint([], "question") != first


def test_parts_are_told_apart_however_they_are_cut_and_any_text_has_a_name():
    assert cache.fingerprint([], "ab", "c") != cache.fingerprint([], "a", "bc")
    assert cache.fingerprint([], "\ud800") != cache.fingerprint([], "\ufffd")  # a lone surrogate is text too


# --- the secret ------------------------------------------------------------------------------


def test_the_secret_is_made_once_in_the_config_folder_for_this_user_alone(config, where):
    path = config / "predict-check" / "secret"
    assert path.stat().st_size == cache.SECRET_BYTES and stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0
    assert cache.secret() == where.secret == path.read_bytes()
    assert where.secret not in repr(where).encode() and where.secret.hex() not in repr(where)


def test_without_xdg_config_home_the_secret_is_in_the_home_s_config_folder(tmp_path, monkeypatch):
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert cache.secret_path() == tmp_path / ".config" / "predict-check" / "secret"
    monkeypatch.setenv("XDG_CONFIG_HOME", "relative/config")  # not a place the standard allows: the home's
    assert cache.secret_path() == tmp_path / ".config" / "predict-check" / "secret"


def _secret_in(config: str, barrier, results) -> None:
    os.environ["XDG_CONFIG_HOME"] = config
    barrier.wait()
    results.put(cache.secret())


def test_processes_making_the_secret_at_once_share_one(config):
    context = multiprocessing.get_context("fork")  # a copy of this process: the race, without importing again
    barrier, results = context.Barrier(2), context.Queue()
    workers = [context.Process(target=_secret_in, args=(str(config), barrier, results)) for _ in range(2)]
    for worker in workers:
        worker.start()
    found = {results.get(timeout=60) for _ in workers}
    for worker in workers:
        worker.join(timeout=60)
    assert found == {(config / "predict-check" / "secret").read_bytes()} and None not in found


def test_a_secret_others_can_read_is_not_used_and_nothing_is_cached(config, tmp_path, monkeypatch):
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    assert cache.folder(VARIABLE) is not None
    (config / "predict-check" / "secret").chmod(0o640)
    with pytest.warns(CacheWarning, match="is not a secret of this user's alone"):
        assert cache.folder(VARIABLE) is None


def test_where_the_config_folder_is_a_file_nothing_is_cached(config, tmp_path, monkeypatch):
    """As a home that cannot be written would: no secret can be made there, so nothing is cached."""
    config.write_text("not a folder", encoding="utf-8")
    monkeypatch.setenv(VARIABLE, str(tmp_path / "cache"))
    assert cache.folder(VARIABLE) is None
    studies_cache.arrays("nothing", ["cached"], lambda: {})
    assert not (tmp_path / "cache").exists()


# --- the seal ------------------------------------------------------------------------------


def test_a_sealed_file_reads_back_as_written(where):
    path = where.file("value", "0123", ".bin")
    assert where.write(path, b"\x00any bytes\n\xff") and where.read(path) == b"\x00any bytes\n\xff"
    assert path.name == f"value-{where.owner}-0123.bin" and where.files("value", ".bin") == [path]


def test_the_seal_is_an_hmac_of_the_name_and_bytes_under_the_secret(where):
    """Held to the standard's HMAC (RFC 2104) written out here, not to the code under test."""
    path = where.file("value", "0123", ".bin")
    where.write(path, b"payload")
    block = where.secret.ljust(64, b"\0")
    inner = hashlib.sha256(bytes(b ^ 0x36 for b in block) + path.name.encode() + b"\0payload").digest()
    tag = hashlib.sha256(bytes(b ^ 0x5C for b in block) + inner).hexdigest()
    assert path.read_bytes() == f"predict-check sealed {tag}\n".encode() + b"payload"


@pytest.mark.parametrize(
    "spoil",
    [
        lambda data: data[:-1] + b"!",  # a byte of the value changed
        lambda data: data.replace(b"sealed ", b"sealed 0", 1)[:-1],  # the seal changed
        lambda data: data.split(b"\n", 1)[1],  # the seal taken off
        lambda data: b"",
    ],
)
def test_a_file_changed_since_it_was_sealed_is_said_once_and_not_read(where, spoil):
    path = where.file("value", "0123", ".bin")
    where.write(path, b"payload")
    path.write_bytes(spoil(path.read_bytes()))
    with pytest.warns(CacheWarning, match=r"is not as this user cached it \(its seal does not match\)"):
        assert where.read(path) is None
    assert where.read(path) is None  # said once


def test_a_sealed_file_under_another_name_is_not_read(where):
    """A file cached for other sources, renamed to the name of these: its name is sealed with it."""
    old, new = where.file("value", "old", ".bin"), where.file("value", "new", ".bin")
    where.write(old, b"computed from the old sources")
    old.rename(new)
    with pytest.warns(CacheWarning, match="its seal does not match"):
        assert where.read(new) is None


def test_a_file_sealed_by_another_user_s_secret_is_not_read(where, tmp_path, monkeypatch):
    theirs = cache.Folder(where.path, b"\x01" * cache.SECRET_BYTES)
    assert theirs.owner != where.owner
    path = where.file("value", "0123", ".bin")  # this user's name, their seal
    theirs.write(path, b"FORGED")
    with pytest.warns(CacheWarning, match="its seal does not match"):
        assert where.read(path) is None


def test_a_fifo_is_said_once_and_never_waited_for(where):
    path = where.file("value", "0123", ".bin")
    os.mkfifo(path)
    with pytest.warns(CacheWarning, match="is not a regular file"):
        assert within(5, lambda: where.read(path), path) is None
    assert within(5, lambda: where.read(path), path) is None  # said once
    assert where.write(path, b"payload") and where.read(path) == b"payload"  # a new file replaces it


def test_a_folder_in_place_of_a_file_is_said_and_a_missing_file_is_not(where):
    path = where.file("value", "0123", ".bin")
    path.mkdir()
    with pytest.warns(CacheWarning, match="is not a regular file"):
        assert where.read(path) is None
    assert where.read(where.file("value", "none yet", ".bin")) is None  # not there: nothing said
