"""A prediction box: the question, a place to type, and a verdict, with or without a kernel.

``Prediction("mean-square")`` displays as a live widget in Jupyter, whose verdicts come
from ``check``, and in the HTML book as a kernel-free form: the package writes the
exercise's data (its kind, reference answer, tolerance, hint, pitfalls, explanation)
into the page, and ``static/prediction.js`` reads and judges what the reader types by
the same rules and in the same words. The script is served once per page, not once
per box: the book's build copies ``SCRIPT`` into its static files and links it from
every page. Without it (or without JavaScript) a box still shows the question and,
folded away, the reference answer.
"""

from __future__ import annotations

import html
import json
from importlib.resources import files
from importlib.resources.abc import Traversable

from ..exercises import registry
from ..exercises.feedback import LOOKS, check, reference
from ..exercises.kinds import Choice, Vector, read_typed

PAGE_CONTRACT = "prediction"  # class of every box; data-exercise holds its exercise id
SCRIPT: Traversable = files("rmsnorm_course.views") / "static" / "prediction.js"  # wires every box on a page


def exercise_data(exercise_id: str) -> dict[str, object]:
    """Everything the page needs to judge an answer as ``check`` would, computed now."""
    exercise = registry.get(exercise_id)
    kind = exercise.kind
    solution = exercise.solve()
    described: dict[str, object] = {"type": type(kind).__name__.lower()}
    if isinstance(kind, Vector):
        described["length"] = kind.length
    if isinstance(kind, Choice):
        described["options"] = list(kind.options)
    return {
        "id": exercise.id,
        "prompt": exercise.prompt,
        "kind": described,
        "answer": solution.answer,  # already in the form a kind reads answers into
        "tolerance": exercise.tolerance,
        "explanation": solution.explanation,
        "hint": exercise.hint,
        "pitfalls": [[kind.read(value), note] for value, note in solution.pitfalls],
        "chapter": list(registry.EXERCISES),  # every id in the grader's order, for "Download my answers"
        "looks": {
            outcome.name.lower(): {"mark": mark, "word": word, "colour": colour}
            for outcome, (mark, word, colour) in LOOKS.items()
        },
    }


def question_html(exercise_id: str) -> str:
    """The question as the box shows it, in the page and in the widget alike."""
    exercise = registry.get(exercise_id)
    return f"<strong>Predict</strong> <code>{html.escape(exercise.id)}</code>: {html.escape(exercise.prompt)}"


def prediction_html(exercise_id: str) -> str:
    """The kernel-free box: question, labelled input, verdict area, folded reference, data, script."""
    exercise = registry.get(exercise_id)
    data = json.dumps(exercise_data(exercise_id), ensure_ascii=True).replace("<", "\\u003c")
    field = f"prediction-{exercise.id}"
    options = ""
    if isinstance(exercise.kind, Choice):
        listed = "".join(f"<li>{html.escape(option)}</li>" for option in exercise.kind.listed())
        options = f'<ul class="prediction-options" style="list-style: none; padding-left: 0.5em;">{listed}</ul>'
    answer = reference(exercise_id)
    return (
        f'<div class="{PAGE_CONTRACT}" data-exercise="{html.escape(exercise.id)}" '
        'style="border: 1px solid #d0d7de; border-radius: 0.3em; padding: 0.6em 0.9em; margin: 0.6em 0;">'
        f'<p class="prediction-question" style="margin: 0 0 0.4em 0;">{question_html(exercise.id)}</p>{options}'
        f'<form class="prediction-form" style="display: flex; gap: 0.5em; align-items: center; flex-wrap: wrap;">'
        f'<label for="{field}">Your prediction ({html.escape(exercise.kind.describe())})</label>'
        f'<input id="{field}" type="text" autocomplete="off" spellcheck="false" style="min-width: 14em;">'
        '<button type="submit">Check</button></form>'
        '<p role="status" aria-live="polite" class="prediction-verdict" '
        'style="border-left: 0.35em solid transparent; padding-left: 0.6em; min-height: 1.2em; margin: 0.4em 0;"></p>'
        "<details><summary>Check your prediction first, then open the reference answer</summary>"
        f"<p><code>{html.escape(answer.answer or '')}</code>: {html.escape(answer.message)}</p></details>"
        f'<script type="application/json" class="prediction-data">{data}</script></div>'
    )


class Prediction:
    """One exercise's prediction box: a widget in Jupyter, a kernel-free form in the HTML book."""

    def __init__(self, exercise_id: str):
        self.exercise = registry.get(exercise_id)

    def verdict(self, typed: str):
        """The verdict for what a reader typed: ``check`` on the value read as the page reads it."""
        return check(self.exercise.id, read_typed(typed))

    def widget(self):
        import ipywidgets as w

        question = w.HTML(question_html(self.exercise.id))
        typed = w.Text(
            placeholder=self.exercise.kind.describe(), description="Your prediction", continuous_update=False
        )
        button = w.Button(description="Check")
        shown = w.HTML()

        def answer(_=None) -> None:
            shown.value = self.verdict(typed.value)._repr_html_()

        button.on_click(answer)
        typed.observe(answer, names="value")  # Enter, or leaving the field
        return w.VBox([question, w.HBox([typed, button]), shown])

    def _repr_mimebundle_(self, **kwargs) -> dict:
        bundle = self.widget()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = prediction_html(self.exercise.id)
        bundle["text/plain"] = f"Predict {self.exercise.id}: {self.exercise.prompt}"
        return bundle
