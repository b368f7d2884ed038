"""RMSNorm forward and backward against its peers and the copy limit: ``make bench``.

One process, one thread. For every shape and dtype it times the package, the
formula as usually written, a numpy LayerNorm, a copy of x into a preallocated
array (the limit) and, when torch is importable, PyTorch's rms_norm and
layer_norm. It prints medians, ratios to the copy and peak extra memory, then
each target with the measured figure and whether it is met.
"""

from __future__ import annotations

import argparse
import os
import platform
from collections.abc import Callable

import numpy as np

from rmsnorm_course import rms_norm, rms_norm_backward
from rmsnorm_course.core.format import binary_size
from rmsnorm_course.studies import cost
from rmsnorm_course.studies.cost import (
    layer_norm_formula,
    layer_norm_formula_backward,
    median_seconds,
    peak_extra_bytes,
    rms_norm_formula,
    rms_norm_formula_backward,
)

SHAPES = ((16, 128, 512), (4, 2048, 4096))
LARGE = SHAPES[-1]
DTYPES = (np.float32, np.float64)
EPS = 1e-5
MiB = 1024 * 1024

COPY = "copy into preallocated (limit)"
PACKAGE_OUT = "package rms_norm(out=)"
PACKAGE = "package rms_norm"
PACKAGE_BACKWARD = "package rms_norm_backward"
NAIVE = "naive formula"
ONE_PASS = "one numpy pass: x * 2 into out"  # the floor for any numpy code that writes y


def load_torch():
    """PyTorch on one thread, or None: it is a peer to measure against, never a dependency."""
    try:
        import torch
    except ImportError:
        return None
    torch.set_num_threads(1)
    return torch


def forward_runs(x, gain, bias, out, torch) -> dict[str, Callable[[], object]]:
    runs = {
        COPY: lambda: np.copyto(out, x),
        PACKAGE_OUT: lambda: rms_norm(x, gain, EPS, out=out),
        PACKAGE: lambda: rms_norm(x, gain, EPS),
        ONE_PASS: lambda: np.multiply(x, 2, out=out),
        NAIVE: lambda: rms_norm_formula(x, gain, EPS),
        "numpy LayerNorm": lambda: layer_norm_formula(x, gain, bias, EPS),
    }
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


def measure(runs, repeats, torch_names) -> dict[str, tuple[float, int | None]]:
    """Median seconds and peak extra bytes (None where tracemalloc cannot see the allocator)."""
    seconds = median_seconds(runs, repeats=repeats, warmup=2)
    return {name: (seconds[name], None if name in torch_names else peak_extra_bytes(run)) for name, run in runs.items()}


def print_case(title, results, output_bytes):
    copy = results[COPY][0]
    print(f"\n{title}   (output {output_bytes / MiB:.1f} MiB)")
    print(f"  {'implementation':32} {'median ms':>10} {'x copy':>8} {'peak extra':>24}")
    for name, (seconds, extra) in results.items():
        memory = "n/a (own allocator)" if extra is None else f"{extra / MiB:.2f} MiB ({extra / output_bytes:.1%})"
        print(f"  {name:32} {seconds * 1e3:10.2f} {seconds / copy:8.2f} {memory:>24}")


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
        print("\nTargets (2-core machine, single-threaded numpy)")
        print("\n".join(self.lines))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=0, help="repeats per timing (default: 21 small, 7 large)")
    args = parser.parse_args(argv)
    torch = load_torch()
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    print(f"numpy {np.__version__}, python {platform.python_version()}, {platform.machine()}")
    print(f"torch {torch.__version__ + ' (1 thread)' if torch else 'not installed: its rows are left out'}")
    print(f"threads {threads}, {os.cpu_count()} CPUs; medians of interleaved repeats after 2 warm-ups")

    targets = Targets()
    for shape in SHAPES:
        for dtype in DTYPES:
            rng = np.random.default_rng(0)
            x = rng.standard_normal(shape).astype(dtype)
            grad_output = rng.standard_normal(shape).astype(dtype)
            gain = rng.uniform(0.5, 1.5, shape[-1]).astype(dtype)
            bias = rng.uniform(-0.5, 0.5, shape[-1]).astype(dtype)
            out = np.empty_like(x)
            repeats = args.repeats or (7 if shape == LARGE else 21)
            torch_names = {"torch rms_norm", "torch layer_norm"}
            name = np.dtype(dtype).name

            forward = measure(forward_runs(x, gain, bias, out, torch), repeats, torch_names)
            print_case(f"{shape} {name} forward", forward, x.nbytes)
            backward = measure(backward_runs(x, gain, bias, grad_output, out, torch), repeats, torch_names)
            print_case(f"{shape} {name} backward", backward, x.nbytes + gain.nbytes)

            copy = forward[COPY][0]
            extra = forward[PACKAGE][1] / x.nbytes
            targets.at_most(f"{shape} {name} forward peak extra memory / output", 100 * extra, 5, unit="%")
            if shape == LARGE:
                for variant in (PACKAGE_OUT, PACKAGE):
                    seconds = forward[variant][0]
                    targets.at_most(f"{shape} {name} forward {variant} / copy", seconds / copy, 2.0)
                    targets.at_least(f"{shape} {name} naive formula / {variant}", forward[NAIVE][0] / seconds, 4.0)
                ratio = backward[PACKAGE_BACKWARD][0] / forward[PACKAGE][0]
                targets.at_most(f"{shape} {name} backward / forward (package, both allocating)", ratio, 2.5)
    print_sweeps(targets)
    targets.print()
    return 0


def print_sweeps(targets: Targets) -> None:
    """rms_norm against the formula as written at every size of the chapter's sweep, in both dtypes."""
    for dtype in DTYPES:
        name = np.dtype(dtype).name
        sweep = cost.size_sweep(dtype, repeats=15)
        ratios = 1 / sweep.speedup(cost.PACKAGE)
        print(f"\nrms_norm / formula, {name}, width {cost.SWEEP_WIDTH} (medians of 15 samples of >= 1 MiB each)")
        print(f"  {'size':>8} {'rms_norm us':>12} {'formula us':>11} {'ratio':>6}")
        for nbytes, package, formula, ratio in zip(
            sweep.nbytes, sweep.seconds[cost.PACKAGE], sweep.seconds[cost.FORMULA], ratios
        ):
            print(f"  {binary_size(nbytes):>8} {package * 1e6:12.1f} {formula * 1e6:11.1f} {ratio:6.2f}")
        worst = int(np.argmax(ratios))
        targets.at_most(
            f"{name} rms_norm / formula, worst size of 4 KiB..32 MiB ({binary_size(sweep.nbytes[worst])})",
            float(ratios[worst]),
            1.0,
        )


if __name__ == "__main__":
    raise SystemExit(main())
