//! Watching the open scene file: its modification time and size are polled about twice a
//! second, and a change asks the testbed to reload it. Polling (not inotify) keeps it
//! portable and dependency free; editors that replace the file (write a temporary file and
//! rename it) are seen too, since the path is polled, not the file handle.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// How often the file is polled.
pub const POLL_INTERVAL: Duration = Duration::from_millis(500);

/// What identifies a version of the file: modification time and length. `None` while the
/// file is missing.
type Stamp = Option<(SystemTime, u64)>;

fn stamp(path: &Path) -> Stamp {
    let meta = std::fs::metadata(path).ok()?;
    Some((meta.modified().ok()?, meta.len()))
}

/// A polled file.
#[derive(Debug)]
pub struct FileWatch {
    path: PathBuf,
    stamp: Stamp,
    last_poll: Instant,
}

impl FileWatch {
    /// Watch `path`, taking its current version as seen.
    pub fn new(path: &Path) -> FileWatch {
        FileWatch {
            path: path.to_path_buf(),
            stamp: stamp(path),
            last_poll: Instant::now(),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// True once per change of the file (modified, replaced, or back after going missing),
    /// checked at most every `POLL_INTERVAL`. A file that disappears is not a change: there
    /// is nothing to reload until it is back.
    pub fn poll(&mut self) -> bool {
        if self.last_poll.elapsed() < POLL_INTERVAL {
            return false;
        }
        self.check_now()
    }

    /// Check the file now, whatever the interval.
    pub fn check_now(&mut self) -> bool {
        self.last_poll = Instant::now();
        let now = stamp(&self.path);
        if now == self.stamp {
            return false;
        }
        self.stamp = now;
        now.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_change_is_reported_once() {
        let dir = std::env::temp_dir().join(format!("impulse-watch-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("scene.ron");
        std::fs::write(&path, "a").unwrap();
        let mut watch = FileWatch::new(&path);
        assert!(!watch.check_now());
        std::fs::write(&path, "bb").unwrap(); // a new length, whatever the clock's resolution
        assert!(watch.check_now());
        assert!(!watch.check_now());
        assert!(!watch.poll(), "polled again within the interval");
        std::fs::remove_file(&path).unwrap();
        assert!(!watch.check_now(), "gone: nothing to reload");
        std::fs::write(&path, "ccc").unwrap();
        assert!(watch.check_now(), "back");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
