"""A prediction box: the question, a place to type, and a verdict, with or without a kernel.

``Prediction("mean-square")`` displays as a live widget in Jupyter, whose verdicts come
from ``check``, and in the HTML book as a kernel-free form. The form carries its
exercise as data (the kind, the reference, the known slips, and every text a verdict
can say, from ``feedback.page_words``). ``static/prediction.js`` reads what the reader
types by the rules of ``exercises.reading`` and picks the verdict by the rules of
``feedback.judge``; what every box shares (those rules, the chapter's exercise ids and
each verdict's look) is ``DATA_SCRIPT``. Both scripts are served once per page by the
book's build. Without them (or without JavaScript) a box still shows the question and,
folded away, the reference answer.

On a chapter page a box also holds back what follows it until it has a verdict or
the reader opens its answer (``gate``); the review page's boxes do not.
"""

from __future__ import annotations

import html
import json
from importlib.resources import files
from importlib.resources.abc import Traversable

from ..exercises import key, reading, registry
from ..exercises.feedback import LOOKS, check, page_words, reference
from ..exercises.kinds import Choice, Place, judging

PAGE_CONTRACT = "prediction"  # class of every box; data-exercise holds its exercise id
SCRIPT: Traversable = files("rmsnorm_course.views") / "static" / "prediction.js"  # wires every box on a page
PICTURE_SCRIPT: Traversable = files("rmsnorm_course.views") / "static" / "prediction-picture.js"  # placed answers
DATA_SCRIPT = "prediction-data.js"  # what every box on every page shares, served once
DATA_GLOBAL = "window.rmsnormPredictionData"
# The words of "Try another", the same question about fresh inputs.
VARIANT_WORDS = {
    "another": "Try another",
    "question": "Variant {number}: {question}",
    "answer": "Your answer to this variant",
    "check": "Check this variant",
    "count": "Variant {number} of {of}. {right} of {of} variants right; variants are practice and never count "
    "toward your score.",
}
# Said inside the box that holds the rest of the page back, naming what waits below it.
HOLD = "To go on, answer above or show the answer. Waiting below: {what}."
HELD = {
    "rest": "the rest of this section",
    "section": "the section \u201c{title}\u201d",
    "figure": "a figure",
    "figures": "{count} figures",
    "box": "one more box",
    "boxes": "{count} more boxes",
    "and": " and ",
}


def shared_data() -> dict[str, object]:
    """The reading rules, every exercise id in the grader's order, and each outcome's look."""
    return {
        "rules": reading.rules(),
        "judging": judging(),
        "chapter": list(registry.EXERCISES),
        "hold": HOLD,
        "held": HELD,
        "variants": VARIANT_WORDS,
        "looks": {
            outcome.name.lower(): {"mark": mark, "word": word, "colour": colour}
            for outcome, (mark, word, colour) in LOOKS.items()
        },
    }


def data_script() -> str:
    """The contents of ``DATA_SCRIPT``."""
    return f"{DATA_GLOBAL} = {json.dumps(shared_data(), ensure_ascii=True)};\n"


def exercise_data(exercise_id: str) -> dict[str, object]:
    """Everything the page needs to judge an answer as ``check`` would, computed now: its variants' too."""
    exercise = registry.get(exercise_id)
    variants = [_judged(exercise.variant(number)) for number in range(len(exercise.variants))]
    return {"id": exercise.id, **_judged(exercise), "variants": variants}


def _judged(exercise: registry.Exercise) -> dict[str, object]:
    """One question's kind, reference, slips, words and, for a placed answer, the truth to draw."""
    kind, solution = exercise.kind, key.solution(exercise)
    return {
        "question": exercise.prompt,
        "kind": kind.data(),
        "answer": kind.plain(solution.answer),
        "pitfalls": [[kind.plain(value), note] for value, note in solution.pitfalls],
        "words": page_words(exercise),
        "picture": dict(solution.picture) if solution.picture else None,
    }


def question_html(exercise_id: str) -> str:
    """The question as the box shows it, in the page and in the widget alike."""
    exercise = registry.get(exercise_id)
    return f"<strong>Predict: {html.escape(exercise.title)}.</strong> {html.escape(exercise.prompt)}"


def prediction_html(exercise_id: str, gate: bool = True) -> str:
    """The kernel-free box: question, labelled input, verdict area, folded answer, data.

    Without ``gate`` (a review page) the box is folded under its title.
    """
    exercise = registry.get(exercise_id)
    data = json.dumps(exercise_data(exercise_id), ensure_ascii=True).replace("<", "\\u003c")
    field = f"prediction-{exercise.id}"
    figure = '<div class="prediction-figure"></div>' if isinstance(exercise.kind, Place) else ""
    question = f"{field}-question"  # names the box's input, its options and its button
    options = ""
    if isinstance(exercise.kind, Choice):  # a radio group; a typed letter or words still answer
        listed = "".join(
            f'<li role="radio" aria-checked="false" data-letter="{letter}">{html.escape(option)}</li>'
            for letter, option in zip(exercise.kind.letters, exercise.kind.listed())
        )
        options = f'<ul class="prediction-options" role="radiogroup" aria-labelledby="{question}">{listed}</ul>'
    answer = reference(exercise_id)
    box = (
        f'<div class="{PAGE_CONTRACT}" data-exercise="{html.escape(exercise.id)}" data-gate="{str(gate).lower()}">'
        f'<p class="prediction-question" id="{question}">{question_html(exercise.id)}</p>{options}{figure}'
        # method "dialog" outside a dialog submits nowhere: without the script, Check never reloads the page
        f'<form class="prediction-form" method="dialog">'
        f'<label for="{field}" id="{field}-hint">Type {html.escape(exercise.kind.describe())}</label>'
        f'<input id="{field}" class="prediction-input" type="text" autocomplete="off" spellcheck="false" '
        f'aria-labelledby="{question}" aria-describedby="{field}-hint">'
        f'<button type="submit" aria-label="Check: {html.escape(exercise.title)}">Check</button></form>'
        '<noscript><p class="prediction-noscript">Checking a prediction needs JavaScript, which is off in this '
        "browser: predict, then open the answer below.</p></noscript>"
        '<p role="status" aria-live="polite" class="prediction-verdict"></p>'
        '<div class="prediction-more"></div>'
        '<p class="prediction-hold" hidden></p>'
        '<details class="prediction-answer"><summary>Show the answer (and go on without a prediction)</summary>'
        f"<p><code>{html.escape(answer.answer or '')}</code>: {html.escape(answer.message)}"
        + (f" {html.escape(answer.detail)}" if answer.detail else "")
        + "</p></details>"
        f'<script type="application/json" class="prediction-data">{data}</script></div>'
    )
    if gate:
        return box
    # a review page lists its questions by title, each folded around its box
    return f'<details class="prediction-review"><summary>{html.escape(exercise.title)}</summary>{box}</details>'


class Prediction:
    """One exercise's prediction box: a widget in Jupyter, a kernel-free form in the HTML book.

    ``gate=False`` for a page whose boxes are a review: nothing after them is held back.
    """

    def __init__(self, exercise_id: str, gate: bool = True):
        self.exercise = registry.get(exercise_id)
        self.gate = gate

    def verdict(self, typed: str):
        """The verdict for what a reader typed, by ``check``'s rules."""
        return check(self.exercise.id, typed)

    def widget(self):
        import ipywidgets as w

        question = w.HTML(question_html(self.exercise.id))
        typed = w.Text(placeholder=self.exercise.kind.describe(), description="Your answer", continuous_update=False)
        button = w.Button(description="Check")
        shown = w.HTML()

        def answer(_=None) -> None:
            shown.value = self.verdict(typed.value)._repr_html_()

        button.on_click(answer)
        typed.observe(answer, names="value")  # Enter, or leaving the field
        return w.VBox([question, w.HBox([typed, button]), shown])

    def _repr_mimebundle_(self, **kwargs) -> dict:
        bundle = self.widget()._repr_mimebundle_(**kwargs)
        bundle["text/html"] = prediction_html(self.exercise.id, self.gate)
        bundle["text/plain"] = f"Predict: {self.exercise.title}. {self.exercise.prompt}"
        return bundle
