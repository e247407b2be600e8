//! The worker threads behind `Threads` (feature `parallel`): a team of plain `std` threads
//! that stay awake between the many short jobs of one step.
//!
//! A step hands its threads some twenty jobs (the narrow phase, each stage of each
//! sub-step, the store), most of them tens of microseconds long. A worker that went to
//! sleep after a job must be woken by the operating system for the next one, which costs
//! about as much as a short job. So, as Box2D's own scheduler does, a worker that finishes
//! a job spins, watching for the next, for `SPIN` before it parks; the step's jobs follow
//! each other closely enough that the workers stay awake through a step and sleep between
//! frames.
//!
//! - `run(work)` runs `work` on the caller and on every worker at once and returns when all
//!   are done. `work` must be written so that any number of participants finish it (they
//!   claim parts with atomic counters), so when the team is busy (another world's step on
//!   another thread, or a job that runs a job) the caller runs it alone.
//! - A panic in a worker's part is caught and raised again on the caller once every part
//!   is done, as a panic of the caller's own part is: nothing waits forever.

use std::cell::UnsafeCell;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, TryLockError};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

/// How long a worker watches for the next job before it parks.
const SPIN: Duration = Duration::from_micros(200);

/// A job: the caller's `work`, lifetime erased (it outlives every use: `run` returns only
/// once every worker is done with it).
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync));

// SAFETY: the pointee is `Sync`, and lives until every worker is done with it.
unsafe impl Send for Job {}

/// What the caller and the workers share.
struct Shared {
    /// Bumped once per job; a worker runs the job when it sees a new value.
    generation: AtomicU64,
    /// The current job, written by the caller before it bumps `generation` and cleared
    /// after every worker is done.
    job: UnsafeCell<Option<Job>>,
    /// Workers done with the current job.
    done: AtomicUsize,
    /// Workers parked (or about to park).
    parked: AtomicUsize,
    /// A worker's part of the current job panicked.
    panicked: AtomicBool,
    shutdown: AtomicBool,
}

// SAFETY: `job` is written only by the caller holding `Pool::busy` while no worker reads
// it (before the generation bump, after every worker is done), and read by the workers
// only between the bump and their `done` increment.
unsafe impl Sync for Shared {}

/// The workers (the caller is the team's other member).
pub(crate) struct Pool {
    shared: Arc<Shared>,
    workers: Vec<JoinHandle<()>>,
    /// Held for the length of a job: one job at a time.
    busy: Mutex<()>,
}

impl Pool {
    /// Start `workers` threads. Errors when the operating system refuses one.
    pub(crate) fn new(workers: usize) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared {
            generation: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            done: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
        });
        let mut pool = Pool {
            shared: shared.clone(),
            workers: Vec::with_capacity(workers),
            busy: Mutex::new(()),
        };
        for i in 0..workers {
            let shared = shared.clone();
            let handle = std::thread::Builder::new()
                .name(format!("impulse-worker-{}", i + 1))
                .spawn(move || worker(&shared, i + 1))?;
            // On an early return the pool drops and stops the workers already started.
            pool.workers.push(handle);
        }
        Ok(pool)
    }

    /// Threads in the team: the workers and the caller.
    pub(crate) fn team_size(&self) -> usize {
        self.workers.len() + 1
    }

    /// Run `work(member)` on the caller (member 0) and on every worker (worker `i` is member
    /// `i + 1`, the same thread every job) at once; return when all are done. When the
    /// team is busy, the caller runs `work(0)` alone.
    pub(crate) fn run(&self, work: &(dyn Fn(usize) + Sync)) {
        let _busy = match self.busy.try_lock() {
            Ok(guard) => guard,
            // A job panicked on the caller: the team itself is sound.
            Err(TryLockError::Poisoned(poisoned)) => poisoned.into_inner(),
            Err(TryLockError::WouldBlock) => {
                work(0);
                return;
            }
        };
        let shared = &*self.shared;
        shared.done.store(0, Ordering::Relaxed);
        shared.panicked.store(false, Ordering::Relaxed);
        // SAFETY: only erases the lifetime; the workers are done with the job before this
        // function returns (below), and no worker reads `job` before the bump.
        let job: Job = Job(unsafe {
            std::mem::transmute::<*const (dyn Fn(usize) + Sync + '_), *const (dyn Fn(usize) + Sync)>(
                work as *const (dyn Fn(usize) + Sync),
            )
        });
        unsafe { *shared.job.get() = Some(job) };
        shared.generation.fetch_add(1, Ordering::SeqCst);
        if shared.parked.load(Ordering::SeqCst) > 0 {
            for w in &self.workers {
                w.thread().unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| work(0)));
        let workers = self.workers.len();
        let mut spins = 0u32;
        while shared.done.load(Ordering::Acquire) < workers {
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: every worker is done with the job.
        unsafe { *shared.job.get() = None };
        if let Err(payload) = mine {
            resume_unwind(payload);
        }
        if shared.panicked.load(Ordering::Relaxed) {
            panic!("a worker thread panicked during the step");
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shared.shutdown.store(true, Ordering::SeqCst);
        for w in &self.workers {
            w.thread().unpark();
        }
        for w in self.workers.drain(..) {
            let _ = w.join();
        }
    }
}

/// Worker `member` (1, 2, ...): wait for a new job (spinning for `SPIN`, then parked), run
/// it, report done.
fn worker(shared: &Shared, member: usize) {
    // Generation 0 is the pool's start: a job published before this thread first looks
    // is still new to it.
    let mut seen = 0;
    loop {
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        loop {
            if shared.shutdown.load(Ordering::Acquire) {
                return;
            }
            let generation = shared.generation.load(Ordering::Acquire);
            if generation != seen {
                seen = generation;
                break;
            }
            spins += 1;
            if !spins.is_multiple_of(64) || idle_since.elapsed() < SPIN {
                std::hint::spin_loop();
                continue;
            }
            // Park; the caller unparks every worker when it sees one parked after its
            // bump (both orders SeqCst, so either the re-check below sees the new job or
            // the caller sees this worker parked). An unpark that comes first makes the
            // park return at once.
            shared.parked.fetch_add(1, Ordering::SeqCst);
            if shared.generation.load(Ordering::SeqCst) == seen
                && !shared.shutdown.load(Ordering::SeqCst)
            {
                std::thread::park();
            }
            shared.parked.fetch_sub(1, Ordering::SeqCst);
            idle_since = Instant::now();
        }
        // SAFETY: the caller wrote the job before the bump we saw, and clears it only
        // after this worker reports done.
        let job = unsafe { *shared.job.get() };
        if let Some(Job(work)) = job {
            // SAFETY: the caller's `work` lives until every worker is done.
            let work = unsafe { &*work };
            if catch_unwind(AssertUnwindSafe(|| work(member))).is_err() {
                shared.panicked.store(true, Ordering::Relaxed);
            }
        }
        shared.done.fetch_add(1, Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member of the team runs the job once per `run`, jobs follow one another,
    /// and a team of workers asleep (after `SPIN`) still takes the next job.
    #[test]
    fn every_member_runs_every_job() {
        let pool = Pool::new(3).unwrap();
        assert_eq!(pool.team_size(), 4);
        let runs = AtomicUsize::new(0);
        for round in 0..200 {
            runs.store(0, Ordering::SeqCst);
            pool.run(&|_| {
                runs.fetch_add(1, Ordering::SeqCst);
            });
            assert_eq!(runs.load(Ordering::SeqCst), 4, "round {round}");
            if round % 50 == 0 {
                std::thread::sleep(SPIN * 5);
            }
        }
    }

    /// A panic in any member's part reaches the caller, and the team still works after.
    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let pool = Pool::new(2).unwrap();
        let caller = std::thread::current().id();
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.run(&|_| {
                if std::thread::current().id() != caller {
                    panic!("worker part fails");
                }
            })
        }));
        assert!(result.is_err());
        let runs = AtomicUsize::new(0);
        pool.run(&|_| {
            runs.fetch_add(1, Ordering::SeqCst);
        });
        assert_eq!(runs.load(Ordering::SeqCst), 3);
    }

    /// Two callers at once: one gets the team, the other runs its job alone; neither waits
    /// forever.
    #[test]
    fn a_busy_team_lets_the_caller_run_alone() {
        let pool = Arc::new(Pool::new(1).unwrap());
        let handles: Vec<_> = (0..2)
            .map(|_| {
                let pool = pool.clone();
                std::thread::spawn(move || {
                    for _ in 0..500 {
                        let runs = AtomicUsize::new(0);
                        pool.run(&|_| {
                            runs.fetch_add(1, Ordering::SeqCst);
                        });
                        let n = runs.load(Ordering::SeqCst);
                        assert!(n == 1 || n == 2, "{n} runs");
                    }
                })
            })
            .collect();
        for h in handles {
            h.join().unwrap();
        }
    }
}
