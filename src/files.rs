//! User files and user strings, handled safely (behind the `testbed` feature).
//!
//! - [`write_atomic`] and [`AtomicFile`]: the ONE way the testbed writes a file for the user
//!   (`run --export` and `--trace`, screenshots, `--dump-state`, `--layout-out`, the
//!   preferences). The bytes go to a temporary file in the target's folder (`tempfile`:
//!   created exclusively under a random name, removed if anything fails or panics) and are
//!   renamed into place, so a reader never sees half a file. The target must be a regular
//!   file or a new path: a device node (`/dev/null`), a folder or a symbolic link is refused
//!   with an error naming the path and what it is, and nothing is written.
//! - [`escape`]: a name, path or other user-given string as printed in a message: control
//!   characters (newline, tab, escape, ...) and bidirectional overrides shown as Rust escapes
//!   (`\n`, `\u{1b}`), so a name can neither split a message nor drive the terminal.
//!
//! Why `tempfile` and not a std function: nothing in the GUI-free library writes files (the
//! scene exporter returns text), so the helper can live with the command line and the
//! window; and `tempfile` gives what a hand-made `name.tmp` does not: an exclusive random
//! name (two writers, or a planted symlink, cannot collide with it) and clean-up on every
//! path out, panics included.

use std::borrow::Cow;
use std::ffi::OsStr;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

use tempfile::NamedTempFile;

/// A file being written: a temporary file next to `path`, renamed onto it by
/// [`AtomicFile::finish`] (dropped without `finish`: removed, `path` untouched).
pub struct AtomicFile {
    path: PathBuf,
    out: BufWriter<NamedTempFile>,
}

impl AtomicFile {
    /// Start writing `path`: refuse it unless it is a regular file or does not exist, then
    /// create the temporary file in its folder. Errors name the path.
    pub fn create(path: &Path) -> io::Result<AtomicFile> {
        refuse_special(path)?;
        let dir = match path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d,
            _ => Path::new("."),
        };
        let mut builder = tempfile::Builder::new();
        builder.prefix(".impulse-").suffix(".tmp");
        // The final file gets the usual permissions (0666 less the umask), not tempfile's
        // private 0600.
        #[cfg(unix)]
        builder.permissions(std::os::unix::fs::PermissionsExt::from_mode(0o666));
        let tmp = builder
            .tempfile_in(dir)
            .map_err(|e| named(path, &os_error(e)))?;
        Ok(AtomicFile {
            path: path.to_path_buf(),
            out: BufWriter::new(tmp),
        })
    }

    /// Where the file goes.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Flush, sync and rename the temporary file onto the path (checked again, so a path
    /// that became a link or a device meanwhile is still refused).
    pub fn finish(self) -> io::Result<()> {
        let path = self.path;
        let tmp = self
            .out
            .into_inner()
            .map_err(|e| named(&path, &os_error(e.into_error())))?;
        tmp.as_file()
            .sync_all()
            .map_err(|e| named(&path, &os_error(e)))?;
        refuse_special(&path)?;
        tmp.persist(&path)
            .map(|_| ())
            .map_err(|e| named(&path, &os_error(e.error)))
    }
}

impl Write for AtomicFile {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.out.write(buf)
    }

    fn flush(&mut self) -> io::Result<()> {
        self.out.flush()
    }
}

/// Write `bytes` to `path` through a temporary file renamed into place (see the module
/// docs). Errors name the path; on error nothing at `path` has changed.
pub fn write_atomic(path: &Path, bytes: impl AsRef<[u8]>) -> io::Result<()> {
    let mut file = AtomicFile::create(path)?;
    file.write_all(bytes.as_ref())
        .map_err(|e| named(path, &os_error(e)))?;
    file.finish()
}

/// A name, path or message part as printed: control characters and bidirectional
/// overrides escaped as Rust writes them (`\n`, `\t`, `\u{1b}`), everything else as is
/// (invalid UTF-8 in a path shown as U+FFFD).
pub fn escape(text: impl AsRef<OsStr>) -> String {
    fn unsafe_char(c: char) -> bool {
        c.is_control() || matches!(c, '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}')
    }
    let text: Cow<str> = text.as_ref().to_string_lossy();
    if !text.chars().any(unsafe_char) {
        return text.into_owned();
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if unsafe_char(c) {
            out.extend(c.escape_debug());
        } else {
            out.push(c);
        }
    }
    out
}

/// An error if `path` exists and is anything but a regular file (a symbolic link is refused
/// even when it points at one: the rename would replace the link, not its target). The
/// writers check this themselves; call it to refuse a path early.
pub fn refuse_special(path: &Path) -> io::Result<()> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(named(path, &os_error(e))),
    };
    let kind = meta.file_type();
    let what = if kind.is_file() {
        return Ok(());
    } else if kind.is_symlink() {
        "a symbolic link"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "a device or other special file"
    };
    Err(io::Error::new(
        io::ErrorKind::InvalidInput,
        format!(
            "{}: is {what}; refusing to replace it (give a regular file or a new path); \
             nothing was written",
            escape(path)
        ),
    ))
}

/// The OS's own message for an error (without `tempfile`'s temporary path in it).
fn os_error(e: io::Error) -> io::Error {
    match e.raw_os_error() {
        Some(code) => io::Error::from_raw_os_error(code),
        None => e,
    }
}

/// `e` with the path in front: `PATH: reason`.
fn named(path: &Path, e: &io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("{}: {e}", escape(path)))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("impulse-files-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    fn leftovers(dir: &Path) -> Vec<String> {
        std::fs::read_dir(dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .filter(|n| n.ends_with(".tmp"))
            .collect()
    }

    #[test]
    fn writes_and_replaces_regular_files_with_no_leftovers() {
        let dir = temp_dir("write");
        let path = dir.join("a.txt");
        write_atomic(&path, "one").unwrap();
        write_atomic(&path, b"two").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "two");
        assert!(leftovers(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn an_unfinished_file_leaves_nothing() {
        let dir = temp_dir("drop");
        let path = dir.join("a.txt");
        let mut file = AtomicFile::create(&path).unwrap();
        file.write_all(b"half").unwrap();
        drop(file);
        assert!(!path.exists());
        assert!(leftovers(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[cfg(unix)]
    #[test]
    fn devices_folders_and_symlinks_are_refused_and_untouched() {
        let dir = temp_dir("refuse");
        let target = dir.join("target.txt");
        std::fs::write(&target, "keep").unwrap();
        let link = dir.join("link.txt");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for (path, what) in [
            (Path::new("/dev/null"), "a device"),
            (dir.as_path(), "a folder"),
            (link.as_path(), "a symbolic link"),
        ] {
            let e = write_atomic(path, "x").unwrap_err().to_string();
            assert!(e.contains(&path.display().to_string()), "{e}");
            assert!(e.contains(what) && e.contains("nothing was written"), "{e}");
        }
        assert!(std::fs::symlink_metadata(&link).unwrap().is_symlink());
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep");
        assert!(leftovers(&dir).is_empty());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_missing_folder_is_an_error_naming_the_path() {
        let e = write_atomic(Path::new("/no/such/dir/a.txt"), "x").unwrap_err();
        assert!(e.to_string().starts_with("/no/such/dir/a.txt: "), "{e}");
    }

    #[test]
    fn escape_shows_control_characters_and_keeps_the_rest() {
        assert_eq!(
            escape("plain name, \"quoted\" \\ é"),
            "plain name, \"quoted\" \\ é"
        );
        assert_eq!(escape("a\nb\tc\u{1b}[31md\r"), "a\\nb\\tc\\u{1b}[31md\\r");
        assert_eq!(escape("x\u{202e}y\u{7f}"), "x\\u{202e}y\\u{7f}");
        assert_eq!(escape(Path::new("dir/new\nline.ron")), "dir/new\\nline.ron");
    }
}
