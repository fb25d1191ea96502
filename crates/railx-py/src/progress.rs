//! Progress and Ctrl-C for long core calls. The core runs on a helper thread, without the GIL;
//! the calling thread waits for it in slices of `INTERVAL`, and between slices takes the GIL to
//! run Python's signal handlers (`check_signals`: Ctrl-C raises KeyboardInterrupt, which only
//! the main thread can see) and to call the optional progress callback with the latest report.
//! A callback that raises, or returns `False`, stops the run; so does an interrupt. The core
//! only hands out counters it keeps anyway (`railx_core::progress`), so results never depend on
//! whether anyone watches.

use crate::err;
use pyo3::exceptions::PyRuntimeError;
use pyo3::prelude::*;
use railx_core::progress::{Cancelled, Observer, Unit};
use railx_core::RailxError as CoreError;
use std::ops::ControlFlow;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicU8, Ordering};
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::Duration;

/// Time between two looks at signals and calls of the callback: at most 10 a second.
const INTERVAL: Duration = Duration::from_millis(100);

/// Stack of the thread the core runs on.
const RUN_STACK_BYTES: usize = 8 << 20;

/// `total` when the run does not know it.
const UNKNOWN: u64 = u64::MAX;

const UNITS: [Unit; 7] = [
    Unit::Cycles,
    Unit::Flits,
    Unit::Messages,
    Unit::Destinations,
    Unit::Routes,
    Unit::Nodes,
    Unit::Lines,
];

/// The latest report, written by the run's thread and read by the caller's.
struct Latest {
    done: AtomicU64,
    total: AtomicU64,
    /// Index in `UNITS`, plus one; 0 until the first report.
    unit: AtomicU8,
    stop: AtomicBool,
}

impl Observer for &Latest {
    fn report(&mut self, done: u64, total: Option<u64>, unit: Unit) -> ControlFlow<Cancelled> {
        self.done.store(done, Ordering::Relaxed);
        self.total
            .store(total.unwrap_or(UNKNOWN), Ordering::Relaxed);
        let index = UNITS.iter().position(|&u| u == unit).unwrap_or(0) as u8;
        self.unit.store(index + 1, Ordering::Release);
        if self.stop.load(Ordering::Relaxed) {
            ControlFlow::Break(Cancelled)
        } else {
            ControlFlow::Continue(())
        }
    }
}

impl Latest {
    /// Calls `callback(done, total or None, unit)` with the latest report, if there is one;
    /// `Ok(false)` when it returned `False`.
    fn tell(&self, py: Python<'_>, callback: &Bound<'_, PyAny>) -> PyResult<bool> {
        let unit = self.unit.load(Ordering::Acquire);
        if unit == 0 {
            return Ok(true);
        }
        let total = self.total.load(Ordering::Relaxed);
        let answer = callback.call1((
            self.done.load(Ordering::Relaxed),
            (total != UNKNOWN).then_some(total),
            UNITS[unit as usize - 1].name(),
        ))?;
        Ok(!answer.is(pyo3::types::PyBool::new(py, false)))
    }
}

/// Runs `run` (a core call taking an observer) on a helper thread, watching signals and calling
/// `progress` at most every `INTERVAL` (module docs). A Python error raised meanwhile
/// (KeyboardInterrupt, or the callback's) is raised once the run has stopped; a callback's
/// `False` gives the core's `Cancelled` error.
pub(crate) fn observed<T: Send>(
    py: Python<'_>,
    progress: Option<&Bound<'_, PyAny>>,
    run: impl FnOnce(&mut dyn Observer) -> Result<T, CoreError> + Send,
) -> PyResult<T> {
    let latest = Latest {
        done: AtomicU64::new(0),
        total: AtomicU64::new(UNKNOWN),
        unit: AtomicU8::new(0),
        stop: AtomicBool::new(false),
    };
    let mut raised: Option<PyErr> = None;
    let outcome = std::thread::scope(|scope| {
        let (tx, mut rx) = mpsc::channel();
        let latest = &latest;
        // The calling thread's stack size (the main thread's default), not a spawned one's 2 MiB.
        let spawned = std::thread::Builder::new()
            .name("railx-run".into())
            .stack_size(RUN_STACK_BYTES)
            .spawn_scoped(scope, move || {
                let mut observer = latest;
                // The receiver outlives the run unless the caller is gone; nothing to do then.
                let _ = tx.send(run(&mut observer));
            });
        if let Err(e) = spawned {
            return Some(Err(CoreError::internal("starting the run's thread", e)));
        }
        loop {
            let (got, back) = py.detach(move || (rx.recv_timeout(INTERVAL), rx));
            rx = back;
            match got {
                Ok(result) => return Some(result),
                Err(RecvTimeoutError::Disconnected) => return None,
                Err(RecvTimeoutError::Timeout) => {}
            }
            if latest.stop.load(Ordering::Relaxed) {
                continue;
            }
            let looked = py.check_signals().and_then(|()| match progress {
                Some(callback) => latest.tell(py, callback),
                None => Ok(true),
            });
            match looked {
                Ok(true) => {}
                Ok(false) => latest.stop.store(true, Ordering::Relaxed),
                Err(e) => {
                    raised = Some(e);
                    latest.stop.store(true, Ordering::Relaxed);
                }
            }
        }
    });
    if let Some(e) = raised {
        return Err(e);
    }
    outcome
        .ok_or_else(|| PyRuntimeError::new_err("the run's thread ended without a result"))?
        .map_err(err)
}
