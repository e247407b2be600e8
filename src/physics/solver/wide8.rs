//! `F32x8`: eight `f32` lanes in an AVX `__m256`, the batched contact solver's wide word on
//! machines with AVX2 (x86_64 only).
//!
//! Rules (as `wide.rs`, which defines the `Wide` trait this implements):
//! - Lane `l` is constraint `l` of an eight-wide batch; nothing mixes lanes except
//!   `load_rows` / `store_rows`.
//! - Every operation is the IEEE operation of its SSE2 twin, lane by lane; no fused
//!   multiply-add. A step solved eight wide is bitwise the step solved four wide.
//! - The intrinsics need AVX. Nothing here checks for it: these functions are only ever
//!   inlined into the `#[target_feature(enable = "avx2")]` entry points of
//!   `contact_simd.rs`, which run only after `avx2_available()` said yes. Each `unsafe`
//!   block below relies on that.
//!
//! Transpose of eight rows `r0..r7` of four floats (`load_rows`): pair them into 256-bit
//! words `[r0|r4] [r1|r5] [r2|r6] [r3|r7]`, then run the usual 4x4 SSE transpose
//! (unpack lo/hi, then shuffle the 64-bit halves) in both 128-bit halves at once:
//! ```text
//! t0 = unpacklo([r0|r4], [r1|r5]) = [x0 x1 y0 y1 | x4 x5 y4 y5]
//! t1 = unpackhi([r0|r4], [r1|r5]) = [z0 z1 w0 w1 | z4 z5 w4 w5]
//! t2, t3 likewise for r2, r3 | r6, r7
//! x = shuffle(t0, t2, 1 0 1 0) = [x0 x1 x2 x3 | x4 x5 x6 x7]   y = shuffle(t0, t2, 3 2 3 2)
//! z = shuffle(t1, t3, 1 0 1 0)                                 w = shuffle(t1, t3, 3 2 3 2)
//! ```
//! `store_rows` runs the same steps on the columns and splits each result into its halves.

use core::arch::x86_64::*;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

use super::wide::Wide;

/// Eight `f32` lanes.
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x8(__m256);

/// True when this CPU runs AVX2 (checked once, then cached by the standard library).
#[inline]
pub fn avx2_available() -> bool {
    std::arch::is_x86_feature_detected!("avx2")
}

/// Evaluate AVX intrinsics.
macro_rules! avx {
    ($e:expr) => {
        // SAFETY: only reached inside the AVX2 entry points (see the file's rules).
        unsafe { $e }
    };
}

/// `_MM_SHUFFLE(z, y, x, w)`.
const fn shuffle_mask(z: i32, y: i32, x: i32, w: i32) -> i32 {
    (z << 6) | (y << 4) | (x << 2) | w
}
const LOW_PAIRS: i32 = shuffle_mask(1, 0, 1, 0);
const HIGH_PAIRS: i32 = shuffle_mask(3, 2, 3, 2);

/// The 4x4 transpose in both 128-bit halves of four words.
#[inline(always)]
fn transpose_halves(m: [__m256; 4]) -> [__m256; 4] {
    avx!({
        let t0 = _mm256_unpacklo_ps(m[0], m[1]);
        let t1 = _mm256_unpackhi_ps(m[0], m[1]);
        let t2 = _mm256_unpacklo_ps(m[2], m[3]);
        let t3 = _mm256_unpackhi_ps(m[2], m[3]);
        [
            _mm256_shuffle_ps::<LOW_PAIRS>(t0, t2),
            _mm256_shuffle_ps::<HIGH_PAIRS>(t0, t2),
            _mm256_shuffle_ps::<LOW_PAIRS>(t1, t3),
            _mm256_shuffle_ps::<HIGH_PAIRS>(t1, t3),
        ]
    })
}

impl Wide for F32x8 {
    const LANES: usize = 8;
    // SAFETY: `[f32; 8]` and `__m256` have the same size and every bit pattern is valid.
    const ZERO: F32x8 = F32x8(unsafe { std::mem::transmute::<[f32; 8], __m256>([0.0; 8]) });
    type Index = [u32; 8];

    #[inline(always)]
    fn index_splat(value: u32) -> [u32; 8] {
        [value; 8]
    }
    #[inline(always)]
    fn splat(x: f32) -> F32x8 {
        F32x8(avx!(_mm256_set1_ps(x)))
    }
    #[inline(always)]
    fn min(self, o: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_min_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn max(self, o: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_max_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn gt(self, o: F32x8) -> F32x8 {
        // Ordered, non-signalling: `_mm_cmpgt_ps`.
        F32x8(avx!(_mm256_cmp_ps::<_CMP_GT_OS>(self.0, o.0)))
    }
    #[inline(always)]
    fn le(self, o: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_cmp_ps::<_CMP_LE_OS>(self.0, o.0)))
    }
    #[inline(always)]
    fn eq(self, o: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_cmp_ps::<_CMP_EQ_OQ>(self.0, o.0)))
    }
    #[inline(always)]
    fn and(self, o: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_and_ps(self.0, o.0)))
    }
    #[inline(always)]
    fn select(mask: F32x8, a: F32x8, b: F32x8) -> F32x8 {
        F32x8(avx!(_mm256_blendv_ps(b.0, a.0, mask.0)))
    }
    #[inline(always)]
    fn none(self) -> bool {
        avx!(_mm256_movemask_ps(self.0)) == 0
    }
    #[inline(always)]
    fn either_zero(a: &[u32; 8], b: &[u32; 8]) -> F32x8 {
        // Both loads read eight `u32` of a reference.
        F32x8(avx!({
            let zero = _mm256_setzero_si256();
            let a = _mm256_cmpeq_epi32(_mm256_loadu_si256(a.as_ptr().cast()), zero);
            let b = _mm256_cmpeq_epi32(_mm256_loadu_si256(b.as_ptr().cast()), zero);
            _mm256_castsi256_ps(_mm256_or_si256(a, b))
        }))
    }
    #[inline(always)]
    fn set_lane(&mut self, l: usize, value: f32) {
        assert!(l < 8, "lane {l} of 8");
        // SAFETY: `__m256` is 32 bytes of eight `f32` in lane order; `l < 8`.
        unsafe { (self as *mut F32x8 as *mut f32).add(l).write(value) }
    }
    #[inline(always)]
    fn lane(self, l: usize) -> f32 {
        // SAFETY: as `ZERO`.
        let lanes = unsafe { std::mem::transmute::<__m256, [f32; 8]>(self.0) };
        lanes[l]
    }
    #[inline(always)]
    unsafe fn load_rows(row: impl Fn(usize) -> *const f32) -> [F32x8; 4] {
        let pair = |l: usize| {
            let low = _mm_loadu_ps(row(l));
            let high = _mm_loadu_ps(row(l + 4));
            avx!(_mm256_insertf128_ps::<1>(_mm256_castps128_ps256(low), high))
        };
        transpose_halves([pair(0), pair(1), pair(2), pair(3)]).map(F32x8)
    }
    #[inline(always)]
    unsafe fn store_rows(columns: [F32x8; 4], row: impl Fn(usize) -> *mut f32) {
        let rows = transpose_halves(columns.map(|c| c.0));
        for (l, r) in rows.iter().enumerate() {
            let (low, high) = avx!((_mm256_castps256_ps128(*r), _mm256_extractf128_ps::<1>(*r)));
            let p = row(l);
            if !p.is_null() {
                _mm_storeu_ps(p, low);
            }
            let p = row(l + 4);
            if !p.is_null() {
                _mm_storeu_ps(p, high);
            }
        }
    }
}

macro_rules! binary_op {
    ($tr:ident, $f:ident, $intr:ident) => {
        impl $tr for F32x8 {
            type Output = F32x8;
            #[inline(always)]
            fn $f(self, o: F32x8) -> F32x8 {
                F32x8(avx!($intr(self.0, o.0)))
            }
        }
    };
}

binary_op!(Add, add, _mm256_add_ps);
binary_op!(Sub, sub, _mm256_sub_ps);
binary_op!(Mul, mul, _mm256_mul_ps);
binary_op!(Div, div, _mm256_div_ps);

impl Neg for F32x8 {
    type Output = F32x8;
    #[inline(always)]
    fn neg(self) -> F32x8 {
        F32x8(avx!(_mm256_xor_ps(self.0, _mm256_set1_ps(-0.0))))
    }
}

impl AddAssign for F32x8 {
    #[inline(always)]
    fn add_assign(&mut self, o: F32x8) {
        *self = *self + o;
    }
}

impl SubAssign for F32x8 {
    #[inline(always)]
    fn sub_assign(&mut self, o: F32x8) {
        *self = *self - o;
    }
}
