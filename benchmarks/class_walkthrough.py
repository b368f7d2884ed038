"""A class of 30 graded end to end as a teacher does it, from an LMS's download to the files to import and send.

The class is the one a teacher meets: blank and partial files, the usual slips
(some carried on to the exercises that follow), five files downloaded from the book
with their first tries, four badly typed ones (Word's quotes, a letter without
quotes, a quote never closed, a file saved as Windows-1252), every file named as
Canvas names a bulk download (two marked late). It is graded with
``make grade-class DIR=... PATTERN=canvas TITLE=... NOTE=...``; the script prints the
time, the summary, what was written, and one student's page as it would be sent.

    python benchmarks/class_walkthrough.py [OUT]    # OUT: where to keep the outputs (default: a temporary folder)
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from predict_check.sheets import answers_file  # noqa: E402
from rmsnorm_course.questions import COURSE  # noqa: E402

SOLUTIONS = answers_file(COURSE, solutions=True)
SURNAMES = "garcia lee okafor novak silva kim rossi haddad ito muller dubois jensen ali costa"
FIRSTS = "ana ben chloe dev eva finn gia hugo iris jon kai lena mo nia omar pia quinn rui sara tom"


def with_answer(text: str, exercise_id: str, value: str) -> str:
    return re.sub(rf"^{exercise_id} = .*$", lambda _: f"{exercise_id} = {value}", text, count=1, flags=re.M)


def slips(text: str, n: int) -> str:
    """The usual slips: the sum for the mean (carried on to what follows), one for the plateau, a length for x-hat."""
    if n % 2 == 0:
        text = with_answer(text, "mean-square", "25")
        text = with_answer(text, "reciprocal-rms", "0.2")  # follows from 25
    if n % 3 == 0:
        text = with_answer(text, "plateau-value", "1")
    if n % 4 == 1:
        text = with_answer(text, "normalized", "[0.6, 0.8]")
        text = with_answer(text, "output", "[0.9, 0.4]")  # follows from [0.6, 0.8]
    if n % 5 == 2:
        text = with_answer(text, "float16-formula-row", "[inf, inf]")
    return with_answer(text, "grad-x", "[0.4, -0.3]")


def downloaded(n: int, name: str, student_id: str) -> str:
    """A file as the book's download writes it: name, id, the answers, the first tries, the answers shown first."""
    text = f'name = "{name}"\nid = "{student_id}"\n' + slips(SOLUTIONS, n)
    firsts = {"mean-square": '"25"', "reciprocal-rms": '"0.282843"', "normalized": '"[0.6, 0.8]"'}
    text += "\n[first-tries]\n" + "".join(f"{key} = {value}\n" for key, value in firsts.items())
    return text + "\n[shown-before-first-try]\nplateau-value = true\n"


def make_class(folder: Path) -> list[str]:
    folder.mkdir(parents=True, exist_ok=True)
    surnames, firsts = SURNAMES.split(), FIRSTS.split()
    kinds = ["blank"] * 4 + ["partial"] * 4 + ["slips"] * 10 + ["book"] * 5 + ["typed"] * 4 + ["right"] * 3
    names = []
    partial = "\n".join(SOLUTIONS.splitlines()[: SOLUTIONS.index("tiny-normalized") // 60])
    for n, kind in enumerate(kinds):
        name = f"{surnames[n % len(surnames)]}{firsts[n % len(firsts)]}"
        late = "LATE_" if n in (9, 21) else ""
        path = folder / f"{name}_{late}{1001 + n}_{50001 + n}_answers{'-1' if n == 5 else ''}.toml"
        data: bytes
        if kind == "blank":
            data = answers_file(COURSE).encode()
        elif kind == "partial":
            data = (partial + "\n").encode()
        elif kind == "slips":
            data = slips(SOLUTIONS, n).encode()
        elif kind == "book":
            full = f"{firsts[n % len(firsts)].title()} {surnames[n % len(surnames)].title()}"
            data = downloaded(n, full, str(1001 + n)).encode()
        elif kind == "right":
            data = SOLUTIONS.encode()
        else:
            data = badly_typed(n % 4)
        path.write_bytes(data)
        names.append(path.name)
    return names


def badly_typed(which: int) -> bytes:
    letter = re.search(r'^zero-row-zero-eps = "([A-Z])"$', SOLUTIONS, re.M).group(1)
    if which == 0:  # Word's quotes on every choice
        return re.sub(r'= "([A-Z])"', lambda m: f"= \u201c{m.group(1)}\u201d", SOLUTIONS).encode()
    if which == 1:  # a letter without quotes
        return with_answer(SOLUTIONS, "zero-row-zero-eps", letter).encode()
    if which == 2:  # a quote never closed
        return with_answer(slips(SOLUTIONS, 3), "zero-row-zero-eps", f'"{letter}').encode()
    return ("# r\u00e9ponses de l'\u00e9tudiant\n" + slips(SOLUTIONS, 7)).encode("cp1252")  # saved as Windows-1252


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out", nargs="?", type=Path, help="keep the outputs here (default: a temporary folder)")
    args = parser.parse_args(argv)
    base = args.out or Path(tempfile.mkdtemp(prefix="class-walkthrough-"))
    submissions = base / "submissions"
    names = make_class(submissions)
    note = base / "note.txt"
    note.write_text("Well done on reaching the end of the chapter.\n\nRevisit the first item on your list before "
                    "Thursday's session.\n", encoding="utf-8")  # fmt: skip
    command = [
        "make", "--no-print-directory", "-C", str(ROOT), "grade-class", f"DIR={submissions}", f"OUT={base / 'grades'}",
        "PATTERN=canvas", "TITLE=RMSNorm chapter, spring term", f"NOTE={note}",
    ]  # fmt: skip
    start = time.perf_counter()
    run = subprocess.run(command, capture_output=True, text=True, check=False)
    took = time.perf_counter() - start
    print(f"{len(names)} files in {submissions}, such as {names[0]}")
    print(f"make grade-class: exit {run.returncode}, {took:.1f} s")
    print(run.stderr.strip())
    print(run.stdout[run.stdout.find("graded ") :])  # after the command make echoes
    grades = base / "grades"
    for path in sorted(grades.iterdir()):
        size = sum(p.stat().st_size for p in path.rglob("*")) if path.is_dir() else path.stat().st_size
        count = f", {len(list(path.iterdir()))} files" if path.is_dir() else ""
        print(f"wrote {path.relative_to(base)}: {size / 1024:.0f} KiB{count}")
    page = next(path for path in sorted((grades / "feedback").glob("*.txt")) if path.name != "index.txt")
    pages = sorted((grades / "feedback").glob("[0-9]*.txt"))
    page = pages[min(8, len(pages) - 1)]
    print(f"\n--- {page.relative_to(base)}, {len(page.read_text(encoding='utf-8').split())} words ---")
    print(page.read_text(encoding="utf-8"))
    print(f"figure: {grades / 'grades.png'}; exercises in the chapter: {len(COURSE.exercises)}")
    return run.returncode


if __name__ == "__main__":
    raise SystemExit(main())
