//! How far apart the machine's cores are right now: the round trip of one cache line between
//! two threads, measured before and after every run on two threads.
//!
//! On a virtual machine the host may place the two virtual CPUs close (sharing a cache: on
//! the 2-core AMD EPYC guest of `BENCHMARKS.md`, about 60 ns a round trip) or far apart
//! (about 350 ns: not sharing a cache, perhaps not a socket), and may move them between the
//! two while a table is run. Every hand-over between threads (a job posted, a colour's end, a body's velocities
//! written on one core and read on the other) costs that trip, so two-thread times jump
//! with it (the tumbler at 2 threads: 1.3 ms a step near, 2.7 far) while one-thread times do
//! not. The bench records the trip beside each two-thread repeat, so that the engines are
//! compared under the same placement (the report's near and far columns, `placement_tables`).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

/// Round trips per measurement: a few milliseconds when the cores are far apart.
const ROUND_TRIPS: u64 = 20_000;

/// A measurement gives up after this long (a machine so loaded that the other thread is
/// not running): the trip is then reported as the time taken over the trips made.
const GIVE_UP: Duration = Duration::from_millis(500);

/// Nanoseconds for one cache line to go to another thread and back (the median of three
/// measurements of `ROUND_TRIPS` trips each); NaN when the second thread could not be
/// started. The two threads are not pinned: with two cores and nothing else running, they
/// run on both.
pub fn round_trip_ns() -> f64 {
    let mut trips = [one_measurement(), one_measurement(), one_measurement()];
    trips.sort_by(f64::total_cmp);
    trips[1]
}

fn one_measurement() -> f64 {
    // Odd values are the caller's serves, even ones the other thread's returns; u64::MAX
    // tells the other thread to stop.
    let ball = Arc::new(AtomicU64::new(0));
    let other = {
        let ball = ball.clone();
        std::thread::Builder::new().spawn(move || {
            let mut expect = 1;
            loop {
                let seen = ball.load(Ordering::Acquire);
                if seen == u64::MAX {
                    return;
                }
                if seen == expect {
                    ball.store(expect + 1, Ordering::Release);
                    expect += 2;
                }
                std::hint::spin_loop();
            }
        })
    };
    let Ok(other) = other else {
        return f64::NAN;
    };
    // The first trip waits for the thread to start: not timed.
    ball.store(1, Ordering::Release);
    while ball.load(Ordering::Acquire) != 2 {
        std::hint::spin_loop();
    }
    let start = Instant::now();
    let mut made = 0;
    for i in 1..=ROUND_TRIPS {
        ball.store(2 * i + 1, Ordering::Release);
        while ball.load(Ordering::Acquire) != 2 * i + 2 {
            std::hint::spin_loop();
        }
        made = i;
        if i % 1024 == 0 && start.elapsed() > GIVE_UP {
            break;
        }
    }
    let ns = start.elapsed().as_secs_f64() * 1e9 / made as f64;
    ball.store(u64::MAX, Ordering::Release);
    let _ = other.join();
    ns
}

/// Which repeats a two-thread table keeps.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Placement {
    /// Every repeat.
    Any,
    /// Repeats whose trips (before and after) were at most `NEAR_FACTOR` times the
    /// reference trip of the whole bench run (its lower quartile).
    Near,
    /// The others.
    Far,
}

/// A repeat is "near" when its trips were at most this many times the run's reference.
pub const NEAR_FACTOR: f64 = 2.0;

impl Placement {
    /// Whether a repeat with round trip `trip` (the larger of before and after; `None` for
    /// a one-thread run) is kept, `reference` being the bench run's reference trip. A trip
    /// that could not be measured (NaN) is neither near nor far.
    pub fn keeps(self, trip: Option<f64>, reference: f64) -> bool {
        match (self, trip) {
            (Placement::Any, _) => true,
            (_, None) => false,
            (Placement::Near, Some(t)) => t <= NEAR_FACTOR * reference,
            (Placement::Far, Some(t)) => t > NEAR_FACTOR * reference,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn placement_splits_repeats_by_the_reference_trip() {
        let reference = 60.0;
        assert!(Placement::Near.keeps(Some(110.0), reference));
        assert!(!Placement::Far.keeps(Some(110.0), reference));
        assert!(Placement::Far.keeps(Some(350.0), reference));
        assert!(!Placement::Near.keeps(Some(350.0), reference));
        assert!(!Placement::Near.keeps(None, reference));
        assert!(Placement::Any.keeps(None, reference));
        assert!(!Placement::Near.keeps(Some(f64::NAN), reference));
        assert!(!Placement::Far.keeps(Some(f64::NAN), reference));
    }

    #[test]
    fn a_round_trip_is_measured_and_positive() {
        let ns = round_trip_ns();
        assert!(ns.is_finite() && ns > 1.0, "round trip {ns} ns");
    }
}
