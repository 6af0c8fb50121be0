//! Long calls that let Python breathe: the work runs on a thread of its own with the GIL
//! released, and the calling thread takes the GIL back every [`POLL`] to run Python's
//! signal handlers (so Ctrl-C raises `KeyboardInterrupt`) and the caller's progress hook.
//!
//! # Contract
//! - When a signal handler or the hook raises, `stop` is called and the call waits for
//!   the work to stop (the library polls the flag: solvers every 1,024 nodes, the pipeline's
//!   workers at every record), then raises that exception. The work is never left running.
//! - A panic in the work becomes a `RuntimeError` naming it, never an abort of the process.

use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use std::sync::{Condvar, Mutex};
use std::time::Duration;

/// How often the calling thread looks at signals and calls the progress hook.
pub const POLL: Duration = Duration::from_millis(100);

/// Stack of the work thread: df-pn recurses once per ply of its path (the pipeline gives its
/// workers the same).
const STACK_BYTES: usize = 64 << 20;

/// Runs `work` with the GIL released; see the module contract. `poll` is called with the
/// GIL held every [`POLL`] while the work runs (not after it ends); `stop` asks the work
/// to stop (it sets the flag the library polls).
pub fn interruptible<T: Send>(
    py: Python<'_>,
    stop: impl Fn(),
    mut poll: impl FnMut(Python<'_>) -> PyResult<()>,
    work: impl FnOnce() -> T + Send,
) -> PyResult<T> {
    let done = (Mutex::new(false), Condvar::new());
    std::thread::scope(|scope| {
        let handle = std::thread::Builder::new()
            .name("posfilter".into())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, || {
                let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(work));
                let (lock, ready) = &done;
                *lock.lock().unwrap_or_else(|p| p.into_inner()) = true;
                ready.notify_all();
                result
            })
            .map_err(|e| PyRuntimeError::new_err(format!("cannot start a thread: {e}")))?;
        let mut raised: Option<PyErr> = None;
        loop {
            let finished = py.detach(|| {
                let (lock, ready) = &done;
                let guard = lock.lock().unwrap_or_else(|p| p.into_inner());
                let (guard, _) = ready
                    .wait_timeout_while(guard, POLL, |finished| !*finished)
                    .unwrap_or_else(|p| p.into_inner());
                *guard
            });
            if finished {
                break;
            }
            if raised.is_none() {
                if let Err(e) = py.check_signals().and_then(|()| poll(py)) {
                    stop();
                    raised = Some(e);
                }
            }
        }
        let joined = py.detach(|| handle.join());
        if let Some(e) = raised {
            return Err(e);
        }
        match joined {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(panic)) | Err(panic) => Err(PyRuntimeError::new_err(format!(
                "posfilter panicked (a bug; please report it): {}",
                panic_message(&*panic)
            ))),
        }
    })
}

/// The message of a panic payload.
fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "no message".into())
}
