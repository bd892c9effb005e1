"""Special functions in numpy, without scipy: what the interpreter computes for libdevice's Bessel
functions, the inverse error functions, erfcx and the gamma functions.

Place in the pipeline: under the interpreter (`libdevice/twins.py` calls these on float64 arrays).
Each is written from a textbook form, chosen where it is accurate in float64:

- Bessel J and Y of order 0 and 1: the ascending power series for |x| <= 12 (its terms grow to at
  most e^12 / 12, so it keeps about 12 digits), Hankel's asymptotic expansion beyond (its smallest
  term is about e^-2x, below 1e-10 there and falling fast); J_n of any order by Miller's backward
  recurrence (stable where the forward one is not), Y_n by the forward recurrence (stable for Y);
- I0 and I1: the power series (positive terms, no cancellation) up to 20, then the asymptotic series;
- erfinv, erfcinv: Newton's method from a rough closed-form start, on erf near 0 and on log(erfc)
  in the tails, so that no step underflows;
- erfcx: exp(x^2) erfc(x) with x^2 split into two doubles, and the asymptotic series past 25.

Chapter: 03-tile-ir (the interpreter).
"""
from __future__ import annotations

import math

import numpy as np

EULER_GAMMA = 0.5772156649015329
_SQRT_PI = math.sqrt(math.pi)


def _vectorized(fn):
    return np.vectorize(fn, otypes=[np.float64])


erf = _vectorized(math.erf)
erfc = _vectorized(math.erfc)


# -- Bessel functions of the first and second kind -----------------------------------------------------

def _ascending(n: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J_n(x) and the series part of Y_n(x), n in {0, 1}, from their power series in -x^2/4."""
    q = -(x * x) / 4
    term = (x / 2) ** n / math.factorial(n)  # (x/2)^n (-x^2/4)^k / (k! (n+k)!)
    digamma_sum = 2 * -EULER_GAMMA + (1 if n else 0)  # psi(k+1) + psi(n+k+1) at k = 0
    j, y_part = term.copy(), digamma_sum * term
    for k in range(1, 48):
        term = term * q / (k * (k + n))
        digamma_sum += 1 / k + 1 / (k + n)
        j += term
        y_part += digamma_sum * term
    return j, y_part


def _hankel(n: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(P, Q) of Hankel's expansion, J_n = sqrt(2/(pi x)) (P cos chi - Q sin chi), for x > 12."""
    mu = 4.0 * n * n
    p, q = np.ones_like(x), np.zeros_like(x)
    term, converging = np.ones_like(x), np.ones(x.shape, bool)
    for k in range(1, 60):
        smaller = np.abs(term * (mu - (2 * k - 1) ** 2) / (k * 8 * x)) < np.abs(term)
        converging &= smaller | (term == 0)  # an asymptotic series: stop at its smallest term
        term = np.where(converging, term * (mu - (2 * k - 1) ** 2) / (k * 8 * x), 0.0)
        part = (-1) ** (k // 2) * term
        if k % 2:
            q += part
        else:
            p += part
    return p, q


def _large(n: int, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """J_n and Y_n (n in {0, 1}) of x > 12; cos and sin of chi = x - (2n + 1) pi / 4 are expanded
    so that no multiple of pi is subtracted from a large x."""
    p, q = _hankel(n, x)
    c, s = np.cos(x), np.sin(x)
    root = math.sqrt(0.5)
    cos_chi, sin_chi = ((c + s) * root, (s - c) * root) if n == 0 else ((s - c) * root, -(s + c) * root)
    scale = np.sqrt(2 / (np.pi * x))
    return scale * (p * cos_chi - q * sin_chi), scale * (p * sin_chi + q * cos_chi)


def _bessel(n: int, x) -> tuple[np.ndarray, np.ndarray]:
    """(J_n(x), Y_n(x)) for n in {0, 1}; Y of a negative x is NaN, Y(0) is -inf."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        small = ax <= 12
        xs = np.where(small, ax, 1.0)
        j_small, y_series = _ascending(n, xs)
        y_small = 2 / np.pi * np.log(xs / 2) * j_small - y_series / np.pi
        if n == 1:  # the finite sum of A&S 9.1.11 has one term for n = 1
            y_small = y_small - 2 / (np.pi * xs)
        xl = np.where(small, 13.0, ax)
        j_large, y_large = _large(n, np.where(np.isinf(xl), 13.0, xl))
        j = np.where(small, j_small, np.where(np.isinf(ax), 0.0, j_large))
        y = np.where(small, y_small, np.where(np.isinf(ax), 0.0, y_large))
    if n == 1:
        j = np.where(x < 0, -j, j)
    y = np.where(x < 0, np.nan, np.where(x == 0, -np.inf, y))
    return np.where(np.isnan(x), np.nan, j), np.where(np.isnan(x), np.nan, y)


def j0(x): return _bessel(0, x)[0]
def j1(x): return _bessel(1, x)[0]
def y0(x): return _bessel(0, x)[1]
def y1(x): return _bessel(1, x)[1]


def jn(n, x) -> np.ndarray:
    """J_n(x) for any integer n: Miller's backward recurrence, normalized by J0 + 2 sum J_2k = 1."""
    n, x = np.broadcast_arrays(np.asarray(n, np.int64), np.asarray(x, np.float64))
    sign = np.where((n < 0) & (n % 2 == 1), -1.0, 1.0)  # J_-n = (-1)^n J_n
    order, ax = np.abs(n), np.abs(x)
    sign = np.where((x < 0) & (order % 2 == 1), -sign, sign)  # J_n(-x) = (-1)^n J_n(x)
    with np.errstate(all="ignore"):
        # (x/2)^n / n! bounds |J_n(x)|: where it is below the smallest double the answer is 0
        log_bound = order * np.log(np.maximum(ax, 1e-300) / 2) - np.vectorize(math.lgamma)(order + 1.0)
    vanishes = (order > ax) & (log_bound < -750)
    work = ~vanishes & (ax > 0) & np.isfinite(ax)
    result = np.zeros(x.shape)
    if work.any():
        m, z = order[work], ax[work]
        top = int(np.max(np.maximum(m, z))) + 40 + int(3 * math.sqrt(np.max(np.maximum(m, z))))
        top += top % 2
        above, here = np.zeros(z.shape), np.full(z.shape, 1e-300)  # J_{k+1}, J_k, unnormalized
        total, picked = np.zeros(z.shape), np.zeros(z.shape)
        for k in range(top, 0, -1):
            below = 2 * k / z * here - above  # J_{k-1}
            above, here = here, below
            picked = np.where(m == k - 1, here, picked)
            if k - 1 > 0 and (k - 1) % 2 == 0:
                total += 2 * here
            big = np.abs(here) > 1e250  # rescale everything kept, so nothing overflows
            if big.any():
                factor = np.where(big, 1e-250, 1.0)
                above, here, total, picked = above * factor, here * factor, total * factor, picked * factor
        total += here  # + J_0
        result[work] = picked / total
    result = np.where(ax == 0, (order == 0).astype(np.float64), result)
    result = np.where(np.isinf(ax), 0.0, result)
    return np.where(np.isnan(x), np.nan, sign * result)


def yn(n, x) -> np.ndarray:
    """Y_n(x) for any integer n: the forward recurrence from Y0 and Y1 (Y grows with n)."""
    n, x = np.broadcast_arrays(np.asarray(n, np.int64), np.asarray(x, np.float64))
    order = np.abs(n)
    sign = np.where((n < 0) & (order % 2 == 1), -1.0, 1.0)  # Y_-n = (-1)^n Y_n
    previous, current = y0(x), y1(x)
    result = np.where(order == 0, previous, current)
    with np.errstate(all="ignore"):
        for k in range(1, int(order.max(initial=0))):
            previous, current = current, 2 * k / x * current - previous
            result = np.where(order == k + 1, current, result)
            if np.all(np.isinf(current[order > k + 1]) | np.isnan(current[order > k + 1])):
                result = np.where(order > k + 1, current, result)
                break
    return sign * result


# -- modified Bessel functions ----------------------------------------------------------------------------

def _bessel_i(n: int, x) -> np.ndarray:
    """I_n(x), n in {0, 1}: the power series to 20, then e^x / sqrt(2 pi x) times the asymptotic series."""
    x = np.asarray(x, np.float64)
    ax = np.abs(x)
    with np.errstate(all="ignore"):
        xs = np.where(ax <= 20, ax, 0.0)
        term = (xs / 2) ** n / math.factorial(n)
        small = term.copy()
        for k in range(1, 80):
            term = term * (xs * xs / 4) / (k * (k + n))
            small += term
        xl = np.where(ax > 20, ax, 21.0)
        mu, series, term = 4.0 * n * n, np.ones_like(xl), np.ones_like(xl)
        for k in range(1, 40):
            term = term * -(mu - (2 * k - 1) ** 2) / (k * 8 * xl)
            series += term
        half = np.exp(xl / 2)  # e^x in two halves: I_0 is finite a little past where e^x overflows
        large = half * (half / np.sqrt(2 * np.pi * xl) * series)
        result = np.where(ax <= 20, small, large)
    return np.where(x < 0, -result, result) if n == 1 else result


def cyl_bessel_i0(x): return _bessel_i(0, x)
def cyl_bessel_i1(x): return _bessel_i(1, x)


# -- the error function's kin ----------------------------------------------------------------------------

def _square_split(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """x*x as hi + lo, exactly (Dekker's product), so exp(x^2) keeps all its digits."""
    split = 134217729.0 * x  # 2^27 + 1
    high = split - (split - x)
    low = x - high
    square = x * x
    return square, ((high * high - square) + 2 * high * low) + low * low


def erfcx(x) -> np.ndarray:
    """exp(x^2) erfc(x), the scaled complementary error function."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        ax = np.abs(x)
        hi, lo = _square_split(ax)
        direct = np.exp(hi) * (1 + lo) * erfc(np.minimum(ax, 25.0))
        inverse_square = 1 / (2 * ax * ax)
        series, term = np.ones_like(ax), np.ones_like(ax)
        for k in range(1, 12):  # 1 - 1/(2x^2) + 3/(2x^2)^2 - 15/(2x^2)^3 ...
            term = -term * (2 * k - 1) * inverse_square
            series += term
        tail = series / (ax * _SQRT_PI)
        positive = np.where(ax < 25, direct, np.where(np.isinf(ax), 0.0, tail))
        # erfcx(-x) = 2 exp(x^2) - erfcx(x)
        negative = 2 * np.exp(hi) * (1 + lo) - positive
    return np.where(x >= 0, positive, negative)


def _erfinv_small(x: np.ndarray) -> np.ndarray:
    """erfinv(x) for |x| <= 0.5: Newton's method on erf(y) = x, from erf's first terms inverted."""
    y = _SQRT_PI / 2 * x * (1 + np.pi / 12 * x * x)
    for _ in range(4):
        y = y - (erf(y) - x) / (2 / _SQRT_PI * np.exp(-y * y))
    return y


def _erfcinv_tail(q: np.ndarray) -> np.ndarray:
    """erfcinv(q) for 0 < q < 0.5: Newton's method on log erfc(y) = log q, where log erfc(y) =
    log erfcx(y) - y^2 (nothing underflows), from Winitzki's closed-form approximation."""
    t = np.log(q * (2 - q))
    a = 0.147
    g = 2 / (np.pi * a) + t / 2
    y = np.sqrt(np.sqrt(g * g - t / a) - g)
    target = np.log(q)
    for _ in range(6):
        scaled = erfcx(y)
        y = y + (np.log(scaled) - y * y - target) * (_SQRT_PI / 2) * scaled
    return y


def erfcinv(q) -> np.ndarray:
    """The y with erfc(y) = q, for q in [0, 2]."""
    q = np.asarray(q, np.float64)
    with np.errstate(all="ignore"):
        middle = _erfinv_small(np.where((q >= 0.5) & (q <= 1.5), 1 - q, 0.0))  # 1 - q is exact here
        low = _erfcinv_tail(np.where((q > 0) & (q < 0.5), q, 0.25))
        high = -_erfcinv_tail(np.where((q > 1.5) & (q < 2), 2 - q, 0.25))
    result = np.where(q < 0.5, low, np.where(q <= 1.5, middle, high))
    result = np.where(q == 0, np.inf, np.where(q == 2, -np.inf, result))
    return np.where((q < 0) | (q > 2) | np.isnan(q), np.nan, result)


def erfinv(x) -> np.ndarray:
    """The y with erf(y) = x, for x in [-1, 1]."""
    x = np.asarray(x, np.float64)
    with np.errstate(all="ignore"):
        small = _erfinv_small(np.where(np.abs(x) <= 0.5, x, 0.0))
        large = np.sign(x) * erfcinv(1 - np.abs(x))  # 1 - |x| is exact for |x| >= 0.5
    result = np.where(np.abs(x) <= 0.5, small, large)
    return np.where((np.abs(x) > 1) | np.isnan(x), np.nan, result)


def normcdf(x) -> np.ndarray:
    return erfc(-np.asarray(x, np.float64) / math.sqrt(2)) / 2


def normcdfinv(p) -> np.ndarray:
    return -math.sqrt(2) * erfcinv(2 * np.asarray(p, np.float64))


# -- gamma -----------------------------------------------------------------------------------------------

def _gamma(x: float) -> float:
    """Gamma(x) with C's answers where Python's math raises: a pole gives NaN (or inf at 0),
    overflow gives inf."""
    if math.isnan(x) or x == -math.inf:
        return math.nan
    if x == 0:
        return math.copysign(math.inf, x)
    try:
        return math.gamma(x)
    except ValueError:  # a negative integer
        return math.nan
    except OverflowError:
        return math.inf if x > 0 else 0.0


def _lgamma(x: float) -> float:
    try:
        return math.lgamma(x)
    except ValueError:  # a pole: 0 or a negative integer
        return math.inf


tgamma = _vectorized(_gamma)
lgamma = _vectorized(_lgamma)
