"""What several pages share, computed with the core: the worked example and the yardsticks,
the evidence, the comparisons, the block, the formulas as written, precision, today's variants
as their code writes them, the partial RMS, the sources as data, and what is computed once and
cached. Imports the core, and of the engine its cache alone (``cache``)."""
