//! The z3 process, with a deadline on every answer harvey waits for. z3's own limits (its
//! `rlimit`, its `-t`) are promises z3 does not always keep: some tactics never check them
//! (nonlinear terms over wrapping words ran for twelve CPU-minutes under `-t:5000`), and a
//! program named as z3 may be anything. So harvey never blocks on the process: a thread
//! writes what is sent, another reads what z3 prints, a third keeps the tail of its
//! standard error, and the caller waits on the reader's channel until its deadline; then
//! the process (and, on Unix, its process group: a wrapper script's children too) is
//! killed.

use std::io::{BufRead, BufReader, Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Where every command sent to z3 is copied (`HARVEY_Z3_LOG`), shared by the workers' z3s.
type Z3Log = Arc<Mutex<dyn Write + Send>>;

/// Bytes of z3's standard error kept, for the message when it fails.
const STDERR_KEPT: usize = 2_000;

/// Why no answer came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Failed {
    /// None by the deadline: the process was killed.
    Late,
    /// The process is gone, or said what an SMT-LIB solver does not: what happened.
    Broken(String),
}

/// A running z3 (or what was named as one).
pub(crate) struct Process {
    program: PathBuf,
    child: Child,
    input: Sender<String>,
    output: Receiver<String>,
    stderr: Arc<Mutex<String>>,
    /// Disconnected once the standard error thread read to the end.
    stderr_read: Receiver<()>,
    log: Option<Z3Log>,
    /// Lines of an answer that has not ended yet (an s-expression over several lines).
    pending: String,
    /// Whether it was killed and reaped: its id may belong to another process since.
    killed: bool,
}

impl Process {
    /// Starts `program` with `args`; `Err` says why it could not be.
    pub(crate) fn start(
        program: &Path,
        args: &[String],
        log: Option<Z3Log>,
    ) -> Result<Process, String> {
        let mut command = Command::new(program);
        command
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped());
        // A group of its own, so that killing it kills what a wrapper script started.
        #[cfg(unix)]
        std::os::unix::process::CommandExt::process_group(&mut command, 0);
        let mut child = command
            .spawn()
            .map_err(|e| format!("could not start `{}`: {e}", program.display()))?;
        let (Some(stdin), Some(stdout), Some(stderr)) =
            (child.stdin.take(), child.stdout.take(), child.stderr.take())
        else {
            // Unreachable with piped streams; said rather than unwrapped.
            return Err(format!("`{}` started without pipes", program.display()));
        };
        let (input, to_write) = mpsc::channel();
        let (read, output) = mpsc::channel();
        let tail = Arc::new(Mutex::new(String::new()));
        spawn("harvey-z3-in", move || write_all(stdin, &to_write));
        spawn("harvey-z3-out", move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if read.send(line).is_err() {
                    break;
                }
            }
        });
        let kept = Arc::clone(&tail);
        let (reading, stderr_read) = mpsc::channel::<()>();
        spawn("harvey-z3-err", move || {
            keep_tail(stderr, &kept);
            drop(reading);
        });
        Ok(Process {
            program: program.to_path_buf(),
            child,
            input,
            output,
            stderr: tail,
            stderr_read,
            log,
            pending: String::new(),
            killed: false,
        })
    }

    /// Sends `text` (whole commands); never blocks, whatever the process does.
    pub(crate) fn send(&mut self, text: String) {
        if let Some(log) = &self.log {
            let mut log = log.lock().unwrap_or_else(|e| e.into_inner());
            // A log that cannot be written loses the log, not the query.
            let _ = log.write_all(text.as_bytes()).and_then(|()| log.flush());
        }
        // A writer that is gone means a process that is gone: the next answer says so.
        let _ = self.input.send(text);
    }

    /// The next answer: a symbol, or an s-expression however many lines it spans.
    /// [`Failed::Late`] (the process killed) when none is complete by `deadline`.
    pub(crate) fn answer(&mut self, deadline: Instant) -> Result<String, Failed> {
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.output.recv_timeout(left) {
                Ok(line) => {
                    if !self.pending.is_empty() {
                        self.pending.push('\n');
                    }
                    self.pending.push_str(line.trim_end());
                    if is_complete(&self.pending) {
                        return Ok(std::mem::take(&mut self.pending).trim().to_string());
                    }
                }
                Err(RecvTimeoutError::Timeout) => {
                    self.kill();
                    return Err(Failed::Late);
                }
                Err(RecvTimeoutError::Disconnected) => return Err(Failed::Broken(self.ended())),
            }
        }
    }

    /// Why the process stopped printing: its exit status and what it wrote on standard
    /// error.
    fn ended(&mut self) -> String {
        // It closed its output; it may take a moment to exit, and need not (a wrapper).
        let waited = Instant::now();
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if waited.elapsed() < std::time::Duration::from_secs(1) => {
                    std::thread::sleep(std::time::Duration::from_millis(5));
                }
                _ => break None,
            }
        };
        self.kill();
        // What it said last may still be in the pipe: wait a moment for the reader (not
        // longer: a wrapper's child may hold the pipe open).
        let _ = self
            .stderr_read
            .recv_timeout(std::time::Duration::from_millis(200));
        let how = match status {
            Some(status) => format!("exited ({status})"),
            None => "closed its output".to_string(),
        };
        let stderr = self
            .stderr
            .lock()
            .map(|s| s.trim().to_string())
            .unwrap_or_default();
        let mut message = format!("`{}` {how}", self.program.display());
        if !self.pending.is_empty() {
            message.push_str(&format!(" after printing `{}`", clip(&self.pending)));
        }
        if !stderr.is_empty() {
            message.push_str(&format!("; it said: {}", clip(&stderr)));
        }
        message
    }

    /// Kills the process and its group, and reaps it; once.
    fn kill(&mut self) {
        if std::mem::replace(&mut self.killed, true) {
            return;
        }
        // The group's id stays the leader's while any member lives, and the leader is not
        // reaped yet (or was just now, by `ended`): the id is still this group's.
        #[cfg(unix)]
        if let Ok(pid) = i32::try_from(self.child.id()) {
            // SAFETY: `kill` has no memory effects; a group that is gone gives ESRCH.
            unsafe {
                libc::kill(-pid, libc::SIGKILL);
            }
        }
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// The program, for messages.
    pub(crate) fn program(&self) -> &Path {
        &self.program
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        self.kill();
    }
}

/// Starts a named thread that nobody joins: it ends when its pipe does.
fn spawn(name: &str, work: impl FnOnce() + Send + 'static) {
    // A thread that cannot be started leaves its pipe unserved: the process then looks
    // silent, and the caller's deadline ends it like any silent z3.
    let _ = std::thread::Builder::new().name(name.into()).spawn(work);
}

/// Writes every text received to `stdin` until the process or the sender is gone.
fn write_all(mut stdin: ChildStdin, texts: &Receiver<String>) {
    for text in texts {
        if stdin
            .write_all(text.as_bytes())
            .and_then(|()| stdin.flush())
            .is_err()
        {
            break;
        }
    }
}

/// Keeps the last [`STDERR_KEPT`] bytes `stderr` gives in `tail`.
fn keep_tail(mut stderr: impl Read, tail: &Mutex<String>) {
    let mut buffer = [0u8; 1024];
    while let Ok(n) = stderr.read(&mut buffer) {
        if n == 0 {
            break;
        }
        let mut tail = tail.lock().unwrap_or_else(|e| e.into_inner());
        tail.push_str(&String::from_utf8_lossy(&buffer[..n]));
        if tail.len() > STDERR_KEPT {
            let mut cut = tail.len() - STDERR_KEPT;
            while !tail.is_char_boundary(cut) {
                cut += 1;
            }
            tail.drain(..cut);
        }
    }
}

/// Whether `text` is a whole answer: something outside strings, with every
/// parenthesis closed.
fn is_complete(text: &str) -> bool {
    let mut depth = 0i64;
    let mut seen = false;
    let mut in_string = false;
    for c in text.chars() {
        match c {
            '"' => in_string = !in_string,
            _ if in_string => {}
            '(' => depth += 1,
            ')' => depth -= 1,
            c if c.is_whitespace() => {}
            _ => {}
        }
        seen |= !c.is_whitespace();
    }
    seen && depth <= 0 && !in_string
}

/// `text` cut to a length a message can carry.
pub(crate) fn clip(text: &str) -> String {
    const KEPT: usize = 200;
    let text = text.trim();
    match text.char_indices().nth(KEPT) {
        Some((at, _)) => format!("{}…", &text[..at]),
        None => text.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_answer_ends_where_its_parentheses_close() {
        assert!(is_complete("sat"));
        assert!(!is_complete("((arg0 5)"));
        assert!(is_complete("((arg0 5)\n (arg1 7))"));
        assert!(!is_complete("(error \"a ) in a string"));
        assert!(is_complete("(error \"a ) in a string\")"));
        assert!(!is_complete("   "));
    }

    #[test]
    fn messages_are_clipped_on_character_boundaries() {
        let long = "é".repeat(500);
        let clipped = clip(&long);
        assert_eq!(clipped.chars().count(), 201);
        assert_eq!(clip(" sat "), "sat");
    }
}
