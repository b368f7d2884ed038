"""A class's answers files graded as one gradebook: the teacher's side of a predict-then-check course.

``python -m classroom grade FOLDER --out grades`` reads every file as data, judges it by the
course's own exercises (found through ``predict_check.courses``, never imported by name), and
writes the gradebooks, a figure and a feedback page per student (``report``). Neither the
engine nor a course imports this package.
"""
