//! `PairSet`: the set of live contact pair keys (`contact::pair_key`), an open-addressing
//! table of plain `u64` slots with linear probing.
//!
//! The contact set asks it three things: `contains` (every overlap the broad phase reports,
//! tens of thousands a step on a tumbling pile), `insert` (each new contact) and `remove`
//! (each pair that parts; thousands a step where bodies stream past each other). Each is a
//! cache miss into a table far larger than the caches, so the layout is chosen for misses:
//! - one array of keys, no separate control bytes: a lookup reads one line where a
//!   `std::collections::HashSet` reads its control group and then its slot;
//! - removal shifts the following keys of the run back into the hole (no tombstones), so
//!   the table never fills with the dead of earlier steps and never rehashes in place;
//! - `prefetch(key)` asks for a key's slot ahead of time, so a loop over many keys known
//!   in advance (the pairs that parted, the new pairs) keeps several misses in flight.
//!
//! The empty slot is `u64::MAX`, which no pair key is (the smaller shape slot is in the
//! high half, so both halves would have to be `u32::MAX`). The table doubles when it is
//! three quarters full (runs stay a line or two long; at half full the larger table missed
//! the caches more often than the shorter runs saved). It never shrinks, as the standard
//! set does not.

/// A slot with no key.
const EMPTY: u64 = u64::MAX;

/// Slots of the first table (a power of two).
const FIRST_CAPACITY: usize = 64;

/// Set of pair keys (any `u64` but `u64::MAX`).
#[derive(Clone, Debug, Default)]
pub(crate) struct PairSet {
    /// `EMPTY` or a key; the length is zero or a power of two.
    slots: Vec<u64>,
    len: usize,
}

impl PairSet {
    /// Number of keys.
    #[cfg(test)]
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// The home slot of `key`: SplitMix64's finaliser (Steele, Lea, Flood 2014), so that
    /// keys differing in either shape slot spread over the whole table.
    #[inline]
    fn home(&self, key: u64) -> usize {
        let mut x = key;
        x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        x ^= x >> 31;
        (x as usize) & (self.slots.len() - 1)
    }

    /// The slot holding `key`, if any.
    #[inline]
    fn find(&self, key: u64) -> Option<usize> {
        debug_assert_ne!(key, EMPTY, "u64::MAX is not a pair key");
        if self.slots.is_empty() {
            return None;
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.slots[i] {
                k if k == key => return Some(i),
                EMPTY => return None,
                _ => i = (i + 1) & mask,
            }
        }
    }

    #[inline]
    pub(crate) fn contains(&self, key: &u64) -> bool {
        self.find(*key).is_some()
    }

    /// Ask the CPU to bring `key`'s home slot in (a hint: no effect on the set).
    #[inline]
    pub(crate) fn prefetch(&self, key: u64) {
        #[cfg(target_arch = "x86_64")]
        if !self.slots.is_empty() {
            use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
            let p = self.slots.as_ptr().wrapping_add(self.home(key)) as *const i8;
            // SAFETY: a prefetch never faults and reads nothing the program sees; the
            // address is inside the table.
            unsafe { _mm_prefetch::<_MM_HINT_T0>(p) };
        }
        #[cfg(not(target_arch = "x86_64"))]
        let _ = key;
    }

    /// Add `key`; false when it was there already.
    pub(crate) fn insert(&mut self, key: u64) -> bool {
        debug_assert_ne!(key, EMPTY, "u64::MAX is not a pair key");
        if (self.len + 1) * 4 > self.slots.len() * 3 {
            self.grow();
        }
        let mask = self.slots.len() - 1;
        let mut i = self.home(key);
        loop {
            match self.slots[i] {
                k if k == key => return false,
                EMPTY => {
                    self.slots[i] = key;
                    self.len += 1;
                    return true;
                }
                _ => i = (i + 1) & mask,
            }
        }
    }

    /// Take `key` out; false when it was not there. The keys after it in its run move back
    /// so that every key stays reachable from its home slot without gaps.
    pub(crate) fn remove(&mut self, key: &u64) -> bool {
        let Some(mut hole) = self.find(*key) else {
            return false;
        };
        let mask = self.slots.len() - 1;
        let mut i = hole;
        loop {
            i = (i + 1) & mask;
            let k = self.slots[i];
            if k == EMPTY {
                break;
            }
            // `k` may fill the hole when its home is not in (hole, i], cyclically: then
            // the probe from its home passes the hole on its way to `i`.
            let home = self.home(k);
            let stays = if hole <= i {
                hole < home && home <= i
            } else {
                hole < home || home <= i
            };
            if !stays {
                self.slots[hole] = k;
                hole = i;
            }
        }
        self.slots[hole] = EMPTY;
        self.len -= 1;
        true
    }

    /// Room for `additional` more keys: the table doubled (or made) as often as inserting
    /// them one by one would double it, but its keys put back once.
    pub(crate) fn reserve(&mut self, additional: usize) {
        let mut capacity = self.slots.len();
        while (self.len + additional) * 4 > capacity * 3 {
            capacity = (capacity * 2).max(FIRST_CAPACITY);
        }
        if capacity > self.slots.len() {
            self.grow_to(capacity);
        }
    }

    /// Double the table (or make the first one) and put every key back.
    fn grow(&mut self) {
        self.grow_to((self.slots.len() * 2).max(FIRST_CAPACITY));
    }

    /// A table of `capacity` slots (a power of two) with every key put back.
    fn grow_to(&mut self, capacity: usize) {
        let old = std::mem::replace(&mut self.slots, vec![EMPTY; capacity]);
        self.len = 0;
        for key in old.into_iter().filter(|&k| k != EMPTY) {
            self.insert(key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    /// xorshift64*, for reproducible random keys.
    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
    }

    /// Random inserts, removes and lookups agree with the standard set at every step, over
    /// a small key range (long runs, many collisions, removals inside runs and across the
    /// table's wrap) and a wide one, through several growths.
    #[test]
    fn agrees_with_the_standard_set() {
        for (range, ops) in [(300u64, 20_000), (1 << 40, 20_000), (5_000, 60_000)] {
            let mut rng = Rng(0x9e37_79b9_7f4a_7c15 ^ range);
            let (mut set, mut reference) = (PairSet::default(), HashSet::new());
            for op in 0..ops {
                let key = rng.next() % range;
                match rng.next() % 3 {
                    0 => assert_eq!(set.insert(key), reference.insert(key), "insert {key}"),
                    1 => assert_eq!(set.remove(&key), reference.remove(&key), "remove {key}"),
                    _ => assert_eq!(set.contains(&key), reference.contains(&key), "{key}"),
                }
                assert_eq!(set.len(), reference.len(), "length after {op} operations");
            }
            // Every key of the reference is found, and nothing else in a sample.
            for key in &reference {
                assert!(set.contains(key), "{key} lost");
            }
            for _ in 0..1_000 {
                let key = rng.next() % range;
                assert_eq!(set.contains(&key), reference.contains(&key), "{key}");
            }
            // The table stays at most three quarters full.
            assert!(set.len() * 4 <= set.slots.len() * 3);
        }
    }

    /// Emptying the set leaves every slot empty: removal leaves no tombstones behind.
    #[test]
    fn removing_every_key_empties_every_slot() {
        let mut rng = Rng(7);
        let mut set = PairSet::default();
        let keys: Vec<u64> = (0..5_000).map(|_| rng.next() >> 1).collect();
        for &k in &keys {
            set.insert(k);
        }
        for k in &keys {
            set.remove(k);
        }
        assert_eq!(set.len(), 0);
        assert!(set.slots.iter().all(|&s| s == EMPTY));
    }

    /// `reserve` gives the table inserting the keys one by one reaches (the same size),
    /// and inserting them after it grows it no more.
    #[test]
    fn reserve_sizes_the_table_as_the_inserts_would() {
        let mut rng = Rng(11);
        for (already, more) in [(0, 1), (0, 48), (0, 49), (10, 5_000), (700, 60_000)] {
            let keys: Vec<u64> = (0..already + more).map(|_| rng.next() >> 1).collect();
            let (mut one_by_one, mut reserved) = (PairSet::default(), PairSet::default());
            for &k in &keys[..already] {
                one_by_one.insert(k);
                reserved.insert(k);
            }
            reserved.reserve(more);
            let size = reserved.slots.len();
            for &k in &keys[already..] {
                one_by_one.insert(k);
                reserved.insert(k);
            }
            assert_eq!(
                reserved.slots.len(),
                size,
                "{already} + {more}: grew after reserve"
            );
            assert_eq!(size, one_by_one.slots.len(), "{already} + {more}");
            assert!(keys.iter().all(|k| reserved.contains(k)));
        }
    }
}
