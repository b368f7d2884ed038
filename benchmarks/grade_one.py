"""One student's ``make grade``, with the answer key kept: ``make bench``.

The answer key is computed once per version of the package and kept
(``grading.key``); a student grading their file again pays only for starting
pytest and reading the file. This times ``make grade ANSWERS=FILE`` end to end on the
reference answers (every exercise judged), after one run has kept the key, and
reports the median against the target.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
TARGET_SECONDS = 2.0


def seconds(command: list[str], environment: dict[str, str]) -> tuple[float, str]:
    start = time.perf_counter()
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, env=environment, check=False)
    return time.perf_counter() - start, run.stdout.strip().splitlines()[-1] if run.stdout.strip() else ""


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5, help="timed runs (default 5)")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as folder:
        answers = Path(folder) / "answers.toml"
        solutions = subprocess.run(
            [sys.executable, "-m", "rmsnorm_course", "solutions"], capture_output=True, text=True, check=True
        )
        answers.write_text(solutions.stdout, encoding="utf-8")
        environment = dict(os.environ, RMSNORM_COURSE_CACHE=str(Path(folder) / "cache"))
        make = ["make", "--no-print-directory", "grade", f"ANSWERS={answers}"]
        cold, _ = seconds(make, environment)
        runs = [seconds(make, environment) for _ in range(args.repeats)]
        pytest_only = [sys.executable, "-P", "-m", "pytest", "exercises", f"--answers={answers}", "-q"]
        direct = statistics.median(seconds(pytest_only, environment)[0] for _ in range(args.repeats))
    warm = statistics.median(time for time, _ in runs)
    score = runs[-1][1]
    print(f"python {sys.version.split()[0]}, {os.cpu_count()} CPUs")
    print(f"make grade, one file, answer key not yet kept: {cold:.2f} s ({score})")
    print(f"make grade, one file, answer key kept: {warm:.2f} s (median of {args.repeats})")
    print(f"  pytest exercises alone: {direct:.2f} s")
    met = warm <= TARGET_SECONDS
    print(f"[{'met' if met else 'GAP'}] one student's make grade within {TARGET_SECONDS:g} s with the key kept")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
