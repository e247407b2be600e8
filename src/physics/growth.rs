//! How the arrays that hold one entry per contact grow: to what is asked plus an eighth,
//! not to twice their capacity as `Vec` does.
//!
//! The contacts (192 bytes each), their solver batches (128 bytes a contact at eight lanes)
//! and the per-contact scratch are the largest buffers of a step and are kept from step to
//! step. Doubling left them up to twice the largest count a scene reached: on the washer
//! (32,740 pairs) the contact array held 65,536 slots and the 8-lane batches 8.2 MB, about
//! twice the room used (4.6 MB growing by an eighth), so after a second of running its bytes
//! per pair were 1.9 times those after one step, and above Box2D's. Growing by an eighth keeps the slack under an eighth
//! of the peak and still grows geometrically (each element is copied a bounded number of
//! times on average); the first allocation is exact, as `Vec::resize` makes it. Capacity
//! never changes results: only where the elements live.

/// Make room in `v` for `len` elements in all: when its capacity is short, grow it to
/// `len` or by an eighth, whichever is more (the first allocation is exact).
#[inline]
pub(crate) fn reserve_total<T>(v: &mut Vec<T>, len: usize) {
    let capacity = v.capacity();
    if len > capacity {
        v.reserve_exact(len.max(capacity + capacity / 8) - v.len());
    }
}

/// `v.resize(len, value)` with the capacity grown as `reserve_total` does.
#[inline]
pub(crate) fn resize_total<T: Clone>(v: &mut Vec<T>, len: usize, value: T) {
    reserve_total(v, len);
    v.resize(len, value);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grows_by_an_eighth_not_doubling_and_never_shrinks() {
        let mut v: Vec<u32> = Vec::new();
        resize_total(&mut v, 800, 7);
        assert_eq!(
            (v.len(), v.capacity()),
            (800, 800),
            "first allocation exact"
        );
        // A little more: an eighth more room, not twice.
        resize_total(&mut v, 801, 1);
        assert_eq!((v.len(), v.capacity()), (801, 900));
        assert_eq!((v[799], v[800]), (7, 1));
        // Within the capacity: no reallocation.
        let ptr = v.as_ptr();
        resize_total(&mut v, 900, 2);
        assert_eq!((v.capacity(), v.as_ptr()), (900, ptr));
        // Far past it: what is asked.
        reserve_total(&mut v, 2000);
        assert_eq!(v.capacity(), 2000);
        v.truncate(10);
        resize_total(&mut v, 20, 0);
        assert_eq!(v.capacity(), 2000, "kept");
    }
}
