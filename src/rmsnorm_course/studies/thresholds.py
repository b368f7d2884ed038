"""The chapter's yardsticks, each defined once: what counts as "the same", "barely
moves" and "moves visibly". The evidence, the pages and the tests all compare with
these names, so a claim and its check cannot drift apart.
"""

from __future__ import annotations

import numpy as np

ROUNDING = float(np.finfo(np.float64).eps)  # one unit of rounding at 1.0: "equal, to rounding"
BARELY_MOVES = 1e-6  # an ordinary input, rescaled with eps > 0, moves less than this
VISIBLY_MOVES = 0.1  # an eps-dominated input, rescaled, moves more than this
