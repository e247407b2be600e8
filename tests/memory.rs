//! Heap bytes a world holds per contact pair once it has run: the arrays that hold one
//! entry per contact grow by an eighth, not by doubling (`physics::growth`), so after a
//! second of running the bytes per pair stay near those of a fresh pile, below Box2D's.
//!
//! The bytes are counted by a global allocator, per thread (each test's world is built and
//! stepped on its own thread, with one solver thread), so tests running beside each other
//! do not disturb the count.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::path::Path;

use impulse::physics::World;

struct Counting;

thread_local! {
    /// Bytes allocated minus bytes freed on this thread.
    static LIVE: Cell<isize> = const { Cell::new(0) };
}

fn count(delta: isize) {
    // `try_with`: nothing to count while the thread's locals are torn down.
    let _ = LIVE.try_with(|live| live.set(live.get() + delta));
}

// SAFETY: every call is passed to the system allocator unchanged; only the sizes are counted.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        count(-(layout.size() as isize));
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size() as isize);
        unsafe { System.alloc_zeroed(layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size as isize - layout.size() as isize);
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

fn live_bytes() -> isize {
    LIVE.with(Cell::get)
}

/// The bytes `file`'s world took on from its first step to `steps` steps, per pair at the
/// most it held in between (the arrays keep the room of the busiest step), and the pair
/// counts after the first step and at the most.
fn bytes_grown_per_pair(file: &str, steps: usize) -> (f64, usize, usize) {
    let scene = impulse::scene::load_file(Path::new(file)).expect("scene loads");
    let mut world: World = scene.world;
    world.step(1.0 / 60.0);
    let (before, first) = (live_bytes(), world.stats().pairs);
    let mut peak = first;
    for _ in 1..steps {
        world.step(1.0 / 60.0);
        peak = peak.max(world.stats().pairs);
    }
    let grown = live_bytes() - before;
    let per_pair = grown as f64 / peak as f64;
    eprintln!(
        "{file}: {first} pairs after 1 step, at most {peak} by step {steps}; \
         {grown} bytes more, {per_pair:.0} per pair at the most"
    );
    (per_pair, first, peak)
}

/// The washer churns its pairs (8,100 boxes tumbling in a turning drum): contacts part and
/// are made every step, and the dead wait in the array for compaction. With doubling arrays
/// its world took on 13.5 MB from the first step to the 60th, 411 bytes per pair (the
/// contacts held 65,536 slots of 192 bytes for 32,740 live, the solver's batches twice the
/// room used), which put it above Box2D's bytes per pair in the bench (838 against 516).
/// Growing by an eighth: 1.7 MB, 51 per pair, for 3% more pairs.
#[test]
fn washer_grows_little_past_its_first_step() {
    let (per_pair, first, peak) = bytes_grown_per_pair("scenes/benchmark/washer.ron", 60);
    assert!(
        first > 30_000 && peak > first,
        "{first} then at most {peak} pairs"
    );
    assert!(per_pair < 200.0, "{per_pair:.0} bytes per pair");
}

/// The spinner's pairs rise from 26,092 after the first step to 34,694 and fall to 24,318
/// by the 60th (a blade sweeping a heap): with doubling arrays the world took on 12.1 MB,
/// 348 bytes per pair at the most (1,009 bytes per pair after 60 steps in the bench,
/// against Box2D's 873); now 4.7 MB, 135.
#[test]
fn spinner_grows_little_past_its_first_step() {
    let (per_pair, first, peak) = bytes_grown_per_pair("scenes/benchmark/spinner.ron", 60);
    assert!(
        first > 20_000 && peak > 30_000,
        "{first} then at most {peak} pairs"
    );
    assert!(per_pair < 200.0, "{per_pair:.0} bytes per pair");
}
