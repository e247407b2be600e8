//! The world's threads: how the narrow phase and the colour-by-colour solve are split
//! across workers (feature `parallel`, through rayon), with results identical for any
//! thread count.
//!
//! Why the results cannot depend on the thread count:
//! - The narrow phase updates each contact from the bodies and shapes alone; the counts and
//!   the bodies to wake are gathered afterwards, in contact order, on one thread.
//! - The solve splits only the batches of one colour across threads. Constraints of one
//!   colour share no moving body (`solver/graph.rs`), so each batch reads and writes the
//!   same velocities whichever thread runs it and in whatever order; all threads wait at a
//!   barrier before the next colour, which sees every impulse of the colours before it,
//!   exactly as the one-thread loop does. Fixed bodies (the shared static body 0,
//!   kinematic bodies) may appear in batches of several threads: they are only read, never
//!   written back (`contact_simd::scatter` skips them).
//! - No float is summed across threads.
//!
//! With one thread (the default), or without the feature, every helper runs its work in
//! place, in order: the serial path.

use std::fmt;
use std::ops::Range;

use super::error::{PhysicsError, PhysicsResult};
use super::solver::SolverBody;

/// The most threads a world may be given.
pub const MAX_THREADS: usize = 64;

/// A colour with fewer batches per thread than this is not split (the barrier costs more
/// than the batches); the result is the same either way.
const MIN_BATCHES_PER_THREAD: usize = 4;

/// The worker threads of one world: a count and, with the `parallel` feature and more than
/// one thread, a rayon pool of that many threads (shared by the world's clones).
#[derive(Clone, Default)]
pub(crate) struct Threads {
    /// Threads asked for (1 when never set).
    requested: usize,
    #[cfg(feature = "parallel")]
    pool: Option<std::sync::Arc<rayon::ThreadPool>>,
}

impl fmt::Debug for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Threads")
            .field("requested", &self.requested())
            .field("count", &self.count())
            .finish()
    }
}

impl Threads {
    /// `count` threads (1: the serial path). Errors outside `1..=MAX_THREADS`, or when the
    /// operating system refuses the threads.
    pub(crate) fn new(count: usize) -> PhysicsResult<Threads> {
        if !(1..=MAX_THREADS).contains(&count) {
            return Err(PhysicsError::new(
                "threads",
                format!("must be between 1 and {MAX_THREADS}, got {count}"),
            ));
        }
        #[cfg(feature = "parallel")]
        {
            let pool = if count > 1 {
                let pool = rayon::ThreadPoolBuilder::new()
                    .num_threads(count)
                    .thread_name(|i| format!("impulse-worker-{i}"))
                    .build()
                    .map_err(|e| {
                        PhysicsError::new("threads", format!("could not start {count}: {e}"))
                    })?;
                Some(std::sync::Arc::new(pool))
            } else {
                None
            };
            Ok(Threads {
                requested: count,
                pool,
            })
        }
        #[cfg(not(feature = "parallel"))]
        Ok(Threads { requested: count })
    }

    /// Threads asked for.
    pub(crate) fn requested(&self) -> usize {
        self.requested.max(1)
    }

    /// Threads the step uses: the count asked for with the `parallel` feature, else 1.
    pub(crate) fn count(&self) -> usize {
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            return pool.current_num_threads();
        }
        1
    }

    /// `out[i] = f(&mut items[i])` for every `i`, in chunks across the threads.
    pub(crate) fn map_mut<T: Send, U: Send>(
        &self,
        items: &mut [T],
        out: &mut [U],
        f: impl Fn(&mut T) -> U + Sync,
    ) {
        assert_eq!(items.len(), out.len(), "one output per item");
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            use rayon::prelude::*;
            // A few chunks per thread, so a thread with expensive pairs does not hold the
            // others up.
            let chunk = items.len().div_ceil(4 * pool.current_num_threads()).max(16);
            pool.install(|| {
                items
                    .par_chunks_mut(chunk)
                    .zip(out.par_chunks_mut(chunk))
                    .for_each(|(items, out)| {
                        for (item, o) in items.iter_mut().zip(out) {
                            *o = f(item);
                        }
                    })
            });
            return;
        }
        for (item, o) in items.iter_mut().zip(out) {
            *o = f(item);
        }
    }

    /// Run `kernel` over the batches colour by colour: `starts[c]..starts[c + 1]` are the
    /// batches of colour `c` (batches are stored colour after colour). One thread: one call
    /// over every batch, in order. More: each colour's batches are cut into one contiguous
    /// range per thread, and all threads finish a colour before any starts the next.
    ///
    /// The caller promises that batches of one colour share no moving body and that the
    /// kernel writes no fixed body (see the module docs): that is what makes the shared
    /// `bodies` safe to use from several threads.
    pub(crate) fn by_colour<T: Send>(
        &self,
        batches: &mut [T],
        starts: &[usize],
        bodies: &mut [SolverBody],
        kernel: impl Fn(&mut [T], &mut [SolverBody]) + Sync,
    ) {
        let threads = self.count();
        if threads == 1 || batches.len() < MIN_BATCHES_PER_THREAD * threads {
            kernel(batches, bodies);
            return;
        }
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            debug_assert_eq!(starts.last().copied(), Some(batches.len()));
            let shared_batches = SharedSlice::new(batches);
            let shared_bodies = SharedSlice::new(bodies);
            let barrier = SpinBarrier::new(threads);
            pool.broadcast(|ctx| {
                let (t, n) = (ctx.index(), ctx.num_threads());
                for_each_share(starts, t, n, &barrier, |range| {
                    // SAFETY: the threads' ranges of one colour are disjoint, so each batch
                    // is borrowed by one thread; the batches of one colour share no moving
                    // body and fixed bodies are never written, so no body is written by one
                    // thread while another reads or writes it. The barriers order one
                    // colour's writes before the next colour's reads.
                    unsafe { kernel(shared_batches.slice(range), shared_bodies.all()) };
                });
            });
            return;
        }
        let _ = starts;
        kernel(batches, bodies);
    }

    /// As `by_colour`, for a kernel that only reads the batches (warm start).
    pub(crate) fn by_colour_ref<T: Sync>(
        &self,
        batches: &[T],
        starts: &[usize],
        bodies: &mut [SolverBody],
        kernel: impl Fn(&[T], &mut [SolverBody]) + Sync,
    ) {
        let threads = self.count();
        if threads == 1 || batches.len() < MIN_BATCHES_PER_THREAD * threads {
            kernel(batches, bodies);
            return;
        }
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            let shared_bodies = SharedSlice::new(bodies);
            let barrier = SpinBarrier::new(threads);
            pool.broadcast(|ctx| {
                let (t, n) = (ctx.index(), ctx.num_threads());
                for_each_share(starts, t, n, &barrier, |range| {
                    // SAFETY: as in `by_colour`.
                    unsafe { kernel(&batches[range], shared_bodies.all()) };
                });
            });
            return;
        }
        let _ = starts;
        kernel(batches, bodies);
    }
}

/// Thread `t` of `n`: run `f` on its share of each colour's batches, colour after colour.
/// A colour too small to split runs on thread 0 alone; the threads meet at `barrier`
/// between two colours unless both ran on thread 0 alone (one thread, in order). After the
/// last colour no barrier: `broadcast` returns when every thread is done.
#[cfg(feature = "parallel")]
fn for_each_share(
    starts: &[usize],
    t: usize,
    n: usize,
    barrier: &SpinBarrier,
    mut f: impl FnMut(Range<usize>),
) {
    let split = |c: usize| starts[c + 1] - starts[c] >= MIN_BATCHES_PER_THREAD * n;
    let colours = starts.len().saturating_sub(1);
    for c in 0..colours {
        let range = if split(c) {
            let part = share(starts[c + 1] - starts[c], t, n);
            starts[c] + part.start..starts[c] + part.end
        } else if t == 0 {
            starts[c]..starts[c + 1]
        } else {
            0..0
        };
        if !range.is_empty() {
            f(range);
        }
        if c + 1 < colours && (split(c) || split(c + 1)) {
            barrier.wait();
        }
    }
}

/// Thread `t` of `n`'s share of `0..len`: contiguous, the shares in thread order.
#[cfg_attr(not(feature = "parallel"), allow(dead_code))]
fn share(len: usize, t: usize, n: usize) -> Range<usize> {
    len * t / n..len * (t + 1) / n
}

/// A slice handed to several threads, which promise to touch disjoint parts.
#[cfg(feature = "parallel")]
struct SharedSlice<T> {
    ptr: *mut T,
    len: usize,
}

// SAFETY: the users of `slice` and `all` uphold the disjointness (see `Threads::by_colour`).
#[cfg(feature = "parallel")]
unsafe impl<T: Send> Sync for SharedSlice<T> {}
#[cfg(feature = "parallel")]
unsafe impl<T: Send> Send for SharedSlice<T> {}

#[cfg(feature = "parallel")]
impl<T> SharedSlice<T> {
    fn new(slice: &mut [T]) -> SharedSlice<T> {
        SharedSlice {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
        }
    }

    /// # Safety
    /// No other thread may use the elements of `range` while the slice lives.
    #[allow(clippy::mut_from_ref)]
    unsafe fn slice(&self, range: Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len);
        std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start)
    }

    /// # Safety
    /// The threads holding the whole slice at once must touch disjoint elements, or only
    /// read the ones they share.
    #[allow(clippy::mut_from_ref)]
    unsafe fn all(&self) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.ptr, self.len)
    }
}

/// A barrier for the threads of one `broadcast`: spins briefly, then yields (more threads
/// than cores must still make progress).
#[cfg(feature = "parallel")]
struct SpinBarrier {
    threads: usize,
    arrived: std::sync::atomic::AtomicUsize,
    generation: std::sync::atomic::AtomicUsize,
}

#[cfg(feature = "parallel")]
impl SpinBarrier {
    fn new(threads: usize) -> SpinBarrier {
        SpinBarrier {
            threads,
            arrived: std::sync::atomic::AtomicUsize::new(0),
            generation: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// Wait until every thread has arrived. Everything a thread wrote before `wait` is
    /// visible to every thread after it.
    fn wait(&self) {
        use std::sync::atomic::Ordering;
        let generation = self.generation.load(Ordering::Acquire);
        if self.arrived.fetch_add(1, Ordering::AcqRel) + 1 == self.threads {
            self.arrived.store(0, Ordering::Relaxed);
            self.generation.fetch_add(1, Ordering::Release);
            return;
        }
        let mut spins = 0u32;
        while self.generation.load(Ordering::Acquire) == generation {
            if spins < 2000 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_counts_outside_the_range_are_refused_by_name() {
        for bad in [0, MAX_THREADS + 1] {
            let err = Threads::new(bad).unwrap_err();
            assert_eq!(err.field, "threads");
            assert!(err.message.contains(&bad.to_string()), "{}", err.message);
        }
        assert_eq!(Threads::new(1).unwrap().count(), 1);
        let four = Threads::new(4).unwrap();
        assert_eq!(four.requested(), 4);
        let expected = if cfg!(feature = "parallel") { 4 } else { 1 };
        assert_eq!(four.count(), expected);
    }

    #[test]
    fn shares_cover_the_range_in_order() {
        for len in [0, 1, 7, 64, 101] {
            for n in 1..6 {
                let mut next = 0;
                for t in 0..n {
                    let r = share(len, t, n);
                    assert_eq!(r.start, next);
                    next = r.end;
                }
                assert_eq!(next, len);
            }
        }
    }

    /// Every colour's batches run exactly once, and a colour only after every batch of
    /// the colour before it (each batch records the colours finished when it ran).
    #[test]
    fn by_colour_runs_each_batch_once_after_the_colours_before() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Colours of 40, 1, 2, 77 and 80 batches: two small ones in a row (thread 0 alone,
        // no barrier between them).
        let starts = [0usize, 40, 41, 43, 120, 200];
        for count in [1, 2, 4] {
            let threads = Threads::new(count).unwrap();
            let done = [(); 5].map(|_| AtomicUsize::new(0));
            let mut batches: Vec<(usize, usize, u32)> = (0..200)
                .map(|k| (starts.iter().rposition(|&s| s <= k).unwrap(), 0, 0))
                .collect();
            let mut bodies = vec![SolverBody::STATIC; 3];
            threads.by_colour(&mut batches, &starts, &mut bodies, |batch, _| {
                for (colour, before, runs) in batch.iter_mut() {
                    *before = (0..*colour)
                        .map(|c| done[c].load(Ordering::SeqCst))
                        .sum::<usize>();
                    *runs += 1;
                    done[*colour].fetch_add(1, Ordering::SeqCst);
                }
            });
            for &(colour, before, runs) in &batches {
                assert_eq!(runs, 1, "{count} threads");
                assert_eq!(before, starts[colour], "{count} threads, colour {colour}");
            }
        }
    }
}
