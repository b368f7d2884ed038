"""The tape: each primitive against central differences, RMSNorm on it against the closed form, its boundaries."""

from __future__ import annotations

import sys

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from rmsnorm_course import rms_norm, rms_norm_backward, rms_norm_forward
from rmsnorm_course.core import errors
from rmsnorm_course.core.gradcheck import numeric_gradient
from rmsnorm_course.core.tape import Tensor, tape_rms_norm, tape_rms_norm_gradients

PROPERTY = settings(max_examples=60, deadline=None, derandomize=True)


def random_case(shape: tuple[int, ...], seed: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    return rng.normal(size=shape), rng.normal(size=shape[-1]), rng.normal(size=shape)


def assert_matches_closed_form(x, gain, eps, upstream, rtol=1e-12):
    """Tape and closed form agree to ``rtol`` of the size of the terms that make up each gradient.

    grad_x = r * (u*g - x-hat * mean(u*g*x-hat)) can cancel to almost nothing (always
    for width one), so its yardstick is max |r * u * g|, not max |grad_x|.
    """
    tape_x, tape_gain = tape_rms_norm_gradients(x, gain, eps, upstream)
    closed_x, closed_gain = rms_norm_backward(x, gain, eps, upstream)
    assert tape_x.shape == closed_x.shape and tape_gain.shape == closed_gain.shape
    terms_x = np.max(np.abs(rms_norm_forward(x, gain, eps).inverse_rms * upstream * gain), initial=0.0)
    assert np.max(np.abs(tape_x - closed_x), initial=0.0) <= rtol * max(terms_x, np.max(np.abs(closed_x), initial=0.0))
    assert np.max(np.abs(tape_gain - closed_gain), initial=0.0) <= rtol * np.max(np.abs(closed_gain), initial=0.0)


# --- RMSNorm on the tape against the closed form --------------------------------------------------

SHAPES = [(7,), (4, 5), (2, 3, 8), (3, 1), (2, 4, 1), (0, 4), (2, 0, 3), (1, 1, 64)]


@pytest.mark.parametrize("shape", SHAPES, ids=str)
@pytest.mark.parametrize("eps", [0.0, 1e-5, 1e-2])
def test_tape_gradients_equal_the_closed_form(shape, eps):
    x, gain, upstream = random_case(shape, seed=len(shape) * 100 + shape[-1])
    assert_matches_closed_form(x, gain, eps, upstream)


def test_zero_sized_batch_gives_zero_gain_gradient_of_width_d():
    grad_x, grad_gain = tape_rms_norm_gradients(np.zeros((0, 3)), [1.0, 2.0, 3.0], 1e-5, np.zeros((0, 3)))
    assert grad_x.shape == (0, 3)
    assert np.array_equal(grad_gain, np.zeros(3))


def test_seed_fixture_stages_and_gradients():
    f = tape_rms_norm([3.0, 4.0], [1.5, 0.5], 1e-5)
    np.testing.assert_allclose(f.mean_square.value, [12.5], rtol=1e-15)
    np.testing.assert_allclose(f.inverse_rms.value, [1 / np.sqrt(12.50001)], rtol=1e-14)
    np.testing.assert_allclose(f.normalized.value, np.array([3.0, 4.0]) / np.sqrt(12.50001), rtol=1e-14)
    np.testing.assert_allclose(f.output.value, [1.5 * 3 / np.sqrt(12.50001), 0.5 * 4 / np.sqrt(12.50001)], rtol=1e-14)
    grad_x, grad_gain = tape_rms_norm_gradients([3.0, 4.0], [1.5, 0.5], 1e-5, [1.0, -2.0])
    np.testing.assert_allclose(grad_x, [0.407293, -0.305470], atol=1e-6)
    np.testing.assert_allclose(grad_gain, [0.848528, -2.262741], atol=1e-6)


def test_tape_records_the_stages_in_the_documented_order():
    order = tape_rms_norm([3.0, 4.0], [1.5, 0.5], 1e-5).output.topological_order()
    assert [node.op for node in order if node.op] == ["*", "mean", "+", "log", "*", "exp", "*", "*"]


def test_gain_none_means_ones():
    x, _, upstream = random_case((3, 4), seed=5)
    assert np.array_equal(tape_rms_norm(x, None).output.value, tape_rms_norm(x, np.ones(4)).output.value)
    without, with_ones = (
        tape_rms_norm_gradients(x, None, 1e-5, upstream),
        tape_rms_norm_gradients(x, np.ones(4), 1e-5, upstream),
    )
    assert all(np.array_equal(a, b) for a, b in zip(without, with_ones))
    assert without[1].shape == (4,)


@pytest.mark.parametrize("dtype", [np.float16, np.float32, np.int64, np.bool_])
def test_precision_policy_matches_the_reference(dtype):
    x = np.array([[3, 4], [1, 2]]).astype(dtype)
    upstream = np.array([[1.0, -2.0], [0.5, 0.25]])
    tape = tape_rms_norm_gradients(x, [1.5, 0.5], 1e-5, upstream)
    closed = rms_norm_backward(x, [1.5, 0.5], 1e-5, upstream)
    for got, want in zip(tape, closed):
        assert got.dtype == want.dtype
        np.testing.assert_allclose(got, want, rtol=np.finfo(want.dtype).eps * 8)


def test_callers_arrays_are_not_modified():
    x, gain, upstream = random_case((2, 3), seed=9)
    copies = [a.copy() for a in (x, gain, upstream)]
    tape_rms_norm_gradients(x, gain, 1e-5, upstream)
    assert all(np.array_equal(a, b) for a, b in zip((x, gain, upstream), copies))


# --- each primitive against central differences ---------------------------------------------------


def tape_and_numeric(build, *operands: np.ndarray, seed: int = 0):
    """Tape gradients of sum(G * build(...)) for a fixed random G, and their central differences."""
    leaves = [Tensor(a) for a in operands]
    out = build(*leaves)
    weights = np.random.default_rng(seed).normal(size=out.value.shape)
    out.backward(weights)
    numeric = []
    for i in range(len(operands)):

        def loss(probe, i=i):
            args = [Tensor(probe) if j == i else Tensor(a) for j, a in enumerate(operands)]
            return float(np.sum(weights * build(*args).value))

        numeric.append(numeric_gradient(loss, operands[i]))
    return [leaf.grad for leaf in leaves], numeric


rng = np.random.default_rng(2024)
PRIMITIVES = {
    "add": (lambda a, b: a + b, rng.normal(size=(3, 4)), rng.normal(size=(3, 4))),
    "add broadcast": (lambda a, b: a + b, rng.normal(size=(3, 1, 4)), rng.normal(size=(2, 4))),
    "add constant": (lambda a: 2.5 + a, rng.normal(size=(2, 3))),
    "mul": (lambda a, b: a * b, rng.normal(size=(3, 4)), rng.normal(size=(3, 4))),
    "mul broadcast": (lambda a, b: a * b, rng.normal(size=(4, 1)), rng.normal(size=(1, 5))),
    "mul row": (lambda a, b: a * b, rng.normal(size=(2, 3)), rng.normal(size=(3,))),
    "mul constant": (lambda a: -0.5 * a, rng.normal(size=(2, 3))),
    "square": (lambda a: a * a, rng.normal(size=(2, 3))),
    "mean last kept": (lambda a: a.mean(axis=-1), rng.normal(size=(2, 3, 4))),
    "mean first kept": (lambda a: a.mean(axis=0), rng.normal(size=(3, 4))),
    "mean dropped": (lambda a: a.mean(axis=1, keepdims=False), rng.normal(size=(2, 5, 3))),
    "log": (lambda a: a.log(), rng.uniform(0.5, 3.0, size=(2, 3))),
    "exp": (lambda a: a.exp(), rng.normal(size=(2, 3))),
}


@pytest.mark.parametrize("name", PRIMITIVES)
def test_primitive_gradient_against_central_differences(name):
    build, *operands = PRIMITIVES[name]
    tape, numeric = tape_and_numeric(build, *operands)
    for got, want, operand in zip(tape, numeric, operands):
        assert got.shape == operand.shape
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-8)


# --- accumulation into reused nodes ---------------------------------------------------------------


def test_reused_leaf_collects_both_uses():
    x = np.array([3.0, -4.0, 0.5])
    leaf = Tensor(x)
    (leaf * leaf).backward(np.ones(3))
    assert np.array_equal(leaf.grad, 2 * x)


def test_reused_intermediate_passes_on_its_total_once():
    x = np.array([1.0, -2.0, 0.25])
    leaf = Tensor(x)
    a = leaf * 3.0
    (a * a + a).backward(np.ones(3))  # d/dx (9x^2 + 3x) = 18x + 3
    np.testing.assert_allclose(leaf.grad, 18 * x + 3, rtol=1e-15)
    np.testing.assert_allclose(a.grad, 2 * (3 * x) + 1, rtol=1e-15)


def test_gradients_accumulate_across_backward_calls():
    leaf = Tensor([2.0])
    out = leaf * leaf + leaf
    out.backward()
    out.backward()
    assert np.array_equal(leaf.grad, [2 * (2 * 2.0 + 1)])


def test_single_element_output_needs_no_upstream():
    leaf = Tensor(np.array([[1.0, 2.0, 3.0]]))
    leaf.mean(axis=-1).mean(axis=0).backward()  # shape (1, 1)
    np.testing.assert_allclose(leaf.grad, np.full((1, 3), 1 / 3), rtol=1e-15)


def test_a_chain_longer_than_the_recursion_limit():
    leaf = Tensor(2.0)
    out = leaf
    for step in range(5000):
        out = out * 1.0001 if step % 2 else out + 0.5
    assert len(out.topological_order()) > sys.getrecursionlimit()
    out.backward()
    np.testing.assert_allclose(leaf.grad, 1.0001**2500, rtol=1e-12)


# --- boundaries -----------------------------------------------------------------------------------


def raised(call) -> errors.RMSNormError:
    with pytest.raises(errors.RMSNormError) as info:
        call()
    return info.value


@pytest.mark.parametrize("op", ["+", "*"])
def test_shapes_that_do_not_broadcast(op):
    a, b = Tensor(np.ones((2, 3))), Tensor(np.ones(4))
    error = raised(lambda: a + b if op == "+" else a * b)
    assert type(error) is errors.BroadcastShapeError and error.boundary == "broadcast-shapes"
    assert str(error).startswith(f"cannot apply {op} to shapes (2, 3) and (4,); expected shapes that broadcast")


def test_backward_on_a_non_scalar_needs_an_upstream_gradient():
    error = raised(lambda: Tensor(np.ones((2, 3))).backward())
    assert type(error) is errors.UpstreamGradientRequired and error.boundary == "upstream-required"
    assert "needs a single-element output, but this one has shape (2, 3)" in str(error)
    assert "expected grad_output of shape (2, 3)" in str(error)


def test_upstream_gradient_of_the_wrong_shape():
    error = raised(lambda: Tensor(np.ones((2, 3))).backward(np.ones(3)))
    assert type(error) is errors.UpstreamShapeError and error.boundary == "tape-upstream-shape"
    assert isinstance(error, errors.GradientShapeError)
    assert str(error) == "grad_output has shape (3,), but the output has shape (2, 3); expected the same shape"


@pytest.mark.parametrize("bad", [0.0, -1.5, np.nan])
def test_log_of_a_non_positive_value(bad):
    error = raised(lambda: Tensor([2.0, bad]).log())
    assert type(error) is errors.LogDomainError and error.boundary == "log-domain"
    assert str(error) == f"log of {bad} (shape (2,)); expected every value > 0"


def test_a_tensor_of_strings_is_rejected():
    assert type(raised(lambda: Tensor(["3", "4"]))) is errors.UnsupportedDtype


REFERENCE_REJECTIONS = {
    "rank zero": (3.0, None, 1e-5),
    "width mismatch": ([1.0, 2.0, 3.0], [1.5, 0.5], 1e-5),
    "zero row with eps 0": ([[3.0, 4.0], [0.0, 0.0]], [1.5, 0.5], 0.0),
    "negative eps": ([3.0, 4.0], None, -1e-5),
    "nan eps": ([3.0, 4.0], None, float("nan")),
    "empty width": (np.zeros((2, 0)), None, 1e-5),
    "gain rank": ([3.0, 4.0], [[1.5, 0.5]], 1e-5),
    "nan input": ([[3.0, 4.0], [np.nan, 1.0]], None, 1e-5),
    "infinite gain": ([3.0, 4.0], [1.5, np.inf], 1e-5),
    "complex input": (np.array([3.0, 4.0]) + 1j, None, 1e-5),
}


@pytest.mark.parametrize("case", REFERENCE_REJECTIONS)
def test_tape_refuses_what_the_reference_refuses_with_the_same_error(case):
    x, gain, eps = REFERENCE_REJECTIONS[case]
    expected = raised(lambda: rms_norm_forward(x, gain, eps))
    got = raised(lambda: tape_rms_norm(x, gain, eps))
    assert type(got) is type(expected) and str(got) == str(expected)


@pytest.mark.parametrize("upstream", [(1.0, -2.0, 0.0), (1.0, np.inf)], ids=["shape", "non-finite"])
def test_tape_gradients_refuse_a_bad_upstream_like_the_reference(upstream):
    expected = raised(lambda: rms_norm_backward([3.0, 4.0], [1.5, 0.5], 1e-5, upstream))
    got = raised(lambda: tape_rms_norm_gradients([3.0, 4.0], [1.5, 0.5], 1e-5, upstream))
    assert type(got) is type(expected) and str(got) == str(expected)


def test_zero_row_with_eps_zero_is_refused_before_the_log():
    error = raised(lambda: tape_rms_norm([[3.0, 4.0], [0.0, 0.0]], None, 0.0))
    assert type(error) is errors.ZeroEnergyRow  # not LogDomainError


def test_squares_that_underflow_with_eps_zero_name_the_row():
    x = [[3.0, 4.0], [1e-200, -1e-200]]
    error = raised(lambda: tape_rms_norm(x, None, 0.0))
    assert type(error) is errors.ZeroEnergyRow
    assert "input row 1 has squares that underflow to a mean square of 0" in str(error)
    # With eps > 0 the same row is fine: eps dominates and x-hat = x / sqrt(eps).
    np.testing.assert_allclose(
        tape_rms_norm(x, None, 1e-5).output.value[1], [1e-200 / np.sqrt(1e-5)] * np.array([1, -1])
    )


def test_squares_that_overflow_name_the_row():
    x = [[3.0, 4.0], [1e200, 1e200]]
    error = raised(lambda: tape_rms_norm(x, None, 1e-5))
    assert type(error) is errors.SquareOverflow and error.boundary == "square-overflow"
    assert str(error).startswith("input row 1 has squares that overflow to infinity on the tape")
    np.testing.assert_allclose(rms_norm(x, None, 1e-5)[1], [1.0, 1.0])  # the reference rescales this row


# --- properties -----------------------------------------------------------------------------------

moderate = st.just(0.0) | st.floats(1e-3, 1e3) | st.floats(-1e3, -1e-3)
shapes = hnp.array_shapes(min_dims=1, max_dims=3, min_side=1, max_side=5)


@PROPERTY
@given(st.data(), shapes, st.sampled_from([1e-8, 1e-5, 1e-2]))
def test_property_tape_gradients_equal_the_closed_form(data, shape, eps):
    x = data.draw(hnp.arrays(np.float64, shape, elements=moderate), label="x")
    gain = data.draw(hnp.arrays(np.float64, shape[-1:], elements=moderate), label="gain")
    upstream = data.draw(hnp.arrays(np.float64, shape, elements=moderate), label="upstream")
    assert_matches_closed_form(x, gain, eps, upstream)


@PROPERTY
@given(st.data(), shapes)
def test_property_tape_forward_equals_the_reference(data, shape):
    x = data.draw(hnp.arrays(np.float64, shape, elements=moderate), label="x")
    np.testing.assert_allclose(tape_rms_norm(x, None, 1e-5).output.value, rms_norm(x, None, 1e-5), rtol=1e-12)


@PROPERTY
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4), st.integers(0, 2**16))
def test_property_sum_gradients_come_back_in_each_shape_with_the_same_total(shapes_pair, seed):
    (shape_a, shape_b), result_shape = shapes_pair.input_shapes, shapes_pair.result_shape
    rng = np.random.default_rng(seed)
    a, b = Tensor(rng.normal(size=shape_a)), Tensor(rng.normal(size=shape_b))
    weights = rng.normal(size=result_shape)
    (a + b).backward(weights)
    assert a.grad.shape == shape_a and b.grad.shape == shape_b
    np.testing.assert_allclose([a.grad.sum(), b.grad.sum()], [weights.sum()] * 2, rtol=1e-12, atol=1e-12)


@PROPERTY
@given(hnp.mutually_broadcastable_shapes(num_shapes=2, max_dims=3, max_side=4), st.integers(0, 2**16))
def test_property_product_is_linear_in_each_operand(shapes_pair, seed):
    """f(a, b) = sum(G * a * b) is linear in a, so <grad_a, a> = f (Euler), and likewise for b."""
    (shape_a, shape_b), result_shape = shapes_pair.input_shapes, shapes_pair.result_shape
    rng = np.random.default_rng(seed)
    a, b = Tensor(rng.normal(size=shape_a)), Tensor(rng.normal(size=shape_b))
    weights = rng.normal(size=result_shape)
    (a * b).backward(weights)
    total = np.sum(weights * a.value * b.value)
    scale = np.sum(np.abs(weights * a.value * b.value)) + 1e-300
    assert abs(np.sum(a.grad * a.value) - total) <= 1e-12 * scale
    assert abs(np.sum(b.grad * b.value) - total) <= 1e-12 * scale


@PROPERTY
@given(hnp.arrays(np.float64, shapes, elements=moderate), st.data())
def test_property_mean_hands_each_row_back_its_gradient(x, data):
    axis = data.draw(st.integers(-x.ndim, x.ndim - 1), label="axis")
    leaf = Tensor(x)
    mean = leaf.mean(axis=axis)
    weights = np.random.default_rng(x.size).normal(size=mean.value.shape)
    mean.backward(weights)
    np.testing.assert_allclose(leaf.grad.sum(axis=axis, keepdims=True), weights, rtol=1e-12)
    assert np.all(leaf.grad == np.broadcast_to(weights / x.shape[axis], x.shape))


@pytest.mark.parametrize(
    "operand", [10**400, 1e39, np.ma.masked_array([1.0, 2.0], mask=[0, 1])], ids=["int 1e400", "1e39", "masked"]
)
def test_an_operand_the_tape_cannot_hold_is_an_rmsnorm_error(operand):
    """Before, 10**400 escaped as OverflowError, 1e39 became infinity in float32, and a mask was dropped."""
    x = Tensor(np.ones(2, np.float32))
    for op in (lambda: x * operand, lambda: x + operand):
        with pytest.raises(errors.RMSNormError, match="the operand of"):
            op()


def test_a_masked_tensor_value_is_refused():
    with pytest.raises(errors.MaskedArrayError, match="tensor value is a masked array"):
        Tensor(np.ma.masked_array([1.0, 2.0], mask=[0, 1]))
