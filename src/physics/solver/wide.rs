//! `F32x4`: four `f32` lanes, the solver's SIMD word, and `Wide`, the operations the batched
//! contact solver needs of any SIMD word (`F32x4` here, `F32x8` in `wide8.rs`, `F32x16` in `wide16.rs`).
//!
//! Layout and rules:
//! - One value of four independent constraints (lane `i` is constraint `i` of a batch; see
//!   `contact_simd.rs`). Nothing ever mixes lanes except `transpose`, which converts four
//!   bodies' rows `[v.x, v.y, w, d_angle]` into the four columns `v.x[4], v.y[4], w[4],
//!   d_angle[4]` (and back: a 4x4 transpose is its own inverse).
//! - On x86_64 the lanes are an SSE2 `__m128` (SSE2 is part of the x86_64 baseline, so no
//!   target feature or runtime detection is needed). Elsewhere they are a plain `[f32; 4]`
//!   with lane-by-lane arithmetic; both give the IEEE results of the same operations, lane by
//!   lane, so the solver's arithmetic is the same on either.
//! - No fused multiply-add: `a + b * c` is a multiply then an add, as the scalar code does.
//! - Comparisons return masks (all bits set in a true lane) for `select`.

#[cfg(target_arch = "x86_64")]
use core::arch::x86_64::*;
use std::ops::{Add, AddAssign, Div, Mul, Neg, Sub, SubAssign};

/// Evaluate SSE2 intrinsics that only touch registers.
#[cfg(target_arch = "x86_64")]
macro_rules! sse {
    ($e:expr) => {
        // SAFETY: SSE2 is part of the x86_64 baseline, so the target feature these
        // intrinsics require is always present; the expressions passed here do no memory
        // access.
        unsafe { $e }
    };
}

/// Four `f32` lanes.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy, Debug)]
#[repr(transparent)]
pub struct F32x4(__m128);

/// Four `f32` lanes.
#[cfg(not(target_arch = "x86_64"))]
#[derive(Clone, Copy, Debug)]
#[repr(C, align(16))]
pub struct F32x4([f32; 4]);

impl F32x4 {
    /// Overwrite lane `l` (0..4) in memory, leaving the others alone (for packing).
    #[inline(always)]
    pub fn set_lane(&mut self, l: usize, value: f32) {
        assert!(l < 4, "lane {l} of 4");
        // SAFETY: both representations are 16 bytes of four `f32` in lane order, and
        // `l < 4` keeps the write inside them.
        unsafe { (self as *mut F32x4 as *mut f32).add(l).write(value) }
    }
}

impl Default for F32x4 {
    fn default() -> Self {
        F32x4::ZERO
    }
}

#[cfg(target_arch = "x86_64")]
impl F32x4 {
    pub const ZERO: F32x4 = F32x4::from_array([0.0; 4]);

    #[inline(always)]
    pub const fn from_array(a: [f32; 4]) -> F32x4 {
        // SAFETY: `[f32; 4]` and `__m128` have the same size and every bit pattern is valid.
        F32x4(unsafe { std::mem::transmute::<[f32; 4], __m128>(a) })
    }

    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        // SAFETY: as in `from_array`.
        unsafe { std::mem::transmute::<__m128, [f32; 4]>(self.0) }
    }

    #[inline(always)]
    pub fn splat(x: f32) -> F32x4 {
        F32x4(sse!(_mm_set1_ps(x)))
    }

    /// Four floats from `p` (no alignment needed).
    ///
    /// # Safety
    /// `p` must be valid for reading four `f32`.
    #[inline(always)]
    pub unsafe fn load(p: *const f32) -> F32x4 {
        F32x4(_mm_loadu_ps(p))
    }

    /// Write the four lanes to `p` (no alignment needed).
    ///
    /// # Safety
    /// `p` must be valid for writing four `f32`.
    #[inline(always)]
    pub unsafe fn store(self, p: *mut f32) {
        _mm_storeu_ps(p, self.0)
    }

    #[inline(always)]
    pub fn min(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_min_ps(self.0, o.0)))
    }

    #[inline(always)]
    pub fn max(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_max_ps(self.0, o.0)))
    }

    /// Mask of the lanes where `self > o`.
    #[inline(always)]
    pub fn gt(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_cmpgt_ps(self.0, o.0)))
    }

    /// Mask of the lanes where `self < o`.
    #[inline(always)]
    pub fn lt(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_cmplt_ps(self.0, o.0)))
    }

    /// Mask of the lanes where `self <= o`.
    #[inline(always)]
    pub fn le(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_cmple_ps(self.0, o.0)))
    }

    /// Mask of the lanes where `self == o`.
    #[inline(always)]
    pub fn eq(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_cmpeq_ps(self.0, o.0)))
    }

    /// Lanes where both masks are set.
    #[inline(always)]
    pub fn and(self, o: F32x4) -> F32x4 {
        F32x4(sse!(_mm_and_ps(self.0, o.0)))
    }

    /// `mask ? a : b`, lane by lane (`mask` from a comparison).
    #[inline(always)]
    pub fn select(mask: F32x4, a: F32x4, b: F32x4) -> F32x4 {
        F32x4(sse!({
            _mm_or_ps(_mm_and_ps(mask.0, a.0), _mm_andnot_ps(mask.0, b.0))
        }))
    }

    /// True when no lane of the mask is set.
    #[inline(always)]
    pub fn none(self) -> bool {
        sse!(_mm_movemask_ps(self.0)) == 0
    }

    /// Mask of the lanes where `a` or `b` is 0.
    #[inline(always)]
    pub fn either_zero(a: &[u32; 4], b: &[u32; 4]) -> F32x4 {
        // SAFETY: SSE2 is baseline (`sse!`); both loads read four `u32` of a reference.
        F32x4(unsafe {
            let zero = _mm_setzero_si128();
            let a = _mm_cmpeq_epi32(_mm_loadu_si128(a.as_ptr().cast()), zero);
            let b = _mm_cmpeq_epi32(_mm_loadu_si128(b.as_ptr().cast()), zero);
            _mm_castsi128_ps(_mm_or_si128(a, b))
        })
    }

    /// 4x4 transpose of four rows.
    #[inline(always)]
    pub fn transpose(r: [F32x4; 4]) -> [F32x4; 4] {
        sse!({
            let t0 = _mm_unpacklo_ps(r[0].0, r[1].0);
            let t1 = _mm_unpacklo_ps(r[2].0, r[3].0);
            let t2 = _mm_unpackhi_ps(r[0].0, r[1].0);
            let t3 = _mm_unpackhi_ps(r[2].0, r[3].0);
            [
                F32x4(_mm_movelh_ps(t0, t1)),
                F32x4(_mm_movehl_ps(t1, t0)),
                F32x4(_mm_movelh_ps(t2, t3)),
                F32x4(_mm_movehl_ps(t3, t2)),
            ]
        })
    }
}

#[cfg(target_arch = "x86_64")]
macro_rules! binary_op {
    ($tr:ident, $f:ident, $intr:ident) => {
        impl $tr for F32x4 {
            type Output = F32x4;
            #[inline(always)]
            fn $f(self, o: F32x4) -> F32x4 {
                F32x4(sse!($intr(self.0, o.0)))
            }
        }
    };
}

#[cfg(target_arch = "x86_64")]
binary_op!(Add, add, _mm_add_ps);
#[cfg(target_arch = "x86_64")]
binary_op!(Sub, sub, _mm_sub_ps);
#[cfg(target_arch = "x86_64")]
binary_op!(Mul, mul, _mm_mul_ps);
#[cfg(target_arch = "x86_64")]
binary_op!(Div, div, _mm_div_ps);

#[cfg(target_arch = "x86_64")]
impl Neg for F32x4 {
    type Output = F32x4;
    #[inline(always)]
    fn neg(self) -> F32x4 {
        F32x4(sse!(_mm_xor_ps(self.0, _mm_set1_ps(-0.0))))
    }
}

// ------------------------------------------------------------------------------------------
// Portable fallback: the same operations lane by lane.

#[cfg(not(target_arch = "x86_64"))]
impl F32x4 {
    pub const ZERO: F32x4 = F32x4([0.0; 4]);

    #[inline(always)]
    pub const fn from_array(a: [f32; 4]) -> F32x4 {
        F32x4(a)
    }

    #[inline(always)]
    pub fn to_array(self) -> [f32; 4] {
        self.0
    }

    #[inline(always)]
    pub fn splat(x: f32) -> F32x4 {
        F32x4([x; 4])
    }

    /// # Safety
    /// `p` must be valid for reading four `f32`.
    #[inline(always)]
    pub unsafe fn load(p: *const f32) -> F32x4 {
        F32x4(std::ptr::read_unaligned(p as *const [f32; 4]))
    }

    /// # Safety
    /// `p` must be valid for writing four `f32`.
    #[inline(always)]
    pub unsafe fn store(self, p: *mut f32) {
        std::ptr::write_unaligned(p as *mut [f32; 4], self.0)
    }

    #[inline(always)]
    fn map2(self, o: F32x4, f: impl Fn(f32, f32) -> f32) -> F32x4 {
        F32x4(std::array::from_fn(|i| f(self.0[i], o.0[i])))
    }

    #[inline(always)]
    fn mask(b: bool) -> f32 {
        f32::from_bits(if b { u32::MAX } else { 0 })
    }

    /// SSE semantics: the second operand when either is NaN or both are zero.
    #[inline(always)]
    pub fn min(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| if a < b { a } else { b })
    }

    #[inline(always)]
    pub fn max(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| if a > b { a } else { b })
    }

    #[inline(always)]
    pub fn gt(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| Self::mask(a > b))
    }

    #[inline(always)]
    pub fn lt(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| Self::mask(a < b))
    }

    #[inline(always)]
    pub fn le(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| Self::mask(a <= b))
    }

    #[inline(always)]
    pub fn eq(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| Self::mask(a == b))
    }

    #[inline(always)]
    pub fn and(self, o: F32x4) -> F32x4 {
        self.map2(o, |a, b| f32::from_bits(a.to_bits() & b.to_bits()))
    }

    #[inline(always)]
    pub fn select(mask: F32x4, a: F32x4, b: F32x4) -> F32x4 {
        F32x4(std::array::from_fn(|i| {
            if mask.0[i].to_bits() != 0 {
                a.0[i]
            } else {
                b.0[i]
            }
        }))
    }

    #[inline(always)]
    pub fn none(self) -> bool {
        self.0.iter().all(|x| x.to_bits() == 0)
    }

    #[inline(always)]
    pub fn either_zero(a: &[u32; 4], b: &[u32; 4]) -> F32x4 {
        F32x4(std::array::from_fn(|i| mask(a[i] == 0 || b[i] == 0)))
    }

    #[inline(always)]
    pub fn transpose(r: [F32x4; 4]) -> [F32x4; 4] {
        std::array::from_fn(|c| F32x4(std::array::from_fn(|l| r[l].0[c])))
    }
}

#[cfg(not(target_arch = "x86_64"))]
macro_rules! binary_op {
    ($tr:ident, $f:ident, $op:tt) => {
        impl $tr for F32x4 {
            type Output = F32x4;
            #[inline(always)]
            fn $f(self, o: F32x4) -> F32x4 {
                self.map2(o, |a, b| a $op b)
            }
        }
    };
}

#[cfg(not(target_arch = "x86_64"))]
binary_op!(Add, add, +);
#[cfg(not(target_arch = "x86_64"))]
binary_op!(Sub, sub, -);
#[cfg(not(target_arch = "x86_64"))]
binary_op!(Mul, mul, *);
#[cfg(not(target_arch = "x86_64"))]
binary_op!(Div, div, /);

#[cfg(not(target_arch = "x86_64"))]
impl Neg for F32x4 {
    type Output = F32x4;
    #[inline(always)]
    fn neg(self) -> F32x4 {
        F32x4(self.0.map(|x| -x))
    }
}

impl AddAssign for F32x4 {
    #[inline(always)]
    fn add_assign(&mut self, o: F32x4) {
        *self = *self + o;
    }
}

impl SubAssign for F32x4 {
    #[inline(always)]
    fn sub_assign(&mut self, o: F32x4) {
        *self = *self - o;
    }
}

/// What the batched contact solver needs of a SIMD word: `F32x4` (SSE2, every x86_64),
/// `F32x8` (AVX2, `wide8.rs`) and `F32x16` (AVX-512F, `wide16.rs`), the wide ones chosen at
/// run time. The kernels in `contact_simd.rs` are written once against this trait; lane `l`
/// is constraint `l` of a batch whatever the width, and every operation is the same IEEE
/// operation lane by lane, so every width gives bitwise the same results.
pub trait Wide:
    Copy
    + std::fmt::Debug
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
    + Neg<Output = Self>
    + AddAssign
    + SubAssign
{
    /// Lanes per word.
    const LANES: usize;
    const ZERO: Self;
    /// One `u32` per lane (body and contact indices of a batch).
    type Index: Copy + std::fmt::Debug + AsRef<[u32]> + AsMut<[u32]>;
    /// Every lane `value`.
    fn index_splat(value: u32) -> Self::Index;
    fn splat(x: f32) -> Self;
    fn min(self, o: Self) -> Self;
    fn max(self, o: Self) -> Self;
    /// Mask of the lanes where `self > o`.
    fn gt(self, o: Self) -> Self;
    /// Mask of the lanes where `self <= o`.
    fn le(self, o: Self) -> Self;
    /// Mask of the lanes where `self == o`.
    fn eq(self, o: Self) -> Self;
    /// Mask of the finite lanes: `x - x` is zero exactly when `x` is finite (NaN otherwise).
    #[inline(always)]
    #[allow(clippy::eq_op)]
    fn finite(self) -> Self {
        (self - self).eq(Self::ZERO)
    }
    /// Lanes where both masks are set.
    fn and(self, o: Self) -> Self;
    /// `mask ? a : b`, lane by lane.
    fn select(mask: Self, a: Self, b: Self) -> Self;
    /// True when no lane of the mask is set.
    fn none(self) -> bool;
    /// Mask of the lanes where index `a` or index `b` is 0.
    fn either_zero(a: &Self::Index, b: &Self::Index) -> Self;
    /// Overwrite lane `l` in memory (for packing).
    fn set_lane(&mut self, l: usize, value: f32);
    /// Lane `l`.
    fn lane(self, l: usize) -> f32;
    /// Load four consecutive floats at `row(l)` for every lane `l` and transpose: word `c`
    /// of the result holds float `c` of every row.
    ///
    /// # Safety
    /// Every `row(l)` must be valid for reading four `f32`.
    unsafe fn load_rows(row: impl Fn(usize) -> *const f32) -> [Self; 4];
    /// The inverse of `load_rows`: write float `c` of lane `l` to `row(l) + c`, skipping
    /// lanes whose pointer is null.
    ///
    /// # Safety
    /// Every non-null `row(l)` must be valid for writing four `f32`.
    unsafe fn store_rows(columns: [Self; 4], row: impl Fn(usize) -> *mut f32);
}

impl Wide for F32x4 {
    const LANES: usize = 4;
    const ZERO: F32x4 = F32x4::ZERO;
    type Index = [u32; 4];
    #[inline(always)]
    fn index_splat(value: u32) -> [u32; 4] {
        [value; 4]
    }
    #[inline(always)]
    fn splat(x: f32) -> F32x4 {
        F32x4::splat(x)
    }
    #[inline(always)]
    fn min(self, o: F32x4) -> F32x4 {
        F32x4::min(self, o)
    }
    #[inline(always)]
    fn max(self, o: F32x4) -> F32x4 {
        F32x4::max(self, o)
    }
    #[inline(always)]
    fn gt(self, o: F32x4) -> F32x4 {
        F32x4::gt(self, o)
    }
    #[inline(always)]
    fn le(self, o: F32x4) -> F32x4 {
        F32x4::le(self, o)
    }
    #[inline(always)]
    fn eq(self, o: F32x4) -> F32x4 {
        F32x4::eq(self, o)
    }
    #[inline(always)]
    fn and(self, o: F32x4) -> F32x4 {
        F32x4::and(self, o)
    }
    #[inline(always)]
    fn select(mask: F32x4, a: F32x4, b: F32x4) -> F32x4 {
        F32x4::select(mask, a, b)
    }
    #[inline(always)]
    fn none(self) -> bool {
        F32x4::none(self)
    }
    #[inline(always)]
    fn either_zero(a: &[u32; 4], b: &[u32; 4]) -> F32x4 {
        F32x4::either_zero(a, b)
    }
    #[inline(always)]
    fn set_lane(&mut self, l: usize, value: f32) {
        F32x4::set_lane(self, l, value)
    }
    #[inline(always)]
    fn lane(self, l: usize) -> f32 {
        self.to_array()[l]
    }
    #[inline(always)]
    unsafe fn load_rows(row: impl Fn(usize) -> *const f32) -> [F32x4; 4] {
        F32x4::transpose(std::array::from_fn(|l| F32x4::load(row(l))))
    }
    #[inline(always)]
    unsafe fn store_rows(columns: [F32x4; 4], row: impl Fn(usize) -> *mut f32) {
        for (l, r) in F32x4::transpose(columns).iter().enumerate() {
            let p = row(l);
            if !p.is_null() {
                r.store(p);
            }
        }
    }
}

/// One lane: a plain `f32`. The scalar overflow of a batched kernel (the constraints the
/// colouring could not place) runs the same generic code as the wide batches, one
/// constraint at a time. Masks are all bits set (true) or zero, as in the SIMD words; `min`
/// and `max` follow SSE's `minps`/`maxps` (`a < b ? a : b`, `a > b ? a : b`).
impl Wide for f32 {
    const LANES: usize = 1;
    const ZERO: f32 = 0.0;
    type Index = [u32; 1];
    #[inline(always)]
    fn index_splat(value: u32) -> [u32; 1] {
        [value]
    }
    #[inline(always)]
    fn splat(x: f32) -> f32 {
        x
    }
    #[inline(always)]
    fn min(self, o: f32) -> f32 {
        if self < o {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn max(self, o: f32) -> f32 {
        if self > o {
            self
        } else {
            o
        }
    }
    #[inline(always)]
    fn gt(self, o: f32) -> f32 {
        mask(self > o)
    }
    #[inline(always)]
    fn le(self, o: f32) -> f32 {
        mask(self <= o)
    }
    #[inline(always)]
    fn eq(self, o: f32) -> f32 {
        mask(self == o)
    }
    #[inline(always)]
    fn and(self, o: f32) -> f32 {
        f32::from_bits(self.to_bits() & o.to_bits())
    }
    #[inline(always)]
    fn select(mask: f32, a: f32, b: f32) -> f32 {
        if mask.to_bits() != 0 {
            a
        } else {
            b
        }
    }
    #[inline(always)]
    fn none(self) -> bool {
        self.to_bits() == 0
    }
    #[inline(always)]
    fn either_zero(a: &[u32; 1], b: &[u32; 1]) -> f32 {
        mask(a[0] == 0 || b[0] == 0)
    }
    #[inline(always)]
    fn set_lane(&mut self, l: usize, value: f32) {
        debug_assert_eq!(l, 0);
        *self = value;
    }
    #[inline(always)]
    fn lane(self, l: usize) -> f32 {
        debug_assert_eq!(l, 0);
        self
    }
    #[inline(always)]
    unsafe fn load_rows(row: impl Fn(usize) -> *const f32) -> [f32; 4] {
        std::ptr::read_unaligned(row(0) as *const [f32; 4])
    }
    #[inline(always)]
    unsafe fn store_rows(columns: [f32; 4], row: impl Fn(usize) -> *mut f32) {
        let p = row(0);
        if !p.is_null() {
            std::ptr::write_unaligned(p as *mut [f32; 4], columns);
        }
    }
}

/// A one-lane mask.
#[inline(always)]
fn mask(on: bool) -> f32 {
    f32::from_bits(if on { u32::MAX } else { 0 })
}

/// A 2D vector of `W::LANES` lanes.
#[derive(Clone, Copy, Debug)]
pub struct Vec2W<W> {
    pub x: W,
    pub y: W,
}

impl<W: Wide> Vec2W<W> {
    pub const ZERO: Vec2W<W> = Vec2W {
        x: W::ZERO,
        y: W::ZERO,
    };

    #[inline(always)]
    pub fn dot(self, o: Vec2W<W>) -> W {
        self.x * o.x + self.y * o.y
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lanes_compute_independently_and_transpose_round_trips() {
        let a = F32x4::from_array([1.0, -2.0, 3.0, 0.5]);
        let b = F32x4::from_array([2.0, 2.0, -1.0, 0.5]);
        assert_eq!((a + b).to_array(), [3.0, 0.0, 2.0, 1.0]);
        assert_eq!((a * b).to_array(), [2.0, -4.0, -3.0, 0.25]);
        assert_eq!(a.max(b).to_array(), [2.0, 2.0, 3.0, 0.5]);
        assert_eq!(a.min(b).to_array(), [1.0, -2.0, -1.0, 0.5]);
        let m = a.gt(b);
        assert_eq!(F32x4::select(m, a, b).to_array(), [2.0, 2.0, 3.0, 0.5]);
        assert!(!m.none() && a.lt(F32x4::splat(-5.0)).none());
        assert_eq!((-a).to_array(), [-1.0, 2.0, -3.0, -0.5]);
        let rows: [F32x4; 4] =
            std::array::from_fn(|r| F32x4::from_array(std::array::from_fn(|c| (4 * r + c) as f32)));
        let cols = F32x4::transpose(rows);
        assert_eq!(cols[1].to_array(), [1.0, 5.0, 9.0, 13.0]);
        let back = F32x4::transpose(cols);
        for r in 0..4 {
            assert_eq!(back[r].to_array(), rows[r].to_array());
        }
    }
}
