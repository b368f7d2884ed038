"""RMSNorm's kernel against the formula, the copy limit, its peers and earlier kernels: ``make bench``.

One process, one thread. Every table times its contenders in interleaved rounds, so
a busy machine slows them alike, and prints ratios (with their range over the
rounds) beside the times:

1. The model-sized batches. Forward: the kernel (``perf/kernel.py``) into a new array
   and into ``out``, core's ``rms_norm`` (the reference), the formula as usually
   written, a numpy LayerNorm, a copy of x into a preallocated array (the limit),
   PyTorch when it is importable, and the kernel of each earlier commit named with
   ``--against`` (by default the commit before the kernel last changed, and d6ff2ee,
   the kernel before the busy-machine change), loaded from that commit's history into
   a temporary module. Backward: core's ``rms_norm_backward`` (no kernel blocks the
   backward) beside the same peers.
2. The block size: the 128 MiB batch with blocks from an eighth of one core's L2
   cache to four times it, against the size the kernel chose.
3. The size sweep, 4 KiB to 32 MiB in float32 and float64: the kernel against the
   formula at every size, and each earlier kernel beside it.
4. The targets, each [met] or [GAP] with its figure.
5. The regression check: today's kernel beside the kernel of ``REGRESSION_BASE``, a
   named earlier commit loaded the same way, case by case, as the time of one over
   the other's in the same rounds. ``--check`` runs only this and fails (exit 1) on a
   clear regression: a case more than ``SLOWER`` times the named kernel's time in each
   of ``TRIES`` tries. Nothing is compared with figures saved on another machine.

A kernel is read from where its commit kept it: ``KERNEL_PATHS``, today's first
(``src/rmsnorm_course/perf/kernel.py``), then the earlier one
(``src/rmsnorm_course/core/fastpath.py``). It runs beside today's package, its
relative imports resolved from the folder it lived in, and a module that has moved
since (``MOVED``) found at its new place.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import importlib.util
import os
import platform
import subprocess
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from types import ModuleType

import numpy as np

from rmsnorm_course import rms_norm, rms_norm_backward
from rmsnorm_course.core.format import binary_size
from rmsnorm_course.perf import caches as machine
from rmsnorm_course.perf import kernel as fastpath
from rmsnorm_course.perf import timings as cost
from rmsnorm_course.perf.timings import Spread, Timings, timings
from rmsnorm_course.studies.formulas import (
    layer_norm_formula,
    layer_norm_formula_backward,
    rms_norm_formula,
    rms_norm_formula_backward,
)

ROOT = Path(__file__).resolve().parents[1]
KERNEL_PATHS = {  # where a commit kept its kernel, today's place first: the package its relative imports start from
    "src/rmsnorm_course/perf/kernel.py": "rmsnorm_course.perf",
    "src/rmsnorm_course/core/fastpath.py": "rmsnorm_course.core",
}
MOVED = {"rmsnorm_course.core.machine": "rmsnorm_course.perf.caches"}  # an earlier kernel's import: where it is now
FASTEST_BEFORE = "d6ff2ee"  # the kernel before the busy-machine change (107c449), the fastest until then
REGRESSION_BASE = "7898fcb"  # the kernel before one arithmetic joined rms_norm and rms_norm_forward: the speed to keep
SLOWER = 1.25  # the regression check: a case fails when today's kernel takes more than this times the named one's...
TRIES = 5  # ...time in each of this many tries, each measured side by side in interleaved rounds
SHAPES = ((16, 128, 512), (4, 2048, 4096))  # the second: 128 MiB of float32, a model-sized batch beyond every cache
LARGE = SHAPES[-1]
DTYPES = (np.float32, np.float64)
EPS = 1e-5
MiB = 1024 * 1024

COPY = "copy into preallocated (limit)"
PACKAGE_OUT = "kernel (out=)"
PACKAGE = "kernel"
REFERENCE = "core rms_norm (reference)"
PACKAGE_BACKWARD = "core rms_norm_backward"
NAIVE = "naive formula"
ONE_PASS = "one numpy pass: x * 2 into out"  # the floor for any numpy code that writes y


# --- an earlier commit's kernel, side by side with today's --------------------------------


@dataclass(frozen=True)
class Kernel:
    """A kernel: today's, or one from the history, with its forward as its commit called it."""

    commit: str  # "" for today's
    module: ModuleType

    @property
    def name(self) -> str:
        return f"kernel at {self.commit}" if self.commit else "today's kernel"

    def forward(self, x: np.ndarray, gain: np.ndarray | None, eps: float, out: np.ndarray | None) -> np.ndarray:
        small = getattr(self.module, "rms_norm_small", None)  # 107c449 to 7898fcb's parent
        if out is None and small is not None:
            y = small(x, gain, eps)
            if y is not None:
                return y
        return self.module.rms_norm_blocked(x, gain, eps, out)


TODAYS_KERNEL = Kernel("", fastpath)


def git(*args: str) -> str:
    return subprocess.run(["git", *args], cwd=ROOT, capture_output=True, text=True, check=True).stdout.strip()


def commit_before_the_kernel_changed() -> str:
    """The commit before the last one that changed the kernel (at either of its places): the kernel today's replaced."""
    last = git("log", "-n", "1", "--format=%H", "--", *KERNEL_PATHS)
    return git("rev-parse", "--short", f"{last}^")


def kernel_source(commit: str) -> tuple[str, str]:
    """That commit's kernel: its path and its text, from the first of ``KERNEL_PATHS`` the commit holds."""
    held = set(git("ls-tree", "-r", "--name-only", commit, "--", *KERNEL_PATHS).splitlines())
    for path in KERNEL_PATHS:
        if path in held:
            return path, git("show", f"{commit}:{path}")
    raise FileNotFoundError(f"{commit} holds no kernel at {' or '.join(KERNEL_PATHS)}")


def load_kernel(commit: str) -> Kernel:
    """That commit's kernel as a temporary module beside today's package (its checks, errors and reference)."""
    path, source = kernel_source(commit)
    package = KERNEL_PATHS[path]
    name = f"{package}._kernel_{commit}"
    module = importlib.util.module_from_spec(importlib.util.spec_from_loader(name, loader=None))
    module.__package__ = package
    with moved_modules():
        exec(compile(source, f"{commit}:{path}", "exec"), module.__dict__)
    return Kernel(git("rev-parse", "--short", commit), module)


@contextlib.contextmanager
def moved_modules() -> Iterator[None]:
    """Each module in ``MOVED`` importable by its earlier name for a while, as what it is now."""
    added = [old for old in MOVED if old not in sys.modules]
    for old in added:
        sys.modules[old] = importlib.import_module(MOVED[old])
    try:
        yield
    finally:
        for old in added:
            del sys.modules[old]


def kernels_against(commits: list[str]) -> list[Kernel]:
    loaded: list[Kernel] = []
    for commit in dict.fromkeys(commits):
        try:
            kernel = load_kernel(commit)
        except (subprocess.CalledProcessError, FileNotFoundError, SyntaxError, ImportError) as error:
            print(f"(the kernel at {commit} could not be loaded, so it is left out: {error})")
            continue
        if all(kernel.commit != other.commit for other in loaded):
            loaded.append(kernel)
    return loaded


def peak_extra_bytes(run: Callable[[], object]) -> int:
    """Peak memory a run allocates beyond what it hands back (numpy reports to tracemalloc)."""
    tracemalloc.start()  # traces only what is allocated from here on
    try:
        result = run()
        kept, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del result
    return max(0, peak - kept)


# --- 1. the model-sized batches -----------------------------------------------------------


def load_torch():
    """PyTorch on one thread, or None: it is a peer to measure against, never a dependency."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def forward_runs(x, gain, bias, out, torch, kernels) -> dict[str, Callable[[], object]]:
    runs = {
        COPY: lambda: np.copyto(out, x),
        PACKAGE_OUT: lambda: TODAYS_KERNEL.forward(x, gain, EPS, out),
        PACKAGE: lambda: TODAYS_KERNEL.forward(x, gain, EPS, None),
        REFERENCE: lambda: rms_norm(x, gain, EPS),
        ONE_PASS: lambda: np.multiply(x, 2, out=out),
        NAIVE: lambda: rms_norm_formula(x, gain, EPS),
        "numpy LayerNorm": lambda: layer_norm_formula(x, gain, bias, EPS),
    }
    for kernel in kernels:
        runs[f"{kernel.name} (out=)"] = lambda k=kernel: k.forward(x, gain, EPS, out)
    if torch is not None:
        functional, width = torch.nn.functional, (x.shape[-1],)
        tx, tgain, tbias = (torch.from_numpy(a) for a in (x, gain, bias))
        runs["torch rms_norm"] = lambda: functional.rms_norm(tx, width, tgain, EPS)
        runs["torch layer_norm"] = lambda: functional.layer_norm(tx, width, tgain, tbias, EPS)
    return runs


def backward_runs(x, gain, bias, grad_output, out, torch) -> dict[str, Callable[[], object]]:
    runs = {
        COPY: lambda: np.copyto(out, x),
        PACKAGE_BACKWARD: lambda: rms_norm_backward(x, gain, EPS, grad_output),
        NAIVE: lambda: rms_norm_formula_backward(x, gain, EPS, grad_output),
        "numpy LayerNorm": lambda: layer_norm_formula_backward(x, gain, EPS, grad_output),
    }
    if torch is not None:
        functional, width = torch.nn.functional, (x.shape[-1],)
        tx = torch.from_numpy(x).requires_grad_()
        tgain, tbias = (torch.from_numpy(a).requires_grad_() for a in (gain, bias))
        tgrad = torch.from_numpy(grad_output)
        rms_out = functional.rms_norm(tx, width, tgain, EPS)
        layer_out = functional.layer_norm(tx, width, tgain, tbias, EPS)
        grad = torch.autograd.grad
        runs["torch rms_norm"] = lambda: grad(rms_out, (tx, tgain), tgrad, retain_graph=True)
        runs["torch layer_norm"] = lambda: grad(layer_out, (tx, tgain, tbias), tgrad, retain_graph=True)
    return runs


def print_case(title: str, measured: Timings, extra: dict[str, int | None], output_bytes: int) -> None:
    """Each contender's median, its ratio to the copy and the formula's ratio to it (ranges over the rounds)."""
    print(f"\n{title}   (output {output_bytes / MiB:.1f} MiB; ratios: median [lowest-highest round])")
    print(f"  {'implementation':34} {'median ms':>9} {'x copy':>18} {'formula / it':>18} {'peak extra':>20}")
    for name in measured.samples:
        memory = extra.get(name)
        memory = "n/a" if memory is None else f"{memory / MiB:.2f} MiB ({memory / output_bytes:.1%})"
        print(
            f"  {name:34} {measured.median(name) * 1e3:9.2f} {spread(measured.ratio(name, COPY)):>18}"
            f" {spread(measured.ratio(NAIVE, name)):>18} {memory:>20}"
        )


def spread(ratio: Spread) -> str:
    return f"{ratio.median:.2f} [{ratio.low:.2f}-{ratio.high:.2f}]"


def large_cases(targets: Targets, torch, kernels: list[Kernel], repeats: int) -> None:
    for shape in SHAPES:
        for dtype in DTYPES:
            rng = np.random.default_rng(0)
            x = rng.standard_normal(shape).astype(dtype)
            grad_output = rng.standard_normal(shape).astype(dtype)
            gain = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
            bias = rng.uniform(-0.5, 0.5, shape[-1]).astype(dtype)
            out = np.empty_like(x)
            rounds = repeats or (7 if shape == LARGE else 21)
            name = np.dtype(dtype).name
            own = (PACKAGE, REFERENCE, NAIVE, "numpy LayerNorm", PACKAGE_BACKWARD)

            runs = forward_runs(x, gain, bias, out, torch, kernels)
            forward = timings(runs, rounds, warmup=2)
            extra = {n: peak_extra_bytes(runs[n]) for n in own if n in runs}
            print_case(f"{shape} {name} forward", forward, extra, x.nbytes)
            memory = extra[PACKAGE] / x.nbytes
            runs = backward_runs(x, gain, bias, grad_output, out, torch)
            backward = timings(runs, rounds, warmup=2)
            extra = {n: peak_extra_bytes(runs[n]) for n in own if n in runs}
            print_case(f"{shape} {name} backward", backward, extra, x.nbytes + gain.nbytes)

            targets.at_most(f"{shape} {name} forward peak extra memory / output", 100 * memory, 5, unit="%")
            if shape == LARGE:
                for variant in (PACKAGE_OUT, PACKAGE):
                    targets.at_most(f"{shape} {name} {variant} / copy", forward.ratio(variant, COPY).median, 2.0)
                    targets.at_least(f"{shape} {name} formula / {variant}", forward.ratio(NAIVE, variant).median, 4.0)


# --- 2. the block size --------------------------------------------------------------------


def block_sweep(repeats: int) -> None:
    """The large float32 batch into out, with blocks of an eighth of one L2 cache to four, as ratios to a copy."""
    cache = machine.cache_bytes(2)
    rng = np.random.default_rng(0)
    x = rng.standard_normal(LARGE).astype(np.float32)
    gain = rng.uniform(0.5, 1.5, LARGE[-1]).astype(np.float32)
    out = np.empty_like(x)
    unit = cache or 2**20
    sizes = dict.fromkeys([unit // 8, unit // 4, unit // 3, unit // 2, unit, 2 * unit, 4 * unit, fastpath.BLOCK_BYTES])
    runs: dict[str, Callable[[], object]] = {COPY: lambda: np.copyto(out, x)}
    for size in sizes:
        runs[binary_size(size)] = lambda size=size: fastpath.rms_norm_blocked(x, gain, EPS, out, block_bytes=size)
    measured = timings(runs, repeats or 7, warmup=1)
    reported = f"{binary_size(cache)} L2 per core" if cache else "no L2 size reported"
    print(f"\nBlock size, {LARGE} float32 into out ({reported}; the kernel chose {binary_size(fastpath.BLOCK_BYTES)})")
    print(f"  {'block':>8} {'x copy':>18}")
    for size in sizes:
        chosen = "  <- chosen" if size == fastpath.BLOCK_BYTES else ""
        print(f"  {binary_size(size):>8} {spread(measured.ratio(binary_size(size), COPY)):>18}{chosen}")


# --- 3. the size sweep --------------------------------------------------------------------


def size_sweep(targets: Targets, kernels: list[Kernel], repeats: int) -> None:
    """The kernel against the formula as written at every size of the chapter's sweep, beside the earlier kernels."""
    for dtype in DTYPES:
        name = np.dtype(dtype).name
        print(f"\nSize sweep, {name}, rows of {cost.SWEEP_WIDTH}: time / formula's, median [lowest-highest round]")
        header = f"  {'size':>8} {'formula us':>11} {'kernel us':>12} {'kernel':>18} {'kernel (out=)':>18}"
        print(header + "".join(f" {kernel.name:>22}" for kernel in kernels))
        worst = (0.0, 0)
        for nbytes in cost.SWEEP_BYTES:
            measured = _sweep_size(dtype, nbytes, kernels, repeats or 15)
            line = f"  {binary_size(nbytes):>8} {measured.median(NAIVE) * 1e6:11.1f}"
            line += f" {measured.median(PACKAGE) * 1e6:12.1f}"
            line += "".join(f" {spread(measured.ratio(run, NAIVE)):>18}" for run in (PACKAGE, PACKAGE_OUT))
            line += "".join(f" {spread(measured.ratio(kernel.name, NAIVE)):>22}" for kernel in kernels)
            print(line)
            worst = max(worst, (measured.ratio(PACKAGE, NAIVE).median, nbytes))
        what = f"{name} kernel / formula, worst size of 4 KiB..32 MiB ({binary_size(worst[1])})"
        targets.at_most(what, worst[0], 1.1)


def _sweep_size(dtype, nbytes: int, kernels: list[Kernel], repeats: int) -> Timings:
    elements = nbytes // np.dtype(dtype).itemsize
    shape = (max(1, elements // cost.SWEEP_WIDTH), min(cost.SWEEP_WIDTH, elements))
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    gain = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
    out = np.empty_like(x)
    runs = {
        NAIVE: lambda: rms_norm_formula(x, gain, EPS),
        PACKAGE: lambda: TODAYS_KERNEL.forward(x, gain, EPS, None),
        PACKAGE_OUT: lambda: TODAYS_KERNEL.forward(x, gain, EPS, out),
    }
    for kernel in kernels:
        runs[kernel.name] = lambda k=kernel: k.forward(x, gain, EPS, None)
    return timings(runs, repeats, warmup=2, number=max(1, cost.SAMPLE_BYTES // x.nbytes))


# --- 4. the targets -----------------------------------------------------------------------


class Targets:
    """Each target from the issue, with the figure measured and met or the gap."""

    def __init__(self):
        self.lines: list[str] = []

    def at_most(self, what: str, value: float, limit: float, unit: str = "x") -> None:
        met = value <= limit
        gap = "met" if met else f"gap: {value / limit:.2f}x over"
        self.lines.append(f"  [{'met' if met else 'GAP'}] {what}: {value:.2f}{unit} (target <= {limit}{unit}; {gap})")

    def at_least(self, what: str, value: float, limit: float, unit: str = "x") -> None:
        met = value >= limit
        gap = "met" if met else f"gap: {limit / value:.2f}x short"
        self.lines.append(f"  [{'met' if met else 'GAP'}] {what}: {value:.2f}{unit} (target >= {limit}{unit}; {gap})")

    def print(self) -> None:
        print("\nTargets (single-threaded numpy; 'within 10%' of the formula allows for noise)")
        print("\n".join(self.lines))


# --- 5. the regression check ---------------------------------------------------------------

TODAY, NAMED = "today", "named"


@dataclass(frozen=True)
class Case:
    """One call, made by today's kernel and by the named one on the same arrays."""

    name: str
    today: Callable[[], object]
    named: Callable[[], object]
    number: int = 1  # calls per timed sample, so that a call of microseconds is timed over a span


def regression_cases(kernel: Kernel) -> list[Case]:
    """Where a kernel has gone wrong before: a model-sized batch into out, and two cache-sized inputs."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal(LARGE).astype(np.float32)
    gain, out = rng.uniform(0.5, 1.5, LARGE[-1]).astype(np.float32), np.empty_like(x)
    cases = [
        Case("128 MiB float32 forward into out", partial(TODAYS_KERNEL.forward, x, gain, EPS, out),
             partial(kernel.forward, x, gain, EPS, out)),
    ]  # fmt: skip
    for nbytes, dtype, rows in ((2**20, np.float64, 128), (4096, np.float32, 1)):
        small = rng.standard_normal((rows, nbytes // rows // np.dtype(dtype).itemsize)).astype(dtype)
        small_gain = rng.uniform(0.5, 1.5, small.shape[-1]).astype(dtype)
        name = f"{binary_size(nbytes)} {np.dtype(dtype).name}, rows of {small.shape[-1]}, forward"
        today, named = (partial(k.forward, small, small_gain, EPS, None) for k in (TODAYS_KERNEL, kernel))
        cases.append(Case(name, today, named, cost.SAMPLE_BYTES // nbytes))
    return cases


def regression(kernel: Kernel, repeats: int, tries: int = TRIES) -> list[str]:
    """Each case's time with today's kernel over its time with ``kernel``, try by try; the cases that regressed.

    A case regressed when it was more than ``SLOWER`` times the named kernel's time in
    every one of ``tries`` tries (a burst of load on a shared machine slows one try, not
    all of them); a case stops being tried once one try is within that.
    """
    cases = regression_cases(kernel)
    ratios: dict[str, list[Spread]] = {case.name: [] for case in cases}
    pending = list(cases)
    for _ in range(tries):
        for case in pending:
            measured = timings({TODAY: case.today, NAMED: case.named}, repeats, warmup=1, number=case.number)
            ratios[case.name].append(measured.ratio(TODAY, NAMED))
        pending = [case for case in pending if ratios[case.name][-1].median > SLOWER]
        if not pending:
            break
    print(f"\nRegression check: today's kernel against {kernel.name}, side by side in each round")
    print(f"  (time today / time then, median [lowest-highest round], per try; a case fails when it is over {SLOWER}")
    print(f"  in each of {tries} tries)")
    for case in cases:
        verdict = "REGRESSED" if case in pending else "ok"
        print(f"  {case.name:44} [{verdict}] " + "  ".join(spread(ratio) for ratio in ratios[case.name]))
    return [case.name for case in pending]


def check(commit: str, repeats: int) -> int:
    """``--check``: the regression check alone; 1 on a clear regression, else 0 (with a word when nothing was timed)."""
    kernels = kernels_against([commit])
    if not kernels:
        print(f"The regression check timed nothing: the kernel at {commit} could not be loaded from git history.")
        return 0
    regressed = regression(kernels[0], repeats or 7)
    if regressed:
        print(f"Slower than the kernel at {kernels[0].commit} in every try: " + "; ".join(regressed))
    return 1 if regressed else 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=0, help="rounds per table (default: 7 large, 15 to 21 small)")
    parser.add_argument("--against", nargs="*", default=None, help="earlier commits whose kernel to time beside")
    parser.add_argument("--named", default=REGRESSION_BASE, help="the commit whose kernel the regression check holds")
    parser.add_argument("--check", action="store_true", help="only the regression check: exit 1 on a clear regression")
    args = parser.parse_args(argv)
    if args.check:
        return check(args.named, args.repeats)
    torch = load_torch()
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    print(f"numpy {np.__version__}, python {platform.python_version()}, {platform.machine()}, {os.cpu_count()} CPUs")
    print(f"torch {torch.__version__ + ' (1 thread)' if torch else 'not installed: its rows are left out'}")
    cache, block = binary_size(machine.cache_bytes(2) or 0), binary_size(fastpath.BLOCK_BYTES)
    print(f"threads {threads}; L2 per core {cache}, the kernel's block {block}")
    try:
        commits = args.against if args.against is not None else [commit_before_the_kernel_changed(), FASTEST_BEFORE]
    except (subprocess.CalledProcessError, FileNotFoundError):
        commits = []
        print("(no git history here, so no earlier kernel is timed)")
    kernels = kernels_against(commits)
    print("earlier kernels: " + (", ".join(kernel.commit for kernel in kernels) or "none"))

    targets = Targets()
    large_cases(targets, torch, kernels, args.repeats)
    block_sweep(args.repeats)
    size_sweep(targets, kernels, args.repeats)
    targets.print()
    named = kernels_against([args.named])
    if named:
        regression(named[0], args.repeats or 7)
    else:
        print(f"\n(the kernel at {args.named} could not be loaded, so there is no regression check)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
