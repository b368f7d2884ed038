"""The grading engine: what an answer is (reading, kinds), verdicts (``check``, feedback),
answer files and their reader, and a class's gradebook, report and feedback pages.

Its layers interleave with the course's (see tests/test_layers.py): what an answer is
sits below the questions, verdicts above them, and the class machinery above the views.
"""
