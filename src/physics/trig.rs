//! The engine's own cosine, sine and arc tangent: the same bits on every machine.
//!
//! Why: the standard library's `f32::sin`, `cos`, `sin_cos`, `atan2` (and `tan`, `exp`,
//! `powf`, ...) call the platform's libm, whose results may differ in the last bit between
//! operating systems, libm versions and CPUs. One differing bit in a body's rotation grows
//! into a different simulation within a few hundred steps of a pile, so the state hash of
//! a scene would depend on the machine. Box2D v3 avoids libm in its step for the same reason
//! (`b2ComputeCosSin`, `b2Atan2`, polynomial approximations).
//!
//! **What the core may use**: `+ - * /`, `sqrt` (IEEE 754 requires these five correctly
//! rounded, so every conforming machine gives the same bits), `abs`, `copysign`, `min`,
//! `max`, `clamp`, `floor`, `ceil`, `round`, `trunc` (exact by definition), comparisons and
//! conversions, and the functions of this file. No fused multiply-add (`mul_add`): the SIMD
//! kernels multiply then add, and every width must give the same bits (without the
//! instruction it is also a slow library call). Nor `powi` (LLVM may order its products
//! differently in another build; not refused by the lint, as tests use it freely): write the
//! products. Every other `f32`/`f64` method that computes a transcendental function is
//! refused by `clippy.toml` (`disallowed-methods`); code outside the step that may use them
//! (drawing, tests' reference values, the bench's scenes) says so with an `allow`.
//!
//! Method (derived for this file; only the idea is Box2D's): the work is done in `f64`,
//! whose basic operations are as deterministic as `f32`'s, then rounded once to `f32`, so
//! the result is the correctly rounded value except in rare double-rounding cases.
//! - `cos_sin`: Cody-Waite reduction `r = x - k pi/2`, `k = round(x 2/pi)`, with pi/2 split
//!   into a 29-bit head (so `k * head` is exact for `|k| < 2^24`) and a tail; then the
//!   Taylor series of sine (to `r^13`) and cosine (to `r^14`) on `|r| <= pi/4`, where the
//!   first omitted terms are below 2e-14 and 1e-15; the quadrant `k mod 4` swaps and
//!   negates them. Angles of 2^24 rad and more (where an `f32` angle is an integer and has
//!   lost every fractional digit) are first reduced modulo an `f64` 2 pi by exact binary
//!   doubling, so every finite angle gives a bounded, deterministic result.
//! - `atan2`: `t = min(|x|, |y|) / max(|x|, |y|)` in [0, 1]; above tan(pi/8),
//!   `atan t = pi/4 + atan((t - 1) / (t + 1))` brings the argument within +-tan(pi/8), where
//!   the arc tangent's series `u - u^3/3 + u^5/5 - ...` to `u^41` leaves less than 1e-17;
//!   then the octant and the signs of `x` and `y` place the angle in [-pi, pi].
//!
//! Accuracy, measured by the tests below against `f64` references rounded to `f32`:
//! - `cos_sin`, over 2.2 million angles (every 1e-4 rad in [-100, 100], random angles up
//!   to 1e6 rad, the neighbours of multiples of pi/4): 0 ulp from the reference (largest
//!   absolute error 2.98e-8, half an ulp), `c^2 + s^2` within 1.19e-7 (one ulp) of 1, and
//!   at most 1 ulp from std's `f32::sin_cos` (which is not correctly rounded everywhere).
//!   The test allows 1 ulp from the reference (a rare double rounding) and 6e-8.
//! - `atan2`, over a million directions all around the circle at lengths from 1e-30 to
//!   1e30: at most 1.19e-7 rad from the reference (half an ulp of pi, where the result is
//!   largest) and 2.38e-7 from std's `f32::atan2`; the test allows 1.2e-7 and 2.4e-7.

/// pi/2 to 29 significant bits: `k * PI_2_HEAD` is exact for `|k| < 2^24`.
const PI_2_HEAD: f64 = 1.570_796_325_802_803;
/// pi/2 - `PI_2_HEAD`, rounded (the two carry pi/2 to about 82 bits).
const PI_2_TAIL: f64 = 9.920_935_796_805_404e-10;
/// 2/pi.
const FRAC_2_PI: f64 = std::f64::consts::FRAC_2_PI;
/// Angles from this size on are reduced modulo 2 pi first (`reduce_large`).
const LARGE: f64 = 16_777_216.0; // 2^24

/// The cosine and sine of `angle` (radians), deterministic on every machine (see the
/// module docs): correctly rounded but for rare double roundings (1 ulp at most); NaN for
/// a NaN or infinite angle.
pub fn cos_sin(angle: f32) -> (f32, f32) {
    if !angle.is_finite() {
        return (f32::NAN, f32::NAN);
    }
    if angle == 0.0 {
        return (1.0, angle); // sin(-0) = -0, as std
    }
    let mut x = angle as f64;
    if x.abs() >= LARGE {
        x = reduce_large(angle);
    }
    // 1. r = x - k pi/2 in [-pi/4, pi/4]: k * head is exact and x - k * head is exact
    //    (Sterbenz: the two are within a factor of two), the tail's rounding is ~1e-23.
    let k = (x * FRAC_2_PI).round();
    let r = (x - k * PI_2_HEAD) - k * PI_2_TAIL;
    // 2. The series on |r| <= pi/4, in Horner form in r^2.
    let (c, s) = (cos_series(r), sin_series(r));
    // 3. The quadrant: cos(r + q pi/2), sin(r + q pi/2).
    let (c, s) = match (k as i64) & 3 {
        0 => (c, s),
        1 => (-s, c),
        2 => (-c, -s),
        _ => (s, -c),
    };
    (c as f32, s as f32)
}

/// `sin r` for `|r| <= pi/4`: `r - r^3/3! + r^5/5! - ... + r^13/13!`.
#[inline]
fn sin_series(r: f64) -> f64 {
    let r2 = r * r;
    let mut p = -1.0 / 6_227_020_800.0; // -1/13!
    p = p * r2 + 1.0 / 39_916_800.0; // 1/11!
    p = p * r2 - 1.0 / 362_880.0; // -1/9!
    p = p * r2 + 1.0 / 5_040.0; // 1/7!
    p = p * r2 - 1.0 / 120.0; // -1/5!
    p = p * r2 + 1.0 / 6.0; // 1/3!
                            // p = 1/3! - r^2/5! + ... - r^10/13!, so sin r = r - r^3 p.
    r - r * r2 * p
}

/// `cos r` for `|r| <= pi/4`: `1 - r^2/2! + r^4/4! - ... - r^14/14!`.
#[inline]
fn cos_series(r: f64) -> f64 {
    let r2 = r * r;
    let mut p = 1.0 / 87_178_291_200.0; // 1/14!
    p = p * r2 - 1.0 / 479_001_600.0; // -1/12!
    p = p * r2 + 1.0 / 3_628_800.0; // 1/10!
    p = p * r2 - 1.0 / 40_320.0; // -1/8!
    p = p * r2 + 1.0 / 720.0; // 1/6!
    p = p * r2 - 1.0 / 24.0; // -1/4!
    p = p * r2 + 1.0 / 2.0; // 1/2!
                            // p = 1/2! - r^2/4! + ... + r^12/14!, so cos r = 1 - r^2 p.
    1.0 - r2 * p
}

/// `angle mod 2 pi` (with 2 pi as an `f64`) for a finite `|angle| >= 2^24`, in
/// (-2 pi, 2 pi) with the sign of `angle`.
///
/// Such an angle is an integer `m 2^e` (`m < 2^24`, `e >= 0`): the remainder is built bit by
/// bit, `rem <- 2 rem + bit (mod 2 pi)`, then doubled `e` times. Every step is an `f64`
/// operation on values below 6 pi, so the result is bounded and the same on every machine;
/// its error against the true remainder (from 2 pi's rounding, times up to 2^128) does not
/// matter: such an `f32` angle is already meaningless to the last radian.
fn reduce_large(angle: f32) -> f64 {
    const TAU: f64 = std::f64::consts::TAU;
    let bits = angle.abs().to_bits();
    let exponent = (bits >> 23) as i32 - 127 - 23; // >= 1 for |angle| >= 2^24
    let mantissa = (bits & 0x7f_ffff) | 0x80_0000;
    let wrap = |mut v: f64| {
        while v >= TAU {
            v -= TAU;
        }
        v
    };
    let mut rem = 0.0f64;
    for bit in (0..24).rev() {
        rem = wrap(2.0 * rem + ((mantissa >> bit) & 1) as f64);
    }
    for _ in 0..exponent {
        rem = wrap(2.0 * rem);
    }
    rem.copysign(angle as f64)
}

/// The angle of the vector `(x, y)` in [-pi, pi] (as `f32::atan2`), deterministic on every
/// machine (see the module docs): within 1.2e-7 rad of the exact angle. NaN when either
/// input is NaN; `atan2(+-0, x)` is `+-0` for `x >= +0` and `+-pi` for `x <= -0`, as std.
pub fn atan2(y: f32, x: f32) -> f32 {
    use std::f64::consts::{FRAC_PI_2, PI};
    if x.is_nan() || y.is_nan() {
        return f32::NAN;
    }
    let (ax, ay) = ((x as f64).abs(), (y as f64).abs());
    // 1. The octant: t = small / large in [0, 1] (both infinite: the diagonal).
    let swap = ay > ax;
    let (small, large) = if swap { (ax, ay) } else { (ay, ax) };
    let t = if large == 0.0 {
        0.0
    } else if small.is_infinite() {
        1.0
    } else {
        small / large
    };
    // 2. atan t in [0, pi/4].
    let a = atan_unit(t);
    // 3. Back to the quadrant, then the half plane of y.
    let a = if swap { FRAC_PI_2 - a } else { a };
    let a = if x.is_sign_negative() { PI - a } else { a };
    (a as f32).copysign(y)
}

/// `atan t` for `t` in [0, 1].
#[inline]
fn atan_unit(t: f64) -> f64 {
    use std::f64::consts::FRAC_PI_4;
    /// tan(pi/8) = sqrt 2 - 1.
    const TAN_PI_8: f64 = 0.414_213_562_373_095_03;
    if t > TAN_PI_8 {
        FRAC_PI_4 + atan_series((t - 1.0) / (t + 1.0))
    } else {
        atan_series(t)
    }
}

/// `atan u` for `|u| <= tan(pi/8)`: `u - u^3/3 + u^5/5 - ... + u^41/41` (the first omitted
/// term is below 1e-17).
#[inline]
fn atan_series(u: f64) -> f64 {
    let u2 = u * u;
    // Horner from the top: coefficient of u^(2n+1) is (-1)^n / (2n+1), n = 20 down to 1.
    let mut p = 0.0f64;
    for n in (1..=20).rev() {
        let coefficient = 1.0 / (2 * n + 1) as f64;
        let coefficient = if n % 2 == 0 {
            coefficient
        } else {
            -coefficient
        };
        p = p * u2 + coefficient;
    }
    u + u * u2 * p
}

#[cfg(test)]
#[allow(clippy::disallowed_methods)] // std's functions as the references
mod tests {
    use super::*;
    use crate::physics::collision::dynamic_tree::tests::Rng;

    /// Distance in units in the last place between two finite `f32`s of any sign.
    fn ulps(a: f32, b: f32) -> u32 {
        let key = |x: f32| {
            let bits = x.to_bits() as i32;
            if bits < 0 {
                i32::MIN - bits
            } else {
                bits
            }
        };
        (key(a) as i64 - key(b) as i64).unsigned_abs() as u32
    }

    /// The angles of the sweep: every 1e-4 rad over [-100, 100] (two million), then
    /// random ones up to 1e6 rad and the neighbours of multiples of pi/4.
    fn angles() -> Vec<f32> {
        let mut out: Vec<f32> = (-1_000_000..=1_000_000).map(|i| i as f32 * 1e-4).collect();
        let mut rng = Rng(0x2545_f491);
        out.extend((0..200_000).map(|_| rng.range(-1e6, 1e6)));
        for q in -64..=64 {
            let x = q as f32 * std::f32::consts::FRAC_PI_4;
            let mut y = x;
            for _ in 0..8 {
                out.push(y);
                y = f32::from_bits(y.to_bits() + 1);
            }
        }
        out
    }

    /// Against the `f64` values rounded to `f32` (the correctly rounded results, to within
    /// the reference's own 1 ulp of `f64`): 1 ulp at most (0 measured), 6e-8 absolute at
    /// most (2.98e-8 measured), and the rotation stays a unit vector (`c^2 + s^2` within one
    /// ulp of 1 in `f32`); std's own `f32` functions agree within 1 ulp.
    #[test]
    fn cos_sin_match_std_within_one_ulp_over_a_dense_sweep() {
        let (mut worst_ulps, mut worst_abs, mut worst_norm, mut worst_std) = (0, 0.0f64, 0.0f32, 0);
        for angle in angles() {
            let (c, s) = cos_sin(angle);
            let exact = (angle as f64).cos();
            let exact_s = (angle as f64).sin();
            worst_ulps = worst_ulps
                .max(ulps(c, exact as f32))
                .max(ulps(s, exact_s as f32));
            worst_abs = worst_abs
                .max((c as f64 - exact).abs())
                .max((s as f64 - exact_s).abs());
            worst_norm = worst_norm.max((c * c + s * s - 1.0).abs());
            let (std_s, std_c) = angle.sin_cos();
            worst_std = worst_std.max(ulps(c, std_c)).max(ulps(s, std_s));
        }
        eprintln!("cos_sin: {worst_ulps} ulp, {worst_abs:e} abs, norm {worst_norm:e}, std {worst_std} ulp");
        assert!(
            worst_ulps <= 1,
            "{worst_ulps} ulp from the correctly rounded value"
        );
        assert!(worst_abs <= 6.0e-8, "absolute error {worst_abs:e}");
        assert!(worst_norm <= f32::EPSILON, "c^2 + s^2 - 1 = {worst_norm:e}");
        assert!(worst_std <= 1, "{worst_std} ulp from std");
    }

    /// Exact where the answer is exact; bounded and unit for every finite angle, however
    /// large (reduced modulo 2 pi first); NaN for NaN and infinities.
    #[test]
    fn cos_sin_is_exact_at_zero_and_bounded_everywhere() {
        assert_eq!(cos_sin(0.0), (1.0, 0.0));
        assert_eq!(cos_sin(-0.0).1.to_bits(), (-0.0f32).to_bits());
        let (c, s) = cos_sin(std::f32::consts::FRAC_PI_2);
        assert_eq!(s, 1.0);
        assert!(c.abs() < 5e-8);
        let mut rng = Rng(0x1234_5677);
        for _ in 0..100_000 {
            // Random bit patterns of finite floats from 2^20 up to f32::MAX.
            let bits = (rng.below(0x7f7f_ffff - 0x4980_0000) as u32) + 0x4980_0000;
            for angle in [f32::from_bits(bits), -f32::from_bits(bits)] {
                let (c, s) = cos_sin(angle);
                assert!(c.abs() <= 1.0 && s.abs() <= 1.0, "{angle}: ({c}, {s})");
                assert!(
                    (c * c + s * s - 1.0).abs() <= f32::EPSILON,
                    "{angle}: ({c}, {s})"
                );
            }
        }
        assert!(cos_sin(f32::MAX).0.is_finite());
        for bad in [f32::NAN, f32::INFINITY, f32::NEG_INFINITY] {
            let (c, s) = cos_sin(bad);
            assert!(c.is_nan() && s.is_nan());
        }
    }

    /// Against `f64` `atan2` of the same inputs, all around the circle at lengths from
    /// 1e-30 to 1e30: 1.2e-7 rad at most (half an ulp of pi, where the result is largest;
    /// 1.19e-7 measured), 2.4e-7 from std's; the signs of zero and the axes as std.
    #[test]
    fn atan2_matches_std_all_around_the_circle() {
        let mut worst = 0.0f64;
        let mut worst_std = 0.0f32;
        let mut rng = Rng(0x9e37_79b9);
        for i in 0..1_000_000 {
            let theta = -std::f64::consts::PI + i as f64 * (std::f64::consts::TAU / 1e6);
            let length = 10f64.powf(rng.range(-30.0, 30.0) as f64);
            let (x, y) = ((length * theta.cos()) as f32, (length * theta.sin()) as f32);
            let a = atan2(y, x);
            worst = worst.max((a as f64 - (y as f64).atan2(x as f64)).abs());
            worst_std = worst_std.max((a - y.atan2(x)).abs());
        }
        eprintln!("atan2: {worst:e} rad, std {worst_std:e}");
        assert!(worst <= 1.2e-7, "{worst:e} rad");
        assert!(worst_std <= 2.4e-7, "{worst_std:e} rad from std");
        use std::f32::consts::{FRAC_PI_2, FRAC_PI_4, PI};
        let cases = [
            (0.0, 1.0, 0.0),
            (-0.0, 1.0, -0.0),
            (0.0, -1.0, PI),
            (-0.0, -1.0, -PI),
            (0.0, -0.0, PI),
            (0.0, 0.0, 0.0),
            (1.0, 0.0, FRAC_PI_2),
            (-1.0, 0.0, -FRAC_PI_2),
            (1.0, 1.0, FRAC_PI_4),
            (f32::INFINITY, f32::INFINITY, FRAC_PI_4),
        ];
        for (y, x, want) in cases {
            let got = atan2(y, x);
            assert_eq!(got.to_bits(), want.to_bits(), "atan2({y}, {x}) = {got}");
            assert_eq!(got.to_bits(), y.atan2(x).to_bits(), "std's atan2({y}, {x})");
        }
        assert!(atan2(f32::NAN, 1.0).is_nan() && atan2(1.0, f32::NAN).is_nan());
    }

    /// The two invert each other within a few ulp of the angle.
    #[test]
    fn atan2_inverts_cos_sin() {
        for i in -3140..=3140 {
            let angle = i as f32 * 1e-3;
            let (c, s) = cos_sin(angle);
            assert!((atan2(s, c) - angle).abs() <= 4.8e-7, "{angle}");
        }
    }
}
