"""The boxes of cost.md: Cost."""

from __future__ import annotations

import numpy as np

from predict_check import Number, Solution

from .course import COURSE

MIB = 2**20
SIZES = {"float32": 4, "bfloat16": 2, "float16": 2, "float64": 8}


@COURSE.exercise(
    "forward-bytes",
    "The least a forward pass moves",
    "A {dtype} batch of shape {shape} goes through RMSNorm. At the least, how many MiB must the forward pass move "
    "through memory?",
    Number(decimals=0, units=("MiB", "mib", "mb"), stated=False),  # whole MiB: the gain's few KiB round away
    "It must read every element of x and write every element of y; count the bytes a number takes.",
    given={"dtype": "float32", "shape": [4, 2048, 4096]},  # a model-sized batch of activations, [B, T, d]
    variants=(
        {"dtype": "bfloat16"},
        {"shape": [2, 1024, 4096]},
        {"dtype": "float64", "shape": [1, 4096, 8192]},
        {"dtype": "float16", "shape": [8, 512, 2048]},
        {"dtype": "float32", "shape": [16, 128, 512]},
    ),
)
def _forward_bytes(dtype, shape) -> Solution:
    itemsize = SIZES[dtype]
    nbytes = int(np.prod(shape)) * itemsize
    moved = 2 * nbytes / MIB  # one read of x, one write of y
    other = 8 if itemsize != 8 else 4  # a slip in the number's size
    return Solution(
        moved,
        f"{moved:g} MiB: one read of x and one write of y, {nbytes / MIB:g} MiB each.",
        slips=(
            (nbytes / MIB, "That reads x but never writes y; the output has to reach memory too."),
            (2 * nbytes / MIB * (other / itemsize), f"That counts {other} bytes a number; {dtype} takes {itemsize}."),
        ),
        detail="A copy of x into an existing array moves exactly as much: the least any normalization can do.",
    )
