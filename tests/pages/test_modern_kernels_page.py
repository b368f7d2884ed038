"""The kernels page's boxes: each natural mistake is named, and what the page asks is not in sight."""

from __future__ import annotations

from rmsnorm_course.pages import check


def named(exercise_id: str, typed: str, words: str, variant: int | None = None) -> bool:
    verdict = check(exercise_id, typed, variant)
    return verdict.outcome.value == "wrong" and any(words in slip for slip in verdict.slips)


def test_the_fused_intensity_in_float32_is_five_operations_over_sixteen_bytes():
    assert check("fused-intensity", str(5 / 16)).correct  # h and f in, h' and y out, four bytes each


def test_the_fused_intensity_names_its_slips():
    assert named("fused-intensity", str(5 / 4), "one number's bytes")  # 5 over float32's 4 bytes
    assert named("fused-intensity", str(4 / 16), "the norm's operations only")  # the addition forgotten
    assert named("fused-intensity", str(5 / 8), "bfloat16's bytes")  # the fused-bytes answer carried over
    assert named("fused-intensity", str(4 / 16), "add, then RMSNorm")  # 5 / 20 reads the same: h' read back


def test_no_variant_of_the_fused_intensity_is_asked_in_bfloat16_whose_intensities_the_page_tables():
    from rmsnorm_course.pages import COURSE

    exercise = COURSE.get("fused-intensity")
    formats = [exercise.variant(k).given["dtype"] for k in range(len(exercise.variants))]
    assert "bfloat16" not in formats and exercise.given["dtype"] != "bfloat16"


def test_no_variant_of_the_fused_intensity_is_the_saving_the_page_states():
    from rmsnorm_course.pages import COURSE, modern_kernels

    exercise = COURSE.get("fused-intensity")
    saving = float(modern_kernels.values().saving)
    answers = [exercise.variant(k).solve().answer for k in range(len(exercise.variants))]
    assert all(abs(answer / saving - 1) > exercise.kind.tolerance for answer in answers)


def test_the_partial_rms_error_names_the_law_with_the_whole_row():
    assert check("partial-rms-error", "C").correct  # sqrt(1 / 512): about 4%
    verdict = check("partial-rms-error", "B")  # sqrt(1 / (2 * 4096)) is 1.1%, nearest 0.4%
    assert verdict.outcome.value == "wrong" and "all d = 4096" in verdict.message


def test_the_partial_rms_question_leaves_the_count_read_to_the_learner():
    from rmsnorm_course.pages import COURSE

    assert "256" not in COURSE.get("partial-rms-error").prompt
