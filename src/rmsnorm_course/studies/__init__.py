"""What the chapter measures with the core: the worked example, the evidence, the
comparisons, the block, the formulas as written, cost and precision. Imports the core (and ``cache``) only."""
