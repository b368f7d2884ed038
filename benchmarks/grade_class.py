"""A class graded in one run against one grader run per file: ``make bench``.

Writes the seeded class of the gradebook's tests (300 answer files of known scores,
a few of them hostile) to a temporary folder, then times, end to end as an
instructor runs them:

- ``python -m classroom grade FOLDER --out ...``, one process for the whole class
  (the median of a few runs), checked against the known scores;
- ``python -m pytest exercises --answers FILE`` for the first files, one process each,
  as the README's loop did; the total for the class is that mean times the class size.
"""

from __future__ import annotations

import argparse
import csv
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests"))  # the seeded class is defined once, beside the tests that grade it

from submissions import generate_class, write_class  # noqa: E402

TARGET_SECONDS = 10.0


def seconds(command: list[str]) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=ROOT, check=False, capture_output=True)
    return time.perf_counter() - start


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=300, help="answer files in the class (default 300)")
    parser.add_argument("--loop", type=int, default=20, help="files graded one process each (default 20)")
    parser.add_argument("--repeats", type=int, default=3, help="runs of the one-run command (default 3)")
    args = parser.parse_args(argv)
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        submissions = generate_class(args.files)
        paths = write_class(root / "submissions", submissions)
        gradebook = root / "out" / "grades.csv"
        one_run = [sys.executable, "-m", "classroom", "grade", str(root / "submissions"), "--out", str(root / "out")]
        runs = [seconds(one_run) for _ in range(args.repeats)]
        with gradebook.open(encoding="utf-8") as file:
            scores = {Path(row["file"]).name: int(row["points"]) for row in csv.DictReader(file)}
        known = {submission.name: submission.score for submission in submissions}
        one = statistics.median(runs)
        print(f"one run, {args.files} files, CSVs + PNG + feedback pages: {one:.2f} s (median of {args.repeats})")
        print(f"  scores match the known scores: {scores == known}")

        loop = [sys.executable, "-m", "pytest", str(ROOT / "exercises"), "-q", "-p", "no:cacheprovider"]
        each = [seconds([*loop, "--answers", str(path)]) for path in paths[: args.loop]]
        per_file = statistics.mean(each)
        print(
            f"one pytest run per file, {args.loop} files: {per_file:.2f} s each; "
            f"for {args.files} files {per_file * args.files:.0f} s (extrapolated)"
        )
        print(f"one run is {per_file * args.files / one:.0f} times faster than the loop")
        met = one < TARGET_SECONDS and scores == known
        verdict = "met" if met else "NOT MET"
        print(f"target: {args.files} files in one run under {TARGET_SECONDS:g} s, scores exact: {verdict}")
    return 0 if met else 1


if __name__ == "__main__":
    raise SystemExit(main())
