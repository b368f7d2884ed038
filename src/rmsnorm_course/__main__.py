"""``python -m rmsnorm_course``: print the checked evidence report; exit 1 if a check fails.

The report shows answers to the chapter's predictions, and says so before it does: on a
terminal it waits for Enter (Ctrl+C stops it, with status 130). ``--help`` lists the other
commands; a class's files are graded by ``python -m classroom grade``.
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

from predict_check import AnswerSheet, answers_file
from predict_check.commands import piped
from predict_check.untrusted import visible

from .core.errors import RMSNormError
from .model import measurements as real_model
from .studies import evidence
from .views import report


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m rmsnorm_course", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", metavar="command")
    commands.add_parser("report", help="the evidence report (the default)")
    commands.add_parser("solutions", help="the answers file with the reference answers")
    commands.add_parser("template", help="the blank answers file")
    made = commands.add_parser("pages", help="write what each box needs on its page, and the blank answers file")
    made.add_argument("--check", action="store_true", help="only say what is missing; exit 1 if anything is")
    model = commands.add_parser("model", help="SmolLM2-135M's next token after TEXT, and its residual stream's RMS")
    model.add_argument("text", metavar="TEXT", help="the text the model reads")
    model.add_argument("--json", action="store_true", help="print one JSON object")
    args = parser.parse_args(argv)
    if args.command in (None, "report"):
        return show_report()
    if args.command == "model":
        return next_token(args.text, args.json)
    if args.command == "pages":
        return make_pages(args.check)
    from .pages import COURSE  # the exercises load with the studies that solve them: only when asked

    sys.stdout.write(answers_file(COURSE, solutions=args.command == "solutions"))
    return 0


def show_report() -> int:
    """The evidence report, after the word that it shows answers; on a terminal, once the reader says to go on."""
    print(report.WARNING, flush=True)
    if sys.stdin.isatty() and sys.stdout.isatty():
        try:
            input(report.GO_ON)
        except (EOFError, KeyboardInterrupt):
            print()
            return 130
    collected = evidence.collect()
    sys.stdout.write("\n" + report.render(collected))
    return 0 if collected.passed else 1


def book_pages(root: Path) -> list[Path]:
    """The book's pages in reading order, as ``root``'s ``_toc.yml`` lists them."""
    listed = re.findall(r"^\s*-?\s*(?:root|file):\s*(\S+)", (root / "_toc.yml").read_text(encoding="utf-8"), re.M)
    return [root / f"{page.removesuffix('.md')}.md" for page in listed]


def contents(book: list[Path]) -> str:
    """``pages/contents.txt`` as the book's order makes it: each page that has a module, one a line."""
    modules = (page.stem.replace("-", "_") for page in book)
    return "".join(f"{name}\n" for name in modules if (Path(__file__).parent / "pages" / f"{name}.py").is_file())


def make_pages(check: bool) -> int:
    """Each page's boxes made as they need (``predict_check.page_cells``), the book's order written into the package
    (``pages/contents.txt``), and the blank answers file written anew; run in the checkout (``make boxes``).

    With ``check``, nothing is written: what is missing is said, and the status is 1 if anything is.
    """
    book, root = book_pages(Path.cwd()), Path.cwd()
    order, listed = contents(book), Path(__file__).parent / "pages" / "contents.txt"
    stale = listed.read_text(encoding="utf-8") != order
    if not check:  # first, so that the course loaded below holds a new page's exercises too
        listed.write_text(order, encoding="utf-8")

    from predict_check import page_cells

    from .pages import COURSE

    template, blank = root / "exercises" / "answers.toml", answers_file(COURSE)
    said = page_cells.problems(COURSE, book)
    if template.read_text(encoding="utf-8") != blank:
        said.append(f"{template.name} is not the blank answers file the course's exercises make; run make boxes")
    if stale:
        said.append("pages/contents.txt is not the book's order of _toc.yml; run make boxes")
    if check:
        print("\n".join(said) or "every page, the book's order and the answers file are as the boxes need them")
        return 1 if said else 0
    changed = page_cells.make(book)
    if AnswerSheet.read(COURSE, template).answered():
        print(f"{template} holds answers, and is left as it is: move them to a file of their own", file=sys.stderr)
        return 1
    template.write_text(blank, encoding="utf-8")
    for problem in page_cells.problems(COURSE, book):
        print(problem, file=sys.stderr)
    print(f"made {len(changed)} page{'s' * (len(changed) != 1)}, the book's order and {template.name} as the boxes "
          "need them")  # fmt: skip
    return 0


def next_token(text: str, as_json: bool) -> int:
    """The model's tokens of ``text``, its top next tokens and the stream's RMS after each block; 1 if it cannot run."""
    try:
        prediction = real_model.predict(text)
    except RMSNormError as error:
        print(f"no prediction: {error}", file=sys.stderr)
        return 1
    if as_json:
        print(json.dumps(prediction.as_json()))
        return 0
    print(f"weights: {visible(str(prediction.weights))}")
    pairs = zip(prediction.token_ids, prediction.tokens)
    print("tokens: " + " ".join(f"{token_id}:'{visible(token)}'" for token_id, token in pairs))
    print("next token, top 5:")
    for token_id, token, p in zip(prediction.top, prediction.top_tokens, prediction.top_probabilities):
        print(f"  {p:8.4f}  {token_id:6d}  '{visible(token)}'")
    print("residual stream's RMS at the last token (0: after the embedding, n: after block n, read by the final norm)")
    print("\n".join(f"  {block:2d}  {value:10.4f}" for block, value in enumerate(prediction.residual_rms)))
    return 0


run = piped(main)


if __name__ == "__main__":
    sys.exit(run())
