"""The predict-then-check exercises: the registry (one solver per exercise, with its
question beside it), answer kinds, feedback (``check``) and answer files. Imports the
core and the studies."""
