"""What the machine reports about itself: the sizes of its caches.

The kernel sizes its blocks from one core's L2 cache, and the cost page sizes its
batch beyond the largest cache; both read them here, as the C library or Linux's
/sys reports them.
"""

from __future__ import annotations

import os
from pathlib import Path

CACHES = "/sys/devices/system/cpu/cpu0/cache"  # where Linux describes the first core's caches


def cache_bytes(level: int = 2) -> int | None:
    """One core's data cache at ``level``, in bytes, as the machine reports it; None where it reports none.

    Asks the C library first (``os.sysconf``), then Linux's /sys.
    """
    try:
        size = os.sysconf(f"SC_LEVEL{level}_CACHE_SIZE" if level > 1 else "SC_LEVEL1_DCACHE_SIZE")
    except (ValueError, OSError, AttributeError):  # a name this system does not know, or no sysconf at all
        size = 0
    if size > 0:
        return size
    for index in sorted(Path(CACHES).glob("index*")):
        try:
            if int((index / "level").read_text()) == level and (index / "type").read_text().strip() != "Instruction":
                return size_in_bytes((index / "size").read_text())
        except (OSError, ValueError):
            continue
    return None


def last_level_cache() -> int | None:
    """The largest cache this machine reports, in bytes, or None where it reports none."""
    sizes = [size_in_bytes(entry.read_text()) for entry in Path(CACHES).glob("index*/size")]
    return max((size for size in sizes if size), default=None)


def size_in_bytes(text: str) -> int | None:
    """A size as Linux writes a cache's under /sys, read back: ``"512K"`` is 524288; None if it is no size."""
    text = text.strip().upper()
    factor = {"K": 2**10, "M": 2**20, "G": 2**30}.get(text[-1:], 1)
    digits = text.rstrip("KMG")
    return int(digits) * factor if digits.isdigit() else None
