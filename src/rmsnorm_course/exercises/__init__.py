"""The predict-then-check exercises: the registry (one solver per exercise, with its
question beside it), answer kinds, feedback (``check``), answer files and their
reader, and a class's gradebook. Imports the core and the studies."""
