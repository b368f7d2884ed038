"""Errors of grading: an exercise that does not exist, an answer or a file that cannot be read; a cache not used.

They are not RMSNorm's refusals (``core.errors``): nothing here is a bad request to
the maths, so they have a base class of their own.
"""

from __future__ import annotations


class GradingError(ValueError):
    """An exercise, answer or answers file that cannot be graded; ``boundary`` names which rule it broke."""

    boundary = "grading"


class UnknownExercise(GradingError):
    boundary = "unknown-exercise"


class AnswerKindError(GradingError):
    boundary = "answer-kind"


class AnswersFileError(GradingError):
    boundary = "answers-file"


class CacheWarning(UserWarning):
    """A cached file that is not used (not a regular file, not sealed by this user): what it held is computed afresh."""


class AnswerKeyWarning(CacheWarning):
    """A cached answer key, or one of its answers, that could not be trusted and is computed afresh."""
