"""Tests for exercise 2.5: run with `make exercise CH=2 EX=5`."""
import numpy as np
import pytest
from _impl import load

impl = load("02_frontend/ex5_first_above")
THRESHOLD = 0.75  # exactly representable: an element equal to it is not above it


def reference(x: np.ndarray, threshold: float) -> np.ndarray:
    above = x > threshold
    return np.where(above.any(axis=1), above.argmax(axis=1), x.shape[1]).astype(np.int32)


def rows_that_matter(n_cols: int, block: int) -> dict[str, np.ndarray]:
    """One row per case a search can get wrong, below-threshold values elsewhere (and 9 rows of
    random data after them)."""
    rng = np.random.default_rng(n_cols * block)

    def row(*hits):
        values = (rng.random(n_cols) * 0.7).astype(np.float32)
        for column, value in hits:
            values[column] = value
        return values

    rows = {
        "no element above (some equal to the threshold)": row((0, THRESHOLD), (n_cols - 1, THRESHOLD)),
        "only the very last element": row((n_cols - 1, 2.0)),
        "the very first element": row((0, 0.8)),
    }
    if n_cols >= 4:
        rows["an equal element, then one above"] = row((1, THRESHOLD), (3, 0.8))
        rows["two in one block, the later larger"] = row((1, 0.8), (2, 5.0))
    if n_cols > 2 * block:
        rows["one in each of two blocks, the later one earlier in its block"] = row((block + 5, 0.8),
                                                                                     (2 * block + 1, 0.9))
        rows["first in a later block"] = row((2 * block + 3, 0.8), (n_cols - 1, 0.9))
    return rows


@pytest.mark.parametrize("n_cols, block", [(100, 16), (16, 16), (5, 8), (1000, 64)])
def test_first_above(n_cols, block):
    cases = rows_that_matter(n_cols, block)
    rng = np.random.default_rng(n_cols)
    x = np.concatenate([np.stack(list(cases.values())), rng.random((9, n_cols)).astype(np.float32)])
    out = np.full(len(x), -1, np.int32)
    impl.first_above_kernel[(len(x),)](x, out, n_cols, n_cols, THRESHOLD, BLOCK=block)
    expected = reference(x, THRESHOLD)
    wrong = [f"row {r} ({name}): {out[r]}, not {expected[r]}" for r, name in enumerate(cases) if out[r] != expected[r]]
    assert not wrong, "\n".join(wrong)
    np.testing.assert_array_equal(out, expected)


def test_rows_with_padding():
    """Rows of 50 elements, 64 apart; the 14 elements after each row are 9.0 but not in the row."""
    storage = np.full((6, 64), 9.0, np.float32)
    storage[:, :50] = np.random.default_rng(1).random((6, 50)) * 0.7
    storage[1, 20] = 0.8
    out = np.full(6, -1, np.int32)
    impl.first_above_kernel[(6,)](storage, out, 50, 64, THRESHOLD, BLOCK=16)
    np.testing.assert_array_equal(out, reference(storage[:, :50], THRESHOLD))


def test_uses_a_loop():
    x, out = np.zeros(4, np.float32), np.zeros(1, np.int32)
    ttir = impl.first_above_kernel.warmup(x, out, 100, 100, 0.5, BLOCK=16, target="interpreter").asm["ttir"]
    assert "for " in ttir, "scan the row with a for loop over range(0, n_cols, BLOCK)"
