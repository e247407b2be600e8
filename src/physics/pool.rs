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
//! - `run(work)` runs `work` on the caller and on every worker that comes for it while the
//!   caller is at it, and returns when all who came are done. `work` must be written so
//!   that any number of participants finish it (they claim parts with atomic flags): when
//!   the team is busy (another world's step on another thread, or a job that runs a job)
//!   the caller runs it alone, and a worker the operating system has not run since the job
//!   was posted (its core lent to another process) does not join it late: when the caller
//!   has finished its part it closes the job, and a worker that has not entered it by then
//!   skips it. So no job waits for a worker to be *scheduled*, only for the parts workers
//!   have taken to be finished (a step hands out some twenty jobs: on a shared core, waiting
//!   for the descheduled worker to come back for each cost a time slice per job).
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
/// once every worker that entered it is done with it).
#[derive(Clone, Copy)]
struct Job(*const (dyn Fn(usize) + Sync));

// SAFETY: the pointee is `Sync`, and lives until every worker is done with it.
unsafe impl Send for Job {}

/// `Shared::state`: the job's generation (bumped once per job) above `CLOSED`, whether the
/// caller has closed it to latecomers, and below it the number of workers that entered it.
const GENERATION: u64 = 1 << 17;
const CLOSED: u64 = 1 << 16;
const ENTERED: u64 = CLOSED - 1;

/// What the caller and the workers share.
struct Shared {
    /// The current job's generation, closed flag and entered count (`GENERATION`). A
    /// worker that sees a new generation enters the job by raising the count, unless it
    /// is closed; the caller closes it when its own part is done and then waits for the
    /// workers that entered. Entering and closing change the one word, so each worker
    /// either is counted or finds the job closed.
    state: AtomicU64,
    /// The current job, written by the caller before it bumps the generation and cleared
    /// after every worker that entered is done.
    job: UnsafeCell<Option<Job>>,
    /// Workers done with the current job.
    done: AtomicUsize,
    /// Workers parked (or about to park).
    parked: AtomicUsize,
    /// A worker's part of the current job panicked.
    panicked: AtomicBool,
    shutdown: AtomicBool,
    /// Tests: workers that see a new job wait here before entering it, as a worker whose
    /// core the operating system has lent to another process would.
    #[cfg(test)]
    hold: AtomicBool,
}

// SAFETY: `job` is written only by the caller holding `Pool::busy` while no worker reads
// it (before the generation bump, after every worker that entered is done), and read by
// a worker only between entering the job and its `done` increment.
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
            state: AtomicU64::new(0),
            job: UnsafeCell::new(None),
            done: AtomicUsize::new(0),
            parked: AtomicUsize::new(0),
            panicked: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            #[cfg(test)]
            hold: AtomicBool::new(false),
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
    /// `i + 1`, the same thread every job) that enters the job before the caller has done
    /// its part; return when all of them are done. When the team is busy, the caller runs
    /// `work(0)` alone.
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
        // Only the caller (holding `busy`) writes the generation; the last job is closed
        // and every worker that entered it done, so the count is 0 again.
        let generation = shared.state.load(Ordering::Relaxed) / GENERATION + 1;
        shared
            .state
            .store(generation.wrapping_mul(GENERATION), Ordering::SeqCst);
        if shared.parked.load(Ordering::SeqCst) > 0 {
            for w in &self.workers {
                w.thread().unpark();
            }
        }
        let mine = catch_unwind(AssertUnwindSafe(|| work(0)));
        // Close the job: a worker not in it by now finds nothing left to take.
        let entered = (shared.state.fetch_or(CLOSED, Ordering::AcqRel) & ENTERED) as usize;
        let mut spins = 0u32;
        while shared.done.load(Ordering::Acquire) < entered {
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
        // SAFETY: every worker that entered the job is done with it; the others never
        // read it (they find it closed).
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

/// Worker `member` (1, 2, ...): wait for a new job (spinning for `SPIN`, then parked),
/// enter it unless the caller has closed it, run it, report done.
fn worker(shared: &Shared, member: usize) {
    // Generation 0 is the pool's start: a job published before this thread first looks
    // is still new to it.
    let mut seen = 0;
    loop {
        let mut idle_since = Instant::now();
        let mut spins = 0u32;
        let mut state = loop {
            if shared.shutdown.load(Ordering::Acquire) {
                return;
            }
            let state = shared.state.load(Ordering::Acquire);
            if state / GENERATION != seen {
                break state;
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
            if shared.state.load(Ordering::SeqCst) / GENERATION == seen
                && !shared.shutdown.load(Ordering::SeqCst)
            {
                std::thread::park();
            }
            shared.parked.fetch_sub(1, Ordering::SeqCst);
            idle_since = Instant::now();
        };
        #[cfg(test)]
        while shared.hold.load(Ordering::Acquire) {
            std::thread::yield_now();
        }
        // Enter the newest job, unless it is closed (then wait for the next). The
        // generation may move on between tries: the job entered is the one counted.
        let entered = loop {
            if state & CLOSED != 0 {
                break false;
            }
            match shared.state.compare_exchange_weak(
                state,
                state + 1,
                Ordering::Acquire,
                Ordering::Acquire,
            ) {
                Ok(_) => break true,
                Err(now) => state = now,
            }
        };
        seen = state / GENERATION;
        if !entered {
            continue;
        }
        // SAFETY: the caller wrote the job before the generation bump we entered under,
        // and clears it only after this worker reports done.
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

    /// Spin until `done()` or ten seconds have passed; whether it came true.
    fn wait_for(done: impl Fn() -> bool) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while !done() {
            if Instant::now() > deadline {
                return false;
            }
            std::hint::spin_loop();
        }
        true
    }

    /// Run a job whose caller part waits (up to ten seconds) until every member of the team
    /// has come; how many ran it.
    fn run_held_open(pool: &Pool) -> usize {
        let runs = AtomicUsize::new(0);
        pool.run(&|member| {
            runs.fetch_add(1, Ordering::SeqCst);
            if member == 0 {
                assert!(wait_for(|| runs.load(Ordering::SeqCst) == pool.team_size()));
            }
        });
        runs.load(Ordering::SeqCst)
    }

    /// Every worker enters a job held open long enough (the caller's part waits for them),
    /// each member runs it once, jobs follow one another, and a team of workers asleep
    /// (after `SPIN`) still takes the next job.
    #[test]
    fn every_member_runs_a_job_held_open() {
        let pool = Pool::new(3).unwrap();
        assert_eq!(pool.team_size(), 4);
        for round in 0..200 {
            let runs: [AtomicUsize; 4] = std::array::from_fn(|_| AtomicUsize::new(0));
            let total = || runs.iter().map(|r| r.load(Ordering::SeqCst)).sum::<usize>();
            pool.run(&|member| {
                runs[member].fetch_add(1, Ordering::SeqCst);
                if member == 0 {
                    assert!(wait_for(|| total() == 4), "round {round}: {}", total());
                }
            });
            for (member, r) in runs.iter().enumerate() {
                assert_eq!(
                    r.load(Ordering::SeqCst),
                    1,
                    "round {round}, member {member}"
                );
            }
            if round % 50 == 0 {
                std::thread::sleep(SPIN * 5);
            }
        }
    }

    /// A worker that does not come for a job (held, as one whose core is lent to another
    /// process) holds no job up: the caller runs each alone and returns; once it comes
    /// back it finds those jobs closed, runs none of them, and joins the next.
    #[test]
    fn a_worker_that_does_not_come_holds_no_job_up() {
        let pool = Arc::new(Pool::new(1).unwrap());
        pool.shared.hold.store(true, Ordering::SeqCst);
        let (sender, receiver) = std::sync::mpsc::channel();
        let caller = pool.clone();
        let held_runs = Arc::new(AtomicUsize::new(0));
        let runs = held_runs.clone();
        std::thread::spawn(move || {
            for _ in 0..100 {
                caller.run(&|_| {
                    runs.fetch_add(1, Ordering::SeqCst);
                });
            }
            let _ = sender.send(());
        });
        let finished = receiver.recv_timeout(Duration::from_secs(10));
        pool.shared.hold.store(false, Ordering::SeqCst);
        assert!(finished.is_ok(), "the caller waited for the held worker");
        assert_eq!(
            held_runs.load(Ordering::SeqCst),
            100,
            "the caller ran each job alone"
        );
        // The worker, let go, skips the closed jobs and enters the next one held open.
        assert_eq!(run_held_open(&pool), 2);
        assert_eq!(
            held_runs.load(Ordering::SeqCst),
            100,
            "no closed job ran late"
        );
    }

    /// A panic in any member's part reaches the caller, and the team still works after.
    #[test]
    fn a_panic_in_a_worker_reaches_the_caller() {
        let pool = Pool::new(2).unwrap();
        let came = AtomicUsize::new(0);
        let result = catch_unwind(AssertUnwindSafe(|| {
            pool.run(&|member| {
                came.fetch_add(1, Ordering::SeqCst);
                if member == 0 {
                    // Hold the job open until both workers are in.
                    assert!(wait_for(|| came.load(Ordering::SeqCst) == 3));
                } else {
                    panic!("worker part fails");
                }
            })
        }));
        assert!(result.is_err());
        assert_eq!(run_held_open(&pool), 3);
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
