//! `F32x16`: sixteen `f32` lanes in an AVX-512 `__m512`, the batched contact solver's wide
//! word on machines with AVX-512F (x86_64 only).
//!
//! Rules (as `wide.rs`, which defines the `Wide` trait this implements, and `wide8.rs`):
//! - Lane `l` is constraint `l` of a sixteen-wide batch; nothing mixes lanes except
//!   `load_rows` / `store_rows`.
//! - Every operation is the IEEE operation of its SSE2 twin, lane by lane; no fused
//!   multiply-add. A step solved sixteen wide is bitwise the step solved four or eight wide.
//! - Masks are words, as in the narrower widths (every bit of a lane set, or none); the
//!   compare instructions' mask registers are turned into such words at once.
//! - The intrinsics need AVX-512F. Nothing here checks for it: these functions are only
//!   ever inlined into the `#[target_feature(enable = "avx512f")]` entry points of
//!   `contact_simd.rs`, which run only after `avx512_available()` said yes. Each `unsafe`
//!   block below relies on that.
//!
//! Why sixteen lanes when the CPU has them: the solve and relax passes of one batch are a
//! chain of dependent operations (each point's impulse moves the bodies the next point
//! reads), so a pass is bound by that chain's latency more than by arithmetic; a wider word
//! runs one chain for twice the constraints. Measured with the same kernel at four and
//! eight lanes (large pyramid, one thread): the solve pass took 0.89 ms a step at four,
//! 0.555 at eight.
//!
//! Transpose of sixteen rows `r0..r15` of four floats (`load_rows`): gather them into four
//! words `[r0|r4|r8|r12] [r1|r5|r9|r13] [r2|r6|r10|r14] [r3|r7|r11|r15]`, then run the usual
//! 4x4 SSE transpose (unpack lo/hi, then shuffle the 64-bit halves) in all four 128-bit
//! quarters at once, as `wide8.rs` does in its two halves: word `x` ends
//! `[x0 x1 x2 x3 | x4 x5 x6 x7 | x8 .. x11 | x12 .. x15]`. `store_rows` runs the same steps on
//! the columns and writes each result's quarters back.

use core::arch::x86_64::*;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use super::wide::Wide;

/// Sixteen `f32` lanes.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x16(__m512);

/// True when this CPU runs AVX-512F (checked once, then cached by the standard library).
#[inline]
pub fn avx512_available() -> bool {
    std::arch::is_x86_feature_detected!("avx512f")
}

/// Evaluate AVX-512 intrinsics.
macro_rules! avx512 {
    ($e:expr) => {
        // SAFETY: only reached inside the AVX-512F entry points (see the file's rules).
        unsafe { $e }
    };
}

/// `_MM_SHUFFLE(z, y, x, w)`.
const fn shuffle_mask(z: i32, y: i32, x: i32, w: i32) -> i32 {
    (z << 6) | (y << 4) | (x << 2) | w
}
const LOW_PAIRS: i32 = shuffle_mask(1, 0, 1, 0);
const HIGH_PAIRS: i32 = shuffle_mask(3, 2, 3, 2);

/// The 4x4 transpose in all four 128-bit quarters of four words.
#[inline(always)]
fn transpose_quarters(m: [__m512; 4]) -> [__m512; 4] {
    avx512!({
        let t0 = _mm512_unpacklo_ps(m[0], m[1]);
        let t1 = _mm512_unpackhi_ps(m[0], m[1]);
        let t2 = _mm512_unpacklo_ps(m[2], m[3]);
        let t3 = _mm512_unpackhi_ps(m[2], m[3]);
        [
            _mm512_shuffle_ps::<LOW_PAIRS>(t0, t2),
            _mm512_shuffle_ps::<HIGH_PAIRS>(t0, t2),
            _mm512_shuffle_ps::<LOW_PAIRS>(t1, t3),
            _mm512_shuffle_ps::<HIGH_PAIRS>(t1, t3),
        ]
    })
}

/// One word of `load_rows`: the four floats at each pointer, in its four quarters.
///
/// # Safety
/// Each pointer must be valid for reading four `f32`.
#[inline(always)]
unsafe fn quarters(r0: *const f32, r1: *const f32, r2: *const f32, r3: *const f32) -> __m512 {
    avx512!({
        let w = _mm512_castps128_ps512(_mm_loadu_ps(r0));
        let w = _mm512_insertf32x4::<1>(w, _mm_loadu_ps(r1));
        let w = _mm512_insertf32x4::<2>(w, _mm_loadu_ps(r2));
        _mm512_insertf32x4::<3>(w, _mm_loadu_ps(r3))
    })
}

/// The word of a compare's mask register: every bit of lane `l` set when bit `l` is.
#[inline(always)]
fn mask_word(mask: __mmask16) -> F32x16 {
    F32x16(avx512!(_mm512_castsi512_ps(_mm512_maskz_set1_epi32(
        mask, -1
    ))))
}

/// The mask register of a mask word: bit `l` set when lane `l` has any bit set.
#[inline(always)]
fn mask_bits(word: F32x16) -> __mmask16 {
    avx512!({
        let bits = _mm512_castps_si512(word.0);
        _mm512_test_epi32_mask(bits, bits)
    })
}

impl Wide for F32x16 {
    const LANES: usize = 16;
    // SAFETY: `[f32; 16]` and `__m512` have the same size and every bit pattern is valid.
    const ZERO: F32x16 = F32x16(unsafe { std::mem::transmute::<[f32; 16], __m512>([0.0; 16]) });
    type Index = [u32; 16];

    #[inline(always)]
    fn index_splat(value: u32) -> [u32; 16] {
        [value; 16]
    }
    #[inline(always)]
    fn splat(x: f32) -> F32x16 {
        F32x16(avx512!(_mm512_set1_ps(x)))
    }
    #[inline(always)]
    fn min(self, o: F32x16) -> F32x16 {
        // As `minps`: the second operand when either is NaN or both are zero.
        F32x16(avx512!(_mm512_min_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn max(self, o: F32x16) -> F32x16 {
        F32x16(avx512!(_mm512_max_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn gt(self, o: F32x16) -> F32x16 {
        // Ordered, non-signalling: `_mm_cmpgt_ps`.
        mask_word(avx512!(_mm512_cmp_ps_mask::<_CMP_GT_OS>(self.0, o.0)))
    }
    #[inline(always)]
    fn le(self, o: F32x16) -> F32x16 {
        mask_word(avx512!(_mm512_cmp_ps_mask::<_CMP_LE_OS>(self.0, o.0)))
    }
    #[inline(always)]
    fn eq(self, o: F32x16) -> F32x16 {
        mask_word(avx512!(_mm512_cmp_ps_mask::<_CMP_EQ_OQ>(self.0, o.0)))
    }
    #[inline(always)]
    fn and(self, o: F32x16) -> F32x16 {
        F32x16(avx512!(_mm512_castsi512_ps(_mm512_and_si512(
            _mm512_castps_si512(self.0),
            _mm512_castps_si512(o.0)
        ))))
    }
    #[inline(always)]
    fn select(mask: F32x16, a: F32x16, b: F32x16) -> F32x16 {
        F32x16(avx512!(_mm512_mask_blend_ps(mask_bits(mask), b.0, a.0)))
    }
    #[inline(always)]
    fn none(self) -> bool {
        mask_bits(self) == 0
    }
    #[inline(always)]
    fn either_zero(a: &[u32; 16], b: &[u32; 16]) -> F32x16 {
        // Both loads read sixteen `u32` of a reference.
        mask_word(avx512!({
            let zero = _mm512_setzero_si512();
            let a = _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(a.as_ptr().cast()), zero);
            let b = _mm512_cmpeq_epi32_mask(_mm512_loadu_si512(b.as_ptr().cast()), zero);
            a | b
        }))
    }
    #[inline(always)]
    fn set_lane(&mut self, l: usize, value: f32) {
        assert!(l < 16, "lane {l} of 16");
        // SAFETY: `__m512` is 64 bytes of sixteen `f32` in lane order; `l < 16`.
        unsafe { (self as *mut F32x16 as *mut f32).add(l).write(value) }
    }
    #[inline(always)]
    fn lane(self, l: usize) -> f32 {
        // SAFETY: as `ZERO`.
        let lanes = unsafe { std::mem::transmute::<__m512, [f32; 16]>(self.0) };
        lanes[l]
    }
    #[inline(always)]
    unsafe fn load_rows(row: impl Fn(usize) -> *const f32) -> [F32x16; 4] {
        // A loop and `quarters`, not a closure: a closure is not inlined into the entry
        // point's target feature, and its intrinsics became calls (the colour passes took
        // five times as long).
        let mut words = [avx512!(_mm512_setzero_ps()); 4];
        for (k, word) in words.iter_mut().enumerate() {
            *word = quarters(row(k), row(k + 4), row(k + 8), row(k + 12));
        }
        let [x, y, z, w] = transpose_quarters(words);
        [F32x16(x), F32x16(y), F32x16(z), F32x16(w)]
    }
    #[inline(always)]
    unsafe fn store_rows(columns: [F32x16; 4], row: impl Fn(usize) -> *mut f32) {
        let rows = transpose_quarters(columns.map(|c| c.0));
        for (k, r) in rows.iter().enumerate() {
            let quarters = avx512!([
                _mm512_castps512_ps128(*r),
                _mm512_extractf32x4_ps::<1>(*r),
                _mm512_extractf32x4_ps::<2>(*r),
                _mm512_extractf32x4_ps::<3>(*r),
            ]);
            for (q, &quarter) in quarters.iter().enumerate() {
                let p = row(k + 4 * q);
                if !p.is_null() {
                    _mm_storeu_ps(p, quarter);
                }
            }
        }
    }
}

macro_rules! binary_op {
    ($tr:ident, $f:ident, $intr:ident) => {
        impl $tr for F32x16 {
            type Output = F32x16;
            #[inline(always)]
            fn $f(self, o: F32x16) -> F32x16 {
                F32x16(avx512!($intr(self.0, o.0)))
            }
        }
    };
}

binary_op!(Add, add, _mm512_add_ps);
binary_op!(Sub, sub, _mm512_sub_ps);
binary_op!(Mul, mul, _mm512_mul_ps);
binary_op!(Div, div, _mm512_div_ps);

impl Neg for F32x16 {
    type Output = F32x16;
    #[inline(always)]
    fn neg(self) -> F32x16 {
        // The sign bit flipped, as `wide8.rs`' xor with -0.0.
        F32x16(avx512!(_mm512_castsi512_ps(_mm512_xor_si512(
            _mm512_castps_si512(self.0),
            _mm512_set1_epi32(i32::MIN)
        ))))
    }
}

impl AddAssign for F32x16 {
    #[inline(always)]
    fn add_assign(&mut self, o: F32x16) {
        *self = *self + o;
    }
}

impl SubAssign for F32x16 {
    #[inline(always)]
    fn sub_assign(&mut self, o: F32x16) {
        *self = *self - o;
    }
}

#[cfg(test)]
mod tests {
    use super::super::wide::F32x4;
    use super::*;

    /// Lane `l` of every operation is the SSE2 word's lane `l % 4` of the same operation
    /// (NaN and signed zeros included: `min`/`max` give the second operand), and the
    /// transposes move row `l` to lane `l` and back, skipping null rows.
    #[target_feature(enable = "avx512f")]
    fn lanes_match_sse2_and_rows_round_trip() {
        let a: [f32; 16] = std::array::from_fn(|l| match l {
            3 => f32::NAN,
            5 => -0.0,
            9 => f32::INFINITY,
            _ => l as f32 * 0.75 - 4.0,
        });
        let b: [f32; 16] = std::array::from_fn(|l| match l {
            6 => f32::NAN,
            5 => 0.0,
            _ => 2.0 - l as f32 * 0.5,
        });
        // Opaque to the compiler: folded at compile time, 0 / 0 would be the canonical NaN,
        // not the x86 default NaN the instructions give.
        let (a, b) = (std::hint::black_box(a), std::hint::black_box(b));
        let word = |x: &[f32; 16]| {
            let mut w = F32x16::ZERO;
            for (l, &v) in x.iter().enumerate() {
                w.set_lane(l, v);
            }
            w
        };
        let (wa, wb) = (word(&a), word(&b));
        for q in 0..4 {
            let quarter = |x: &[f32; 16]| F32x4::from_array(std::array::from_fn(|j| x[4 * q + j]));
            let (sa, sb) = (quarter(&a), quarter(&b));
            let pairs: [(F32x16, F32x4); 9] = [
                (wa + wb, sa + sb),
                (wa - wb, sa - sb),
                (wa * wb, sa * sb),
                (wa / wb, sa / sb),
                (wa.min(wb), sa.min(sb)),
                (wa.max(wb), sa.max(sb)),
                (-wa, -sa),
                (
                    F32x16::select(wa.gt(wb), wa, wb),
                    F32x4::select(sa.gt(sb), sa, sb),
                ),
                (F32x16::select(wa.le(wb).and(wa.finite()), wa, wb), {
                    F32x4::select(sa.le(sb).and(sa.finite()), sa, sb)
                }),
            ];
            for (k, (wide, narrow)) in pairs.iter().enumerate() {
                for j in 0..4 {
                    assert_eq!(
                        wide.lane(4 * q + j).to_bits(),
                        narrow.lane(j).to_bits(),
                        "operation {k}, lane {}",
                        4 * q + j
                    );
                }
            }
        }
        assert!(wa.gt(F32x16::splat(f32::INFINITY)).none() && !wa.gt(wb).none());
        let zeros: [u32; 16] = std::array::from_fn(|l| if l == 2 { 0 } else { 7 });
        let other: [u32; 16] = std::array::from_fn(|l| if l == 11 { 0 } else { 1 });
        let either = F32x16::either_zero(&zeros, &other);
        for l in 0..16 {
            assert_eq!(either.lane(l).to_bits() != 0, l == 2 || l == 11, "lane {l}");
        }
        let rows: Vec<[f32; 4]> = (0..16)
            .map(|r| std::array::from_fn(|c| (4 * r + c) as f32))
            .collect();
        // SAFETY: every row is four floats.
        let columns = unsafe { F32x16::load_rows(|l| rows[l].as_ptr()) };
        for (c, column) in columns.iter().enumerate() {
            for l in 0..16 {
                assert_eq!(column.lane(l), (4 * l + c) as f32);
            }
        }
        let mut back = vec![[-1.0f32; 4]; 16];
        let base = back.as_mut_ptr();
        // SAFETY: every non-null row is four floats of `back`.
        unsafe {
            F32x16::store_rows(columns, |l| {
                if l == 13 {
                    std::ptr::null_mut()
                } else {
                    base.add(l) as *mut f32
                }
            })
        };
        for (l, row) in back.iter().enumerate() {
            let want = if l == 13 { [-1.0; 4] } else { rows[l] };
            assert_eq!(*row, want, "row {l}");
        }
    }

    #[test]
    fn sixteen_lanes_match_sse2_and_rows_round_trip() {
        if avx512_available() {
            // SAFETY: the CPU has AVX-512F.
            unsafe { lanes_match_sse2_and_rows_round_trip() };
        }
    }
}
