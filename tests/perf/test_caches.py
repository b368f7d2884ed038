"""The caches the machine reports: read from the C library first, then from Linux's /sys, as Linux writes them."""

from __future__ import annotations

from rmsnorm_course.perf import caches
from rmsnorm_course.perf.caches import cache_bytes, last_level_cache, size_in_bytes


def test_cache_sizes_are_read_as_linux_writes_them():
    assert size_in_bytes("512K\n") == 512 * 1024
    assert size_in_bytes("16M") == 16 * 1024 * 1024
    assert size_in_bytes("32768") == 32768
    assert size_in_bytes("unknown") is None


def describe_caches(folder, described):
    """A /sys/devices/system/cpu/cpu0/cache of our own: (level, type, size) per index."""
    for number, (level, kind, size) in enumerate(described):
        index = folder / f"index{number}"
        index.mkdir(parents=True)
        (index / "level").write_text(f"{level}\n")
        (index / "type").write_text(f"{kind}\n")
        (index / "size").write_text(f"{size}\n")
    return folder


def test_the_l2_cache_is_the_data_cache_linux_describes(tmp_path, monkeypatch):
    """Where the C library names no size, /sys is read: the level-2 data or unified cache, not an instruction one."""
    described = [(1, "Data", "48K"), (1, "Instruction", "32K"), (2, "Instruction", "64K"), (2, "Unified", "1280K"),
                 (3, "Unified", "48M")]  # fmt: skip
    monkeypatch.setattr(caches, "CACHES", str(describe_caches(tmp_path / "cache", described)))
    monkeypatch.setattr(caches.os, "sysconf", lambda name: 0)  # the C library reports no size
    assert cache_bytes(2) == 1280 * 1024
    assert cache_bytes(1) == 48 * 1024
    assert cache_bytes(4) is None
    assert last_level_cache() == 48 * 1024 * 1024


def test_the_c_library_s_report_comes_first(tmp_path, monkeypatch):
    monkeypatch.setattr(caches, "CACHES", str(describe_caches(tmp_path / "cache", [(2, "Unified", "1280K")])))
    monkeypatch.setattr(caches.os, "sysconf", lambda name: 2 * 1024 * 1024 if name == "SC_LEVEL2_CACHE_SIZE" else 0)
    assert cache_bytes(2) == 2 * 1024 * 1024


def test_a_machine_that_reports_no_cache_reports_none(tmp_path, monkeypatch):
    monkeypatch.setattr(caches, "CACHES", str(tmp_path / "absent"))
    monkeypatch.setattr(caches.os, "sysconf", lambda name: (_ for _ in ()).throw(ValueError(name)))
    assert cache_bytes(2) is None and last_level_cache() is None
