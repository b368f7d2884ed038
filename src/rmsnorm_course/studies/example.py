"""The worked example, and every other input the chapter computes with, defined once.

x = [3, 4], g = [1.5, 0.5] and eps = 1e-5: the evidence, the pages, the exercises, the explorer and the
tests all start from these names. ``EPS`` is the chapter's own eps, set here: the functions' default
(``core.reference.DEFAULT_EPS``) and the baselines' (``core.baselines.BASELINE_EPS``) are other names,
so changing either moves no worked value.
"""

from __future__ import annotations

INPUT = (3.0, 4.0)  # x
GAIN = (1.5, 0.5)  # g
EPS = 1e-5  # eps: the chapter's worked value, as LLaMA's RMSNorm uses it
IDEAL_EPS = 0.0  # the eps-free formula of the paper
TINY_INPUT = (0.0003, 0.0004)  # mean square 1.25e-7, below eps
SMALL_INPUT = (0.006, 0.008)  # the worked example shrunk 500-fold: mean square 5e-5, five times eps
SCALE_FACTOR = 10.0  # a, the factor the scale cards multiply x by
FALLEN_TO = 0.8  # a mean(x-hat**2) below the plateau: where has it fallen to this?
UPSTREAM = (1.0, -2.0)  # grad_output for the backward
GRADIENT_STEP = 1e-6  # central-difference step of the gradient check
GRADIENT_TOLERANCE = 2e-6  # largest difference the gradient check accepts
GAIN_NAME = "decoder.block.0.attention_norm.gain"
BATCH = ((3.0, 4.0), (0.0, 5.0))  # two rows: the worked example and another
ZERO_ROW = (0.0, 0.0)
ANCHOR = (1.0, 3.0)  # the history's anchor example ...
COMPANION = (5.0, 7.0)  # ... and the example that shares its batch
