//! The world's threads: how the broad phase's pair walk, the narrow phase, the
//! colour-by-colour solve, the contact prepare's gather and lane writes, the impulse store, the
//! integration and the passes over the awake bodies (proxy boxes, solver bodies, their
//! write-back, the quarantine's speed caps, clearing forces) are split across workers
//! (feature `parallel`, through the team of `pool.rs`), with results identical for any thread
//! count.
//!
//! Why the results cannot depend on the thread count:
//! - The broad phase's rebuild of the moving tree splits its top levels on one thread and
//!   builds the subtrees below on the team, with internal nodes taken from the pool
//!   beforehand in the one-thread build's order (`DynamicTree::rebuild_split`): the same
//!   tree. Its threads then walk disjoint subtree pairs of the tree, each into its own
//!   list; the lists are joined and sorted (`BroadPhase::update_pairs_split`).
//! - The narrow phase updates each contact from the bodies and shapes alone; each chunk of
//!   contacts gathers its counts and the bodies it wakes, and the chunks' are joined in
//!   contact order (`map_mut_fold`).
//! - The solve splits only the batches of one colour across threads. Constraints of one
//!   colour share no moving body (`solver/graph.rs`), so each batch reads and writes the
//!   same velocities whichever thread runs it and in whatever order; no block of the next
//!   colour starts before every block of this one is done, so it sees every impulse of the
//!   colours before it, exactly as the one-thread loop does (a run of small colours is one
//!   block: one thread runs it in the one-thread order). Fixed bodies (the shared static body 0,
//!   kinematic bodies) may appear in batches of several threads: they are only read, never
//!   written back (`contact_simd::scatter` skips them).
//! - The prepare writes each batch from one thread (equal runs of batches, `split_fine`:
//!   a few runs per thread, so that one CPU slowed by the host hands the end of its share
//!   to the other), the store each contact from one thread (equal runs of batches), the
//!   integration each body from one thread (`chunks_mut`), the passes over the awake bodies
//!   each body and its shapes from one thread (runs of the awake list, `ranges`,
//!   `Arena::shared`): per-item work, the same whoever does it. What such a pass hands on
//!   (the bodies to freeze, the move buffer) is taken afterwards in run order, which is
//!   awake order. The proxies that moved are given their boxes in the tree by the parts
//!   that computed them; the flags above them, which two parts may share, are set
//!   atomically and only ever set, so the flagged nodes, and the tree their rebuild
//!   makes, are the same whoever sets them (`DynamicTree::mark_proxies_with`).
//! - The prepare's gather of the touching contacts reads runs of the narrow phase's list,
//!   each into a list of its own, copied into place in run order, which is contact order
//!   (`ContactSolver::gather_active`). The touching bodies are marked from runs of the
//!   same list into one array, by atomic stores that only ever set a mark (a body marked
//!   by two runs is marked), so the marks are the same whoever sets them.
//! - The joints solved one by one (`solver/joints.rs`) run level by level: a joint's level
//!   is one more than that of the joints before it on either of its moving bodies, so the
//!   joints of a level share no moving body, and each body meets its joints in the
//!   one-thread order (`JointSolver::schedule_levels`).
//! - No float is summed across threads.
//!
//! With one thread (the default), or without the feature, every helper runs its work in
//! place, in order: the serial path. A world on several threads also takes the serial path
//! for the steps `Adapt` gives to the caller alone (one thread has been the faster lately:
//! the host placed the two CPUs far apart), the same path as a change of the thread count
//! between steps, so these steps too give the same results.

use std::fmt;
#[cfg(feature = "parallel")]
use std::ops::Range;

use super::error::{PhysicsError, PhysicsResult};
use super::solver::contact_simd::prefetch_whole;
use super::solver::SolverBody;

/// Awake bodies per thread below which a pass over the body arena (proxy boxes, solver
/// bodies, write-back, quarantine, forces) stays on one thread: each body costs a few
/// cache lines and tens of nanoseconds, a wake-up of the team about a microsecond (at 512,
/// not 1024, the tumbler's 2,027 bodies split: its write-back at 2 threads 0.034 to 0.018
/// ms a step, min of 7 runs).
pub(crate) const MIN_ARENA_BODIES_PER_THREAD: usize = 512;

/// The most threads a world may be given.
pub const MAX_THREADS: usize = 64;

/// Fewer batches per thread than this in all are solved on the caller alone (waking the
/// team costs more than the batches); the result is the same either way.
const MIN_BATCHES_PER_THREAD: usize = 4;

/// The worker threads of one world: a count and, with the `parallel` feature and more than
/// one thread, a team of that many threads (the caller and `count - 1` workers, `pool.rs`;
/// shared by the world's clones).
#[derive(Clone, Default)]
pub(crate) struct Threads {
    /// Threads asked for (1 when never set).
    requested: usize,
    #[cfg(feature = "parallel")]
    pool: Option<std::sync::Arc<super::pool::Pool>>,
    /// This step runs on the caller alone, the team idle (`Adapt`).
    #[cfg(feature = "parallel")]
    solo: bool,
    /// Which of the two the steps run on, chosen by timing them.
    #[cfg(feature = "parallel")]
    adapt: Adapt,
}

impl fmt::Debug for Threads {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Threads")
            .field("requested", &self.requested())
            .field("count", &self.team_size())
            .finish()
    }
}

impl Threads {
    /// `count` threads (1: the serial path): the caller and a pool of `count - 1`. Errors
    /// outside `1..=MAX_THREADS`, or when the operating system refuses the threads.
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
                let pool = super::pool::Pool::new(count - 1).map_err(|e| {
                    PhysicsError::new("threads", format!("could not start {count}: {e}"))
                })?;
                Some(std::sync::Arc::new(pool))
            } else {
                None
            };
            Ok(Threads {
                requested: count,
                pool,
                solo: false,
                adapt: Adapt::default(),
            })
        }
        #[cfg(not(feature = "parallel"))]
        Ok(Threads { requested: count })
    }

    /// Threads asked for.
    pub(crate) fn requested(&self) -> usize {
        self.requested.max(1)
    }

    /// Threads the step uses: the count asked for with the `parallel` feature (1 for a step
    /// `Adapt` runs on the caller alone), else 1.
    pub(crate) fn count(&self) -> usize {
        #[cfg(feature = "parallel")]
        if let Some(pool) = self.team() {
            return pool.team_size();
        }
        1
    }

    /// Threads started: the count asked for with the `parallel` feature, else 1.
    pub(crate) fn team_size(&self) -> usize {
        #[cfg(feature = "parallel")]
        if let Some(pool) = &self.pool {
            return pool.team_size();
        }
        1
    }

    /// The team, unless this step runs on the caller alone.
    #[cfg(feature = "parallel")]
    fn team(&self) -> Option<&super::pool::Pool> {
        self.pool.as_deref().filter(|_| !self.solo)
    }

    /// Before a step: run it on the team or on the caller alone, as `Adapt` chose. Either
    /// gives the same results.
    pub(crate) fn begin_step(&mut self) {
        #[cfg(feature = "parallel")]
        {
            self.solo = self.pool.is_some() && self.adapt.solo_now();
        }
    }

    /// After a whole step: how long it took, for `Adapt`.
    pub(crate) fn end_step(&mut self, seconds: f32) {
        #[cfg(feature = "parallel")]
        if self.pool.is_some() {
            self.adapt.record(seconds);
        }
        let _ = seconds;
    }

    /// `out[i] = f(i, &mut items[i])` for every `i`, in chunks the threads claim (`take`:
    /// each its own share first), each chunk then folding what it mapped into an
    /// accumulator of its own: `fold(acc, items, outs)`, a block of at most `FOLD_BLOCK`
    /// items at a time, right after the block is mapped (while it is in cache). `accs` is
    /// refilled with one `A::default()` per chunk, in item order (so a fold of them in order
    /// meets the items in order, for any thread count), and the number of chunks is
    /// returned: what a serial pass over `out` would gather is gathered across the threads.
    pub(crate) fn map_mut_fold<T: Send, U: Send, A: Send + Default>(
        &self,
        items: &mut [T],
        out: &mut [U],
        accs: &mut Vec<Padded<A>>,
        f: impl Fn(usize, &mut T) -> U + Sync,
        fold: impl Fn(&mut A, &[T], &[U]) + Sync,
    ) -> usize {
        assert_eq!(items.len(), out.len(), "one output per item");
        // Each `FOLD_BLOCK` items mapped, then folded.
        let map_and_fold = |items: &mut [T], out: &mut [U], first: usize, acc: &mut A| {
            for (k, (items, out)) in items
                .chunks_mut(FOLD_BLOCK)
                .zip(out.chunks_mut(FOLD_BLOCK))
                .enumerate()
            {
                map_ahead(items, out, first + k * FOLD_BLOCK, &f);
                fold(acc, items, out);
            }
        };
        #[cfg(feature = "parallel")]
        if let Some(pool) = self.team() {
            // Several chunks per thread, so a thread with expensive pairs, or one the
            // operating system parks, does not hold the others up.
            let len = items.len();
            let chunk = len.div_ceil(8 * self.count()).max(16);
            let chunks = len.div_ceil(chunk);
            accs.clear();
            accs.resize_with(chunks, Padded::default);
            let flags = claims(chunks);
            let (items, out) = (DisjointMut::new(items), DisjointMut::new(out));
            let accs = DisjointMut::new(accs);
            let members = self.count();
            pool.run(&|member| {
                take(&flags, member, members, |k| {
                    let range = k * chunk..((k + 1) * chunk).min(len);
                    let first = range.start;
                    // SAFETY: each chunk, and so its items, outputs and accumulator, is
                    // claimed by exactly one thread.
                    let (items, out, acc) =
                        unsafe { (items.slice(range.clone()), out.slice(range), accs.get(k)) };
                    map_and_fold(items, out, first, &mut acc.0);
                })
            });
            return chunks;
        }
        accs.clear();
        accs.push(Padded::default());
        map_and_fold(items, out, 0, &mut accs[0].0);
        1
    }

    /// Run `f(part, parts)` for every part in `0..parts`, one part per thread of the team
    /// at once (`parts` = the thread count when `worth_it`, else 1: everything on the
    /// caller); each thread takes the same part every time when it can (`take`). The caller
    /// cuts the work by part so that no two parts write the same thing (`DisjointMut`), and
    /// so that the result does not depend on `parts`.
    pub(crate) fn split(&self, worth_it: bool, f: impl Fn(usize, usize) + Sync) {
        self.split_by(worth_it, 1, f);
    }

    /// As `split`, with `PIECES_PER_THREAD` parts per thread when `worth_it`: each thread
    /// runs its own share of them first (its equal run, the same every call, so what it
    /// touches stays in its cache) and then takes what is left of the others' from the
    /// back. When one CPU runs slower for a while (the host's other guests), the other
    /// takes over the end of its share instead of waiting for it. The caller cuts the work
    /// by part as for `split`.
    pub(crate) fn split_fine(&self, worth_it: bool, f: impl Fn(usize, usize) + Sync) {
        self.split_by(worth_it, PIECES_PER_THREAD, f);
    }

    /// `split` with `per_thread` parts per thread of the team.
    fn split_by(&self, worth_it: bool, per_thread: usize, f: impl Fn(usize, usize) + Sync) {
        let threads = self.parts(worth_it);
        #[cfg(feature = "parallel")]
        if let (true, Some(pool)) = (threads > 1, self.team()) {
            let parts = threads * per_thread;
            let flags = claims(parts);
            pool.run(&|member| take(&flags, member, threads, |part| f(part, parts)));
            return;
        }
        debug_assert_eq!(threads, 1);
        let _ = per_thread;
        f(0, 1);
    }

    /// How many parts `split` cuts the work into: the thread count when `worth_it` (and
    /// there is a team), else 1.
    fn parts(&self, worth_it: bool) -> usize {
        if worth_it {
            self.count()
        } else {
            1
        }
    }

    /// How many parts `split_fine` cuts the work into (more than one thread: a team).
    fn fine_parts(&self, worth_it: bool) -> usize {
        match self.parts(worth_it) {
            1 => 1,
            threads => threads * PIECES_PER_THREAD,
        }
    }

    /// `f(range)` over `0..len` cut into equal runs, one per part (`split_fine`).
    pub(crate) fn ranges(
        &self,
        len: usize,
        worth_it: bool,
        f: impl Fn(std::ops::Range<usize>) + Sync,
    ) {
        self.split_fine(worth_it, |part, parts| f(run_of(len, part, parts)));
    }

    /// `ranges`, each part also writing its own output: `f(range, &mut outputs[part])`
    /// (`outputs` grows to the parts; each in its own cache lines, `Padded`). Returns the
    /// number of parts: their outputs, read in order, follow `0..len`, whatever the count.
    pub(crate) fn runs_into<T: Send + Default>(
        &self,
        len: usize,
        worth_it: bool,
        outputs: &mut Vec<Padded<T>>,
        f: impl Fn(std::ops::Range<usize>, &mut T) + Sync,
    ) -> usize {
        let parts = self.fine_parts(worth_it);
        if outputs.len() < parts {
            outputs.resize_with(parts, Padded::default);
        }
        let out = DisjointMut::new(outputs);
        self.split_fine(worth_it, |part, parts| {
            // SAFETY: part `part` alone uses output `part`.
            f(run_of(len, part, parts), unsafe { out.get(part) });
        });
        parts
    }

    /// `f(offset, chunk)` over `items` cut into equal runs, one per part (`split_fine`), `offset`
    /// the position of the chunk's first item.
    pub(crate) fn chunks_mut<T: Send>(
        &self,
        items: &mut [T],
        worth_it: bool,
        f: impl Fn(usize, &mut [T]) + Sync,
    ) {
        let len = items.len();
        let items = DisjointMut::new(items);
        self.ranges(len, worth_it, |range| {
            let start = range.start;
            // SAFETY: the parts' ranges are disjoint.
            f(start, unsafe { items.slice(range) });
        });
    }

    /// Run `kernel` over the batches colour by colour: `starts[c]..starts[c + 1]` are the
    /// batches of colour `c` (batches are stored colour after colour). One thread: one call
    /// over every batch, in order. More: each colour's batches are cut into blocks that the
    /// threads claim (each its own share first), and no block of a colour starts before
    /// every block of the colour before it is done (`for_each_block`); a run of small
    /// colours is one block, which one thread runs in order.
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
        // Nothing beside the batches (a `Vec` of `()` allocates nothing).
        let nothing = vec![(); batches.len()];
        self.by_colour_beside(batches, &nothing, starts, bodies, |batches, _, bodies| {
            kernel(batches, bodies)
        });
    }

    /// As `by_colour`, with `beside`, as long as `batches`, read alongside: the kernel gets
    /// the same range of both.
    pub(crate) fn by_colour_beside<T: Send, U: Sync>(
        &self,
        batches: &mut [T],
        beside: &[U],
        starts: &[usize],
        bodies: &mut [SolverBody],
        kernel: impl Fn(&mut [T], &[U], &mut [SolverBody]) + Sync,
    ) {
        assert_eq!(beside.len(), batches.len());
        let threads = self.count();
        if threads == 1
            || batches.len() < MIN_BATCHES_PER_THREAD * threads
            || starts.len() > MAX_COLOURS + 1
        {
            kernel(batches, beside, bodies);
            return;
        }
        #[cfg(feature = "parallel")]
        if let Some(pool) = self.team() {
            assert_eq!(starts.last().copied(), Some(batches.len()));
            let shared_batches = DisjointMut::new(batches);
            let shared_bodies = DisjointMut::new(bodies);
            for_each_block(pool, starts, threads, &|range| {
                // SAFETY: each block is claimed by exactly one thread, so each batch is
                // borrowed once; the batches of one colour share no moving body and fixed
                // bodies are never written, so no body is written by one thread while
                // another reads or writes it; a colour starts after the one before is done.
                unsafe {
                    kernel(
                        shared_batches.slice(range.clone()),
                        &beside[range],
                        shared_bodies.all(),
                    )
                };
            });
            return;
        }
        kernel(batches, beside, bodies);
    }

    /// As `by_colour`, for a kernel that only reads the batches (warm start).
    pub(crate) fn by_colour_ref<T: Sync>(
        &self,
        batches: &[T],
        starts: &[usize],
        bodies: &mut [SolverBody],
        kernel: impl Fn(&[T], &mut [SolverBody]) + Sync,
    ) {
        // The batches go beside nothing (a `Vec` of `()` allocates nothing).
        let mut nothing = vec![(); batches.len()];
        self.by_colour_beside(
            &mut nothing,
            batches,
            starts,
            bodies,
            |_, batches, bodies| kernel(batches, bodies),
        );
    }
}

/// Step times kept for the mode the steps run in (`Adapt`).
#[cfg(feature = "parallel")]
const RECENT: usize = 8;
/// Steps between trials of the other mode (`Adapt`): at least, at most on the team, at most
/// on the caller alone. The team's steps slowing shows the cores moving apart at once (a
/// trial follows); the caller's steps do not change when they come back together, which only
/// a trial finds, so those trials come more often.
#[cfg(feature = "parallel")]
const PERIOD: (u32, u32, u32) = (64, 512, 128);
/// Steps the other mode must win in a row to become the mode (a scene's step times vary
/// from step to step: one cheap step proves nothing).
#[cfg(feature = "parallel")]
const TRIAL_STEPS: u8 = 3;
/// A trial step wins when it takes at most this share of the mode's median step.
#[cfg(feature = "parallel")]
const TRIAL_WINS: f32 = 0.92;
/// A trial's first step is not judged unless it takes more than this many times the mode's
/// median: it pays for the cache lines the other mode left on the other core (the bodies a
/// team step wrote; far apart, enough to lose a trial its next steps would win: the junkyard,
/// 4.8 ms a team step, 3.8 alone). A step slower than that still ends the trial at once.
#[cfg(feature = "parallel")]
const WARM_UP: f32 = 2.0;
/// The mode's median step this much slower than at the last trial tries the other at once
/// (the cores moving apart slow a two-thread step by 1.7 to 2 times; a scene that grows, less
/// at a time).
#[cfg(feature = "parallel")]
const SLOWED: f32 = 1.5;

/// Whether the steps run on the team or on the caller alone, chosen by timing whole steps.
///
/// Two threads are not always faster than one: the host may run the two CPUs of a small
/// virtual machine on cores that share a cache (a cache line crosses in about 60 ns) or on
/// cores far apart (about 350 ns), and switches between the two every few seconds to
/// minutes. Far apart, every body a colour pass hands from one thread to the other costs
/// that trip, and a small scene's team step runs slower than the caller alone (the tumbler,
/// 2,027 boxes: 2.7 ms a step against 1.86). Results are the same either way, so the choice
/// is free to follow the clock: the steps run in one mode; every `PERIOD` steps, or at once
/// when its median step has slowed by `SLOWED`, a trial runs the next steps in the other.
/// Its first step warms the caches (`WARM_UP`); a trial step after that that loses
/// (`TRIAL_WINS`) ends the trial, and the next comes after twice the period: while the mode
/// is the faster, trials cost two steps each, ever further apart. `TRIAL_STEPS` won in a row
/// make the other the mode.
#[cfg(feature = "parallel")]
#[derive(Clone, Debug)]
struct Adapt {
    /// The steps run on the caller alone (outside trials).
    solo: bool,
    /// The last step times in the mode, seconds, `next` the slot of the next.
    recent: [f32; RECENT],
    filled: usize,
    next: usize,
    /// Steps in the mode since the last trial, and the steps between trials.
    since: u32,
    period: u32,
    /// Steps the running trial has won (`None`: no trial running).
    trial: Option<u8>,
    /// The mode's median step at the last trial (or when the mode started).
    baseline: f32,
    /// The running trial's next step is its first (`WARM_UP`).
    warm: bool,
}

#[cfg(feature = "parallel")]
impl Default for Adapt {
    fn default() -> Adapt {
        Adapt {
            solo: false,
            recent: [0.0; RECENT],
            filled: 0,
            next: 0,
            since: 0,
            period: PERIOD.0,
            trial: None,
            baseline: f32::INFINITY,
            warm: false,
        }
    }
}

#[cfg(feature = "parallel")]
impl Adapt {
    /// The next step runs on the caller alone.
    fn solo_now(&self) -> bool {
        self.solo != self.trial.is_some()
    }

    /// A step took `seconds`.
    fn record(&mut self, seconds: f32) {
        if !seconds.is_finite() {
            return;
        }
        if let Some(won) = self.trial {
            let median = self.median();
            if std::mem::take(&mut self.warm) && seconds <= WARM_UP * median {
                return;
            }
            if seconds > TRIAL_WINS * median {
                // Lost: stay, and try again after twice the period.
                self.trial = None;
                self.since = 0;
                let most = if self.solo { PERIOD.2 } else { PERIOD.1 };
                self.period = (self.period * 2).min(most);
                self.baseline = median;
            } else if won + 1 < TRIAL_STEPS {
                self.trial = Some(won + 1);
            } else {
                // Won: the other is the mode, its times kept afresh.
                *self = Adapt {
                    solo: !self.solo,
                    ..Adapt::default()
                };
            }
            return;
        }
        self.recent[self.next] = seconds;
        self.next = (self.next + 1) % RECENT;
        self.filled = (self.filled + 1).min(RECENT);
        self.since += 1;
        if self.filled < RECENT {
            return;
        }
        let median = self.median();
        if self.baseline == f32::INFINITY {
            self.baseline = median;
        }
        let slowed = median > SLOWED * self.baseline;
        if slowed {
            self.period = PERIOD.0;
        }
        if slowed || self.since >= self.period {
            self.trial = Some(0);
            self.warm = true;
        }
    }

    /// The median of the mode's last `RECENT` steps.
    fn median(&self) -> f32 {
        let mut sorted = self.recent;
        sorted.sort_by(f32::total_cmp);
        sorted[RECENT / 2]
    }
}

/// Part `part` of `parts` equal runs of `0..len` (the last ones shorter or empty).
fn run_of(len: usize, part: usize, parts: usize) -> std::ops::Range<usize> {
    let per = len.div_ceil(parts);
    (part * per).min(len)..((part + 1) * per).min(len)
}

/// Most colours `by_colour` splits (more run on one thread; the graph has 24).
const MAX_COLOURS: usize = 32;

/// Run `f` on every block of every colour across the team: colour `c`'s batches
/// `starts[c]..starts[c + 1]` are cut into blocks (a few per thread) that the threads claim
/// (`take`: each its own share first); a thread starts on colour `c` only once every block
/// of colour `c - 1` is done. No thread waits for another to *arrive* anywhere, only for claimed work
/// to finish, so a thread the operating system parks holds nothing up unless it holds a
/// block. (A block's writes are published by the release increment of `done`, which the
/// next colour's threads acquire.)
///
/// Consecutive colours of fewer than `SMALL_COLOUR_BATCHES_PER_THREAD` batches a thread
/// run as one block (`colour_groups`): one thread solves them in colour order, as the
/// one-thread loop does, without a wait between each (a heap of small boxes in a turning
/// drum fills ten colours with one contact each, its contacts with the drum).
#[cfg(feature = "parallel")]
fn for_each_block(
    pool: &super::pool::Pool,
    starts: &[usize],
    threads: usize,
    f: &(impl Fn(Range<usize>) + Sync),
) {
    use std::sync::atomic::{AtomicUsize, Ordering};
    let colours = starts.len().saturating_sub(1);
    debug_assert!(colours <= MAX_COLOURS);
    let (groups, group_starts, whole) =
        colour_groups(starts, SMALL_COLOUR_BATCHES_PER_THREAD * threads);
    // (block size, block count) of group `g`: one block for a run of small colours.
    let blocks = |g: usize| {
        let len = group_starts[g + 1] - group_starts[g];
        let size = if whole[g] {
            len.max(1)
        } else {
            len.div_ceil(BLOCKS_PER_THREAD * threads).max(1)
        };
        (size, len.div_ceil(size))
    };
    // Group `g`'s block flags: `flags[first[g]..first[g + 1]]`.
    let mut first = [0; MAX_COLOURS + 1];
    for g in 0..groups {
        first[g + 1] = first[g] + blocks(g).1;
    }
    let flags = claims(first[groups]);
    let done: [AtomicUsize; MAX_COLOURS] = std::array::from_fn(|_| AtomicUsize::new(0));
    pool.run(&|member| {
        for g in 0..groups {
            if g > 0 {
                let (_, before) = blocks(g - 1);
                let mut spins = 0u32;
                while done[g - 1].load(Ordering::Acquire) < before {
                    if spins < 1000 {
                        std::hint::spin_loop();
                        spins += 1;
                    } else {
                        std::thread::yield_now();
                    }
                }
            }
            let (size, _) = blocks(g);
            take(&flags[first[g]..first[g + 1]], member, threads, |k| {
                let start = group_starts[g] + k * size;
                f(start..(start + size).min(group_starts[g + 1]));
                done[g].fetch_add(1, Ordering::Release);
            });
        }
    });
}

/// Colours of fewer batches than this per thread are not split across the team
/// (`for_each_block`): a colour's wait costs about what a few batches do.
#[cfg(feature = "parallel")]
const SMALL_COLOUR_BATCHES_PER_THREAD: usize = 2;

/// The colours `starts` (as `by_colour`) in groups: each colour of at least `small` batches
/// alone, each run of consecutive smaller ones together. Returns the group count, the
/// groups' first batches (and the end after the last group's) and which groups are runs
/// of small colours (solved as one block).
#[cfg(feature = "parallel")]
fn colour_groups(
    starts: &[usize],
    small: usize,
) -> (usize, [usize; MAX_COLOURS + 1], [bool; MAX_COLOURS]) {
    let colours = starts.len().saturating_sub(1);
    let len = |c: usize| starts[c + 1] - starts[c];
    let (mut group_starts, mut whole) = ([0; MAX_COLOURS + 1], [false; MAX_COLOURS]);
    let (mut groups, mut c) = (0, 0);
    while c < colours {
        group_starts[groups] = starts[c];
        whole[groups] = len(c) < small;
        c += 1;
        if whole[groups] {
            while c < colours && len(c) < small {
                c += 1;
            }
        }
        groups += 1;
    }
    group_starts[groups] = starts.last().copied().unwrap_or(0);
    (groups, group_starts, whole)
}

/// `count` flags, all clear: which pieces of work `take` has handed out.
#[cfg(feature = "parallel")]
fn claims(count: usize) -> Vec<std::sync::atomic::AtomicBool> {
    (0..count)
        .map(|_| std::sync::atomic::AtomicBool::new(false))
        .collect()
}

/// Run `run(k)` for every piece of work `k` (chunks, parts, blocks: one flag each in
/// `flags`) that member `member` of a team of `members` claims (`pool.rs`: a member is the
/// same thread every job): first its own equal share, front to back, then whatever is
/// left, from the back. With the team running together each thread does the same pieces
/// every job, so what they read and write stays in its caches from one job to the next (a
/// shared counter handed pieces out in arrival order: at 2 threads the colour passes took
/// 0.8 to 0.95 of the time with shares); a member the operating system parks holds
/// nothing up, as the others take its pieces from the back. Each piece runs exactly once:
/// its flag is taken by one swap.
#[cfg(feature = "parallel")]
fn take(
    flags: &[std::sync::atomic::AtomicBool],
    member: usize,
    members: usize,
    mut run: impl FnMut(usize),
) {
    use std::sync::atomic::Ordering;
    let count = flags.len();
    let mut claim = |k: usize| {
        let flag = &flags[k];
        if !flag.load(Ordering::Relaxed) && !flag.swap(true, Ordering::Relaxed) {
            run(k);
        }
    };
    if member < members {
        (member * count / members..(member + 1) * count / members).for_each(&mut claim);
    }
    (0..count).rev().for_each(claim);
}

/// Items `Threads::map_mut_fold` maps before it folds them: few enough that their outputs
/// are still in cache (the narrow phase's 12-byte outcomes: 12 kB).
const FOLD_BLOCK: usize = 1024;

/// Parts per thread of `split_fine`: as `BLOCKS_PER_THREAD`.
const PIECES_PER_THREAD: usize = 4;

/// Blocks per thread and colour: enough that a slow thread's share is taken over by the
/// others, few enough that claiming stays cheap.
#[cfg(feature = "parallel")]
const BLOCKS_PER_THREAD: usize = 4;

/// `T` alone in its cache lines (128 bytes: the line and the one the CPU fetches with it),
/// for what each thread of a split writes on its own, such as a list it pushes to: two
/// threads writing neighbouring outputs would pass the shared line back and forth on
/// every write.
#[derive(Clone, Debug, Default)]
#[repr(align(128))]
pub(crate) struct Padded<T>(pub T);

impl<T> std::ops::Deref for Padded<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

impl<T> std::ops::DerefMut for Padded<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Items ahead of the one being mapped that `map_ahead` asks the CPU for.
const ITEMS_AHEAD: usize = 4;

/// `out[i] = f(first + i, &mut items[i])` in order, each item asked for `ITEMS_AHEAD`
/// before its turn (a hint, no effect on results): the narrow phase's 192-byte contacts
/// are read once a step, and the stream prefetcher alone left the first read of each to
/// wait on memory (a quarter of the tumbler's narrow phase under `perf`).
fn map_ahead<T, U>(items: &mut [T], out: &mut [U], first: usize, f: &impl Fn(usize, &mut T) -> U) {
    let (base, len) = (items.as_ptr(), items.len());
    for (i, (item, o)) in items.iter_mut().zip(out).enumerate() {
        if i + ITEMS_AHEAD < len {
            prefetch_whole(base.wrapping_add(i + ITEMS_AHEAD));
        }
        *o = f(first + i, item);
    }
}

/// A slice handed to several threads, which promise to touch disjoint parts (each element
/// written by one thread only: the parts of `Threads::split`, the chunks of
/// `map_mut_fold`, the blocks of `by_colour`).
pub(crate) struct DisjointMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: std::marker::PhantomData<&'a mut [T]>,
}

// SAFETY: the users of `get` promise that no element is used by two threads at once.
unsafe impl<T: Send> Sync for DisjointMut<'_, T> {}
unsafe impl<T: Send> Send for DisjointMut<'_, T> {}

impl<'a, T> DisjointMut<'a, T> {
    pub(crate) fn new(slice: &'a mut [T]) -> DisjointMut<'a, T> {
        DisjointMut {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: std::marker::PhantomData,
        }
    }

    /// Element `i` (bounds checked).
    ///
    /// # Safety
    /// No other thread may use element `i` while the reference lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn get(&self, i: usize) -> &mut T {
        assert!(i < self.len, "element {i} of {}", self.len);
        &mut *self.ptr.add(i)
    }

    /// The address of element `i` (bounds checked), not to be dereferenced (a prefetch
    /// hint).
    pub(crate) fn ptr(&self, i: usize) -> *const T {
        assert!(i < self.len, "element {i} of {}", self.len);
        self.ptr.wrapping_add(i)
    }

    /// Elements `range` (bounds checked).
    ///
    /// # Safety
    /// No other thread may use these elements while the slice lives.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice(&self, range: std::ops::Range<usize>) -> &mut [T] {
        assert!(range.start <= range.end && range.end <= self.len);
        std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.end - range.start)
    }

    /// The whole slice.
    ///
    /// # Safety
    /// The threads holding the whole slice at once must touch disjoint elements, or only
    /// read the ones they share.
    #[cfg(feature = "parallel")]
    #[allow(clippy::mut_from_ref)]
    unsafe fn all(&self) -> &mut [T] {
        std::slice::from_raw_parts_mut(self.ptr, self.len)
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

    /// Step `adapt` `steps` times, each step taking `team` seconds on the team and `solo`
    /// on the caller alone; how many ran alone.
    #[cfg(feature = "parallel")]
    fn run_adapt(adapt: &mut Adapt, steps: usize, team: f32, solo: f32) -> usize {
        run_adapt_cold(adapt, steps, team, solo, solo)
    }

    /// As `run_adapt`, a step on the caller alone right after one on the team taking
    /// `first_solo` (it pays for the cache lines the team's other thread wrote).
    #[cfg(feature = "parallel")]
    fn run_adapt_cold(
        adapt: &mut Adapt,
        steps: usize,
        team: f32,
        solo: f32,
        first_solo: f32,
    ) -> usize {
        let mut after_team = false;
        (0..steps)
            .filter(|_| {
                let alone = adapt.solo_now();
                adapt.record(match (alone, after_team) {
                    (false, _) => team,
                    (true, true) => first_solo,
                    (true, false) => solo,
                });
                after_team = !alone;
                alone
            })
            .count()
    }

    /// Trials of the other mode in `steps` steps while the mode stays the faster: one at
    /// each period, the period doubling up to `most`.
    #[cfg(feature = "parallel")]
    fn trials_in(steps: u32, most: u32) -> usize {
        let (mut at, mut period, mut trials) = (0, PERIOD.0, 0);
        while at + period <= steps {
            at += period;
            period = (period * 2).min(most);
            trials += 1;
        }
        trials
    }

    /// Step times of the tumbler on two threads, seconds: the cores near each other (the
    /// team faster), far apart (the caller alone faster), and on one thread.
    #[cfg(feature = "parallel")]
    const NEAR: f32 = 1.35e-3;
    #[cfg(feature = "parallel")]
    const FAR: f32 = 2.7e-3;
    #[cfg(feature = "parallel")]
    const ALONE: f32 = 1.86e-3;

    /// While the team is the faster it stays, and its trials of the caller alone, each
    /// twice as far apart as the last, cost two steps each (the warm-up and the loss): a
    /// dozen steps in two thousand.
    #[cfg(feature = "parallel")]
    #[test]
    fn adapt_keeps_the_team_while_it_is_faster() {
        let mut adapt = Adapt::default();
        let alone = run_adapt(&mut adapt, 2000, NEAR, ALONE);
        assert!(!adapt.solo);
        let trials = trials_in(2000, PERIOD.1);
        assert!(
            (trials..=2 * trials).contains(&alone),
            "{alone} steps alone in {trials} trials"
        );
    }

    /// One cheap step of the other mode proves nothing: a trial must win step after step
    /// (a scene's steps vary: one without a rebuild of the tree is cheaper).
    #[cfg(feature = "parallel")]
    #[test]
    fn adapt_needs_the_trial_won_step_after_step() {
        let mut adapt = Adapt::default();
        let mut alone = 0;
        for step in 0..2000 {
            let time = if adapt.solo_now() {
                alone += 1;
                // Each trial's warm-up step as dear as ever, its first judged step cheap,
                // its second not.
                if alone % 3 == 2 {
                    1.0e-3
                } else {
                    ALONE
                }
            } else {
                NEAR
            };
            adapt.record(time);
            assert!(!adapt.solo, "moved to the caller alone at step {step}");
        }
        assert!(alone >= 3, "{alone} trial steps");
    }

    /// The first step on the caller alone after the team's pays for the cache lines the
    /// other thread wrote. Far apart, that step can be slower than a team step though the
    /// steps after it are faster (the junkyard): it is not judged, and the steps move.
    /// A first step slower than `WARM_UP` times the mode's still ends the trial at once.
    #[cfg(feature = "parallel")]
    #[test]
    fn adapt_leaves_a_trials_first_step_unjudged() {
        let mut adapt = Adapt::default();
        run_adapt_cold(&mut adapt, 2000, FAR, ALONE, 1.5 * FAR);
        assert!(adapt.solo, "stayed on the team, far apart");

        let mut adapt = Adapt::default();
        let alone = run_adapt_cold(&mut adapt, 2000, NEAR, ALONE, 3.0 * NEAR);
        assert!(!adapt.solo);
        let trials = trials_in(2000, PERIOD.1);
        assert!(alone <= trials, "{alone} steps alone in {trials} trials");
    }

    /// When the caller alone is the faster from the start, the steps move to it at the
    /// first trial and stay, trying the team again less and less often.
    #[cfg(feature = "parallel")]
    #[test]
    fn adapt_moves_to_the_caller_alone_when_it_is_faster() {
        let mut adapt = Adapt::default();
        let alone = run_adapt(&mut adapt, 2000, FAR, ALONE);
        assert!(adapt.solo);
        let team = 2000 - alone;
        // The first period on the team and the winning trial's warm-up, then two trial
        // steps at most every `PERIOD.2`.
        let most = PERIOD.0 as usize + 1 + 2 * (2000 / PERIOD.2 as usize + 1);
        assert!(team <= most, "{team} steps on the team");
    }

    /// The cores moving apart mid-run slow the team's steps: the caller alone is tried at
    /// once and kept; when they come back together, the next trial returns to the team.
    #[cfg(feature = "parallel")]
    #[test]
    fn adapt_follows_the_cores_moving_apart_and_back() {
        let mut adapt = Adapt::default();
        run_adapt(&mut adapt, 1000, NEAR, ALONE);
        assert!(!adapt.solo);
        // Half the last steps slow move the median; the trial's steps follow.
        let trial = 1 + TRIAL_STEPS as usize;
        run_adapt(&mut adapt, RECENT / 2 + trial, FAR, ALONE);
        assert!(adapt.solo, "still on the team after the cores moved apart");
        let alone = run_adapt(&mut adapt, 1000, FAR, ALONE);
        let trial_steps = 1000 - alone;
        assert!(
            trial_steps <= 2 * (1000 / PERIOD.2 as usize + 1),
            "{trial_steps} trial steps"
        );
        // Back together: the next trial, at most the longest period away, wins.
        run_adapt(&mut adapt, (PERIOD.2 + 2) as usize + trial, NEAR, ALONE);
        assert!(
            !adapt.solo,
            "still alone after the cores came back together"
        );
        let alone = run_adapt(&mut adapt, 1000, NEAR, ALONE);
        let trials = trials_in(1000, PERIOD.1);
        assert!(alone <= 2 * trials, "{alone} of 1000 steps alone");
    }

    /// Every colour's batches run exactly once, and a colour only after every batch of
    /// the colour before it (each batch records the colours finished when it ran).
    #[test]
    fn by_colour_runs_each_batch_once_after_the_colours_before() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        // Colours of 40, 1, 2, 77 and 80 batches: two small ones in a row.
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

    /// Colours under the size run together, each longer one alone, whatever sits at
    /// either end.
    #[cfg(feature = "parallel")]
    #[test]
    fn colour_groups_join_runs_of_small_colours() {
        let group = |starts: &[usize], small: usize| {
            let (count, group_starts, whole) = colour_groups(starts, small);
            (group_starts[..=count].to_vec(), whole[..count].to_vec())
        };
        let (f, t) = (false, true);
        assert_eq!(
            group(&[0, 40, 41, 43, 120, 200], 4),
            (vec![0, 40, 43, 120, 200], vec![f, t, f, f])
        );
        assert_eq!(
            group(&[0, 1, 2, 50, 51, 53], 4),
            (vec![0, 2, 50, 53], vec![t, f, t])
        );
        // A colour of exactly `small` batches is split; one alone is its own group.
        assert_eq!(group(&[0, 4, 7, 11], 4), (vec![0, 4, 7, 11], vec![f, t, f]));
        assert_eq!(group(&[0, 9], 4), (vec![0, 9], vec![f]));
        assert_eq!(group(&[0], 4), (vec![0], vec![]));
    }

    /// `by_colour_beside` hands each block the same range of `beside` as of the batches.
    #[test]
    fn by_colour_beside_pairs_each_batch_with_its_own_entry() {
        let starts = [0usize, 40, 41, 43, 120, 200];
        for count in [1, 2, 4] {
            let threads = Threads::new(count).unwrap();
            let beside: Vec<u32> = (0..200).map(|k| 1000 + k).collect();
            let mut batches: Vec<(u32, u32)> = (0..200).map(|k| (k, 0)).collect();
            let mut bodies = vec![SolverBody::STATIC; 3];
            threads.by_colour_beside(
                &mut batches,
                &beside,
                &starts,
                &mut bodies,
                |batch, entries, _| {
                    assert_eq!(batch.len(), entries.len());
                    for ((_, seen), &entry) in batch.iter_mut().zip(entries) {
                        *seen = entry;
                    }
                },
            );
            for &(k, seen) in &batches {
                assert_eq!(seen, 1000 + k, "{count} threads, batch {k}");
            }
        }
    }

    /// Every item mapped once, by its own index, and the chunks' accumulators, joined in
    /// order, meet the items in order.
    #[test]
    fn map_mut_fold_maps_every_item_once_and_folds_in_order() {
        for count in [1, 2, 3] {
            let threads = Threads::new(count).unwrap();
            let mut accs: Vec<Padded<Vec<u32>>> = Vec::new();
            for len in [0, 1, 15, 16, 17, 1000] {
                let mut items: Vec<u32> = (0..len).collect();
                let mut out = vec![0u64; len as usize];
                let f = |i: usize, x: &mut u32| {
                    assert_eq!(*x, i as u32, "the item's own index");
                    *x += 1;
                    u64::from(*x) * 3
                };
                // Each block's items (as mapped) and outputs, in order.
                let fold = |seen: &mut Vec<u32>, items: &[u32], out: &[u64]| {
                    for (&x, &o) in items.iter().zip(out) {
                        assert_eq!(o, u64::from(x) * 3);
                        seen.push(x - 1);
                    }
                };
                let chunks = threads.map_mut_fold(&mut items, &mut out, &mut accs, f, fold);
                for (i, (&x, &o)) in items.iter().zip(&out).enumerate() {
                    assert_eq!(
                        (x, o),
                        (i as u32 + 1, 3 * (i as u64 + 1)),
                        "{count} threads"
                    );
                }
                let folded: Vec<u32> = accs[..chunks].iter().flat_map(|a| a.0.clone()).collect();
                assert_eq!(folded, (0..len).collect::<Vec<u32>>(), "{count} threads");
                if count > 1 && len >= 1000 {
                    assert!(chunks > count, "several chunks per thread");
                }
            }
        }
    }

    /// `ranges` and `runs_into` cover `0..len` once, in order, with a few parts per thread
    /// of a team (and one part alone or when not worth it).
    #[test]
    fn ranges_and_runs_into_cover_every_index_once_in_order() {
        for count in [1, 2, 3] {
            let threads = Threads::new(count).unwrap();
            for len in [0, 1, 7, 1000] {
                for worth_it in [false, true] {
                    let seen: Vec<std::sync::atomic::AtomicU32> = (0..len)
                        .map(|_| std::sync::atomic::AtomicU32::new(0))
                        .collect();
                    threads.ranges(len, worth_it, |run| {
                        for i in run {
                            seen[i].fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    });
                    assert!(seen
                        .iter()
                        .all(|s| s.load(std::sync::atomic::Ordering::Relaxed) == 1));
                    let mut outputs: Vec<Padded<Vec<usize>>> = Vec::new();
                    let parts = threads.runs_into(len, worth_it, &mut outputs, |run, out| {
                        out.clear();
                        out.extend(run);
                    });
                    let expected = if worth_it && count > 1 && cfg!(feature = "parallel") {
                        count * PIECES_PER_THREAD
                    } else {
                        1
                    };
                    assert_eq!(parts, expected, "{count} threads, worth it {worth_it}");
                    let joined: Vec<usize> = outputs[..parts]
                        .iter()
                        .flat_map(|o| o.iter().copied())
                        .collect();
                    assert_eq!(joined, (0..len).collect::<Vec<_>>(), "{count} threads");
                }
            }
        }
    }

    /// A member alone takes its own share front to back, then the rest from the back; a
    /// member past the team, or one that comes later, takes what is left, each piece once.
    #[cfg(feature = "parallel")]
    #[test]
    fn take_gives_each_member_its_share_first_and_each_piece_once() {
        let flags = claims(10);
        let mut order = Vec::new();
        take(&flags, 1, 3, |k| order.push(k));
        assert_eq!(order, [3, 4, 5, 9, 8, 7, 6, 2, 1, 0]);
        let mut late = Vec::new();
        take(&flags, 0, 3, |k| late.push(k));
        assert!(late.is_empty(), "{late:?}");
        let flags = claims(7);
        take(&flags, 2, 3, |k| late.push(k));
        take(&flags, 5, 3, |k| late.push(k));
        assert_eq!(late, [4, 5, 6, 3, 2, 1, 0]);
        assert!(claims(0).is_empty());
        take(&claims(0), 0, 2, |_| panic!("no pieces"));
    }

    /// The whole team at once, over and over: every piece runs exactly once, whichever
    /// members come and in whatever order.
    #[cfg(feature = "parallel")]
    #[test]
    fn take_runs_each_piece_once_with_the_team_racing() {
        use std::sync::atomic::{AtomicUsize, Ordering};
        let pool = super::super::pool::Pool::new(3).unwrap();
        for count in [1, 3, 4, 17, 64] {
            for _ in 0..200 {
                let flags = claims(count);
                let runs: Vec<AtomicUsize> = (0..count).map(|_| AtomicUsize::new(0)).collect();
                pool.run(&|member| {
                    take(&flags, member, 4, |k| {
                        runs[k].fetch_add(1, Ordering::SeqCst);
                    })
                });
                assert!(
                    runs.iter().all(|r| r.load(Ordering::SeqCst) == 1),
                    "{count}"
                );
            }
        }
    }
}
