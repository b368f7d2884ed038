"""The cost page's box: the least a forward pass moves, and the slips a learner makes counting it."""

from __future__ import annotations

from rmsnorm_course.pages import check

BATCH = 4 * 2048 * 4096  # the question's float32 batch, [B, T, d]


def slip_of(typed: float) -> str:
    verdict = check("forward-bytes", f"{typed:.0f}")
    assert verdict.outcome.value == "wrong"
    return verdict.message


def test_the_least_a_forward_pass_moves_is_one_read_and_one_write():
    assert check("forward-bytes", str(2 * BATCH * 4 // 2**20)).correct  # 256 MiB


def test_the_forward_bytes_slips_are_named():
    assert "never writes y" in slip_of(BATCH * 4 / 2**20)  # x read, y forgotten
    assert "8 bytes a number" in slip_of(2 * BATCH * 8 / 2**20)  # float32 taken as eight bytes
    assert "millions of bytes" in slip_of(2 * BATCH * 4 / 1e6)  # MB for MiB: 268
