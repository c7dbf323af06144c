//! Files that tests running in parallel (threads under `cargo test`, processes under
//! `cargo nextest`) all add to — the SARIF and lcov outputs: a lock file beside each, and
//! writes that replace the file whole.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use crate::{Error, Result};

/// How long a writer waits for the lock before giving up.
const LOCK_WAIT: Duration = Duration::from_secs(60);

/// A lock older than this was left by a process that died while holding it (the writes it
/// guards take milliseconds).
const STALE_LOCK: Duration = Duration::from_secs(120);

/// The lock file of `path`: `<path>.lock`.
pub(crate) fn lock_path(path: &Path) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(".lock");
    PathBuf::from(name)
}

/// A lock file beside a shared file, removed when dropped.
pub(crate) struct FileLock(PathBuf);

impl FileLock {
    /// Creates `path`'s lock file, waiting while another writer holds it.
    pub(crate) fn take(path: &Path) -> Result<FileLock> {
        let lock = lock_path(path);
        let start = Instant::now();
        loop {
            match std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&lock)
            {
                Ok(_) => return Ok(FileLock(lock)),
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                    let age = std::fs::metadata(&lock)
                        .and_then(|m| m.modified())
                        .ok()
                        .and_then(|modified| SystemTime::now().duration_since(modified).ok());
                    if age.is_some_and(|age| age > STALE_LOCK) {
                        let _ = std::fs::remove_file(&lock);
                        continue;
                    }
                    if start.elapsed() > LOCK_WAIT {
                        return Err(Error::Io {
                            path: lock,
                            message: "held by another writer for over a minute; delete it if no test is running".into(),
                        });
                    }
                    std::thread::sleep(Duration::from_millis(10));
                }
                Err(e) => return Err(Error::io(&lock, &e)),
            }
        }
    }
}

impl Drop for FileLock {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

/// Replaces `path` with `text` through a temporary file of this process: a reader never
/// sees half a file.
pub(crate) fn write_atomically(path: &Path, text: &str) -> Result<()> {
    let mut name = path.as_os_str().to_owned();
    name.push(format!(".{}.tmp", std::process::id()));
    let temporary = PathBuf::from(name);
    std::fs::write(&temporary, text).map_err(|e| Error::io(&temporary, &e))?;
    std::fs::rename(&temporary, path).map_err(|e| Error::io(path, &e))
}
