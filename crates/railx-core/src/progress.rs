//! Progress and cancellation of long runs (the flit and flow simulators, the deadlock check,
//! route statistics, a RailX plan's metrics): a run tells an [`Observer`] how far it is, at a bounded rate, and the
//! observer may answer "stop".
//!
//! An observer only reads counters the run keeps anyway, so it never changes a result; a run
//! without one (`Silent`) pays a countdown per step and one virtual call every `stride` steps.
//! A cancelled run returns [`RailxError::Cancelled`] and no partial result: a half-run
//! simulation's statistics cover a window it did not finish, and a half-built dependency graph
//! proves nothing.

use crate::error::{RailxError, Result};
use std::ops::ControlFlow;

/// What a run counts when it reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Unit {
    /// Simulated cycles (flit level, rate traffic: the run's length is known).
    Cycles,
    /// Flits delivered (flit level, a finite all-to-all).
    Flits,
    /// Messages delivered (flit or flow level, a message DAG).
    Messages,
    /// Destinations whose routes have been walked (exhaustive deadlock check).
    Destinations,
    /// Routes checked or measured (structural deadlock check, route statistics).
    Routes,
    /// Source nodes whose worst routes have been walked (a RailX plan's metrics).
    Nodes,
    /// Collective lines measured on a routed network (a workload's parallelism dimensions).
    Lines,
}

impl Unit {
    pub fn name(self) -> &'static str {
        match self {
            Unit::Cycles => "cycles",
            Unit::Flits => "flits",
            Unit::Messages => "messages",
            Unit::Destinations => "destinations",
            Unit::Routes => "routes",
            Unit::Nodes => "nodes",
            Unit::Lines => "lines",
        }
    }
}

/// The observer asked the run to stop.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Cancelled;

/// Receives a run's progress: `done` of `total` (when known) `unit`s. Returning
/// `ControlFlow::Break(Cancelled)` stops the run with [`RailxError::Cancelled`].
pub trait Observer: Send {
    fn report(&mut self, done: u64, total: Option<u64>, unit: Unit) -> ControlFlow<Cancelled>;
}

/// No observer: never stops a run.
pub struct Silent;

impl Observer for Silent {
    fn report(&mut self, _: u64, _: Option<u64>, _: Unit) -> ControlFlow<Cancelled> {
        ControlFlow::Continue(())
    }
}

/// One part of a longer run (a point of a sweep): its reports shifted by the `before` units
/// done ahead of it, out of the `whole` run's total.
pub struct Part<'a> {
    pub inner: &'a mut dyn Observer,
    pub before: u64,
    pub whole: Option<u64>,
}

impl Observer for Part<'_> {
    fn report(&mut self, done: u64, _: Option<u64>, unit: Unit) -> ControlFlow<Cancelled> {
        self.inner.report(self.before + done, self.whole, unit)
    }
}

/// A run's side of the protocol: counts steps and asks the observer every `stride` of them
/// (plus once at the start), so a cheap step costs a decrement and a branch.
pub struct Meter<'a> {
    observer: &'a mut dyn Observer,
    what: &'static str,
    unit: Unit,
    total: Option<u64>,
    stride: u64,
    countdown: u64,
}

impl<'a> Meter<'a> {
    /// A meter for a run named `what` (in the error message) counting `unit`s towards `total`,
    /// asking `observer` every `stride` steps (at least 1).
    pub fn new(
        observer: &'a mut dyn Observer,
        what: &'static str,
        unit: Unit,
        total: Option<u64>,
        stride: u64,
    ) -> Self {
        Meter {
            observer,
            what,
            unit,
            total,
            stride: stride.max(1),
            countdown: 1,
        }
    }

    /// One step done; every `stride` steps reports `done()` and returns the cancellation error
    /// if the observer asks to stop.
    #[inline(always)]
    pub fn step(&mut self, done: impl FnOnce() -> u64) -> Result<()> {
        self.countdown -= 1;
        if self.countdown > 0 {
            return Ok(());
        }
        self.countdown = self.stride;
        self.report(done())
    }

    /// Reports `done` now, whatever the stride.
    pub fn report(&mut self, done: u64) -> Result<()> {
        match self.observer.report(done, self.total, self.unit) {
            ControlFlow::Continue(()) => Ok(()),
            ControlFlow::Break(Cancelled) => Err(RailxError::Cancelled {
                what: self.what.to_string(),
                done,
                total: self
                    .total
                    .map_or_else(|| "?".to_string(), |t| t.to_string()),
                unit: self.unit.name().to_string(),
            }),
        }
    }
}

/// Fewest items in a chunk of `chunked`, so that a small run keeps its parallelism.
const MIN_CHUNK: usize = 64;

/// Runs `work` on consecutive chunks of `items` (about a hundredth of them, at least
/// `MIN_CHUNK`), reporting the items done after each chunk; `work` parallelises inside its
/// chunk. Each item meets the same call as in one pass over all of them, so a caller whose
/// merge of per-item results is order-free gets the same answer.
pub fn chunked<T, R>(
    items: &[T],
    meter: &mut Meter,
    work: impl FnMut(&[T]) -> Result<R>,
) -> Result<Vec<R>> {
    chunked_weighted(items, meter, |_| 1, work)
}

/// `chunked` over items that each stand for `weight(item)` of the meter's units (a group of
/// destinations walked at once): reports the sum of the weights done.
pub fn chunked_weighted<T, R>(
    items: &[T],
    meter: &mut Meter,
    weight: impl Fn(&T) -> u64,
    mut work: impl FnMut(&[T]) -> Result<R>,
) -> Result<Vec<R>> {
    let chunk = items.len().div_ceil(100).max(MIN_CHUNK);
    let mut out = Vec::with_capacity(items.len().div_ceil(chunk));
    let mut done = 0;
    meter.report(0)?;
    for part in items.chunks(chunk) {
        out.push(work(part)?);
        done += part.iter().map(&weight).sum::<u64>();
        meter.report(done)?;
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cancels at its `k`-th report, recording every report.
    struct StopAt {
        k: usize,
        seen: Vec<u64>,
    }

    impl Observer for StopAt {
        fn report(&mut self, done: u64, _: Option<u64>, _: Unit) -> ControlFlow<Cancelled> {
            self.seen.push(done);
            if self.seen.len() >= self.k {
                ControlFlow::Break(Cancelled)
            } else {
                ControlFlow::Continue(())
            }
        }
    }

    #[test]
    fn meter_reports_every_stride_and_stops_at_the_kth_report() {
        let mut obs = StopAt {
            k: 3,
            seen: Vec::new(),
        };
        let mut meter = Meter::new(&mut obs, "test run", Unit::Cycles, Some(100), 10);
        let mut stopped = None;
        for i in 0..100u64 {
            if let Err(e) = meter.step(|| i) {
                stopped = Some(e);
                break;
            }
        }
        assert_eq!(obs.seen, vec![0, 10, 20]);
        let e = stopped.expect("cancelled");
        assert_eq!(
            e.to_string(),
            "test run cancelled after 20 of 100 cycles by its progress observer"
        );
    }
}
