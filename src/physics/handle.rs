//! Generational handles: an index into an arena plus the generation of the slot when the
//! handle was made. Destroying an item bumps its slot's generation, so a stale handle is
//! refused instead of silently naming whatever reuses the slot.

use std::fmt;
use std::marker::PhantomData;

use super::threads::DisjointMut;

/// A typed generational handle.
pub struct Handle<T> {
    index: u32,
    generation: u32,
    _marker: PhantomData<fn() -> T>,
}

impl<T> Handle<T> {
    pub(crate) fn new(index: u32, generation: u32) -> Self {
        Handle {
            index,
            generation,
            _marker: PhantomData,
        }
    }

    /// The slot index (stable while the item lives).
    pub fn index(self) -> usize {
        self.index as usize
    }

    pub fn generation(self) -> u32 {
        self.generation
    }
}

// Manual impls: derive would demand `T: Clone` etc.
impl<T> Clone for Handle<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for Handle<T> {}
impl<T> PartialEq for Handle<T> {
    fn eq(&self, other: &Self) -> bool {
        self.index == other.index && self.generation == other.generation
    }
}
impl<T> Eq for Handle<T> {}
impl<T> PartialOrd for Handle<T> {
    fn partial_cmp(&self, other: &Self) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}
impl<T> Ord for Handle<T> {
    fn cmp(&self, other: &Self) -> std::cmp::Ordering {
        (self.index, self.generation).cmp(&(other.index, other.generation))
    }
}
impl<T> std::hash::Hash for Handle<T> {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.index.hash(state);
        self.generation.hash(state);
    }
}
impl<T> fmt::Debug for Handle<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "#{}v{}", self.index, self.generation)
    }
}

#[derive(Clone)]
struct Slot<T> {
    generation: u32,
    value: Option<T>,
}

/// Storage with stable generational handles and a free list. Iteration is in slot order,
/// which is deterministic.
#[derive(Clone)]
pub struct Arena<T> {
    slots: Vec<Slot<T>>,
    free: Vec<u32>,
    len: usize,
}

/// An arena's live items, used by several threads at once (`Arena::shared`).
pub(crate) struct SharedArena<'a, T>(DisjointMut<'a, Slot<T>>);

impl<T> SharedArena<'_, T> {
    /// The live item in slot `index`.
    ///
    /// # Safety
    /// No other thread may use slot `index` while the reference lives.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn at_mut(&self, index: usize) -> &mut T {
        self.0.get(index).value.as_mut().expect("live slot")
    }

    /// The item in slot `index`, if the slot is live.
    ///
    /// # Safety
    /// As `at_mut`.
    #[inline]
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get_mut(&self, index: usize) -> Option<&mut T> {
        self.0.get(index).value.as_mut()
    }
}

impl<T> Default for Arena<T> {
    fn default() -> Self {
        Arena {
            slots: Vec::new(),
            free: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Arena<T> {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Insert a value made from its own handle.
    pub fn insert_with(&mut self, make: impl FnOnce(Handle<T>) -> T) -> Handle<T> {
        let index = match self.free.pop() {
            Some(i) => i,
            None => {
                self.slots.push(Slot {
                    generation: 0,
                    value: None,
                });
                (self.slots.len() - 1) as u32
            }
        };
        let slot = &mut self.slots[index as usize];
        let handle = Handle::new(index, slot.generation);
        slot.value = Some(make(handle));
        self.len += 1;
        handle
    }

    pub fn insert(&mut self, value: T) -> Handle<T> {
        self.insert_with(|_| value)
    }

    pub fn remove(&mut self, handle: Handle<T>) -> Option<T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation != handle.generation || slot.value.is_none() {
            return None;
        }
        slot.generation = slot.generation.wrapping_add(1);
        self.free.push(handle.index);
        self.len -= 1;
        slot.value.take()
    }

    pub fn contains(&self, handle: Handle<T>) -> bool {
        self.get(handle).is_some()
    }

    #[inline]
    pub fn get(&self, handle: Handle<T>) -> Option<&T> {
        let slot = self.slots.get(handle.index as usize)?;
        if slot.generation != handle.generation {
            return None;
        }
        slot.value.as_ref()
    }

    #[inline]
    pub fn get_mut(&mut self, handle: Handle<T>) -> Option<&mut T> {
        let slot = self.slots.get_mut(handle.index as usize)?;
        if slot.generation != handle.generation {
            return None;
        }
        slot.value.as_mut()
    }

    /// Direct slot access by index, for internal arrays that store indices of live items.
    #[inline]
    pub(crate) fn at(&self, index: usize) -> &T {
        self.slots[index].value.as_ref().expect("live slot")
    }

    #[inline]
    pub(crate) fn at_mut(&mut self, index: usize) -> &mut T {
        self.slots[index].value.as_mut().expect("live slot")
    }

    /// The slots for threads that each use their own (`Threads::ranges` over a list of
    /// distinct slot indices, such as the awake bodies).
    pub(crate) fn shared(&mut self) -> SharedArena<'_, T> {
        SharedArena(DisjointMut::new(&mut self.slots))
    }

    /// The handle of the live item in slot `index`, if any.
    pub fn handle_at(&self, index: usize) -> Option<Handle<T>> {
        let slot = self.slots.get(index)?;
        slot.value
            .as_ref()
            .map(|_| Handle::new(index as u32, slot.generation))
    }

    /// Number of slots (live or free); indices are below this.
    pub fn capacity(&self) -> usize {
        self.slots.len()
    }

    pub fn iter(&self) -> impl Iterator<Item = (Handle<T>, &T)> {
        self.slots.iter().enumerate().filter_map(|(i, s)| {
            s.value
                .as_ref()
                .map(|v| (Handle::new(i as u32, s.generation), v))
        })
    }

    pub fn iter_mut(&mut self) -> impl Iterator<Item = (Handle<T>, &mut T)> {
        self.slots.iter_mut().enumerate().filter_map(|(i, s)| {
            let generation = s.generation;
            s.value
                .as_mut()
                .map(|v| (Handle::new(i as u32, generation), v))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stale_handle_is_refused() {
        let mut arena: Arena<&str> = Arena::new();
        let a = arena.insert("a");
        assert_eq!(arena.remove(a), Some("a"));
        let b = arena.insert("b");
        assert_eq!(a.index(), b.index(), "slot is reused");
        assert_eq!(arena.get(a), None, "stale handle must not see the new item");
        assert_eq!(arena.get(b), Some(&"b"));
        assert_eq!(arena.remove(a), None);
        assert_eq!(arena.len(), 1);
    }
}
