"""The chapter's questions: each prediction box's question, its kind of answer, and the
solver that computes its answer and the slips to recognise from the package itself."""
