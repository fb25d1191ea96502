//! The one resource estimator: every builder and analysis whose memory or time grows with its
//! input states an [`Estimate`] (bytes it will hold at its peak, and work in elementary steps)
//! as a function of the inputs that drive it, and asks [`require`] before it allocates. Beyond
//! the [`Budget`], the run is refused in one line that names the input driving the size and the
//! largest value of it that fits (docs/architecture.md, Resource budget).
//!
//! The budget:
//! - memory: `RAILX_MEMORY_BUDGET` (bytes, with an optional unit: `8GiB`, `500MB`), else
//!   [`MEMORY_FRACTION`] of the memory this process may use: the machine's (`MemTotal` in
//!   /proc/meminfo), or what an address-space limit (`ulimit -v`, RLIMIT_AS) leaves above what
//!   the process already maps, whichever is smaller;
//! - work: `RAILX_WORK_BUDGET` (steps, `inf` for none), else [`DEFAULT_WORK_STEPS`], about ten
//!   minutes of one core (a step is a few nanoseconds of simple work).

use crate::error::{RailxError, Result};
use std::ops::Add;

/// Environment variable overriding the memory budget (bytes, unit optional).
pub const MEMORY_BUDGET_ENV: &str = "RAILX_MEMORY_BUDGET";
/// Environment variable overriding the work budget (steps, or `inf`).
pub const WORK_BUDGET_ENV: &str = "RAILX_WORK_BUDGET";
/// Share of the usable memory one run may take by default: the rest stays for the caller
/// (Python, NumPy copies of the results) and for the estimates' error.
pub const MEMORY_FRACTION: f64 = 0.5;
/// Default work budget in steps.
pub const DEFAULT_WORK_STEPS: f64 = 1e11;
/// Memory assumed where /proc is not there to read (not Linux).
const FALLBACK_MEMORY_BYTES: f64 = 8.0 * GIB;
const GIB: f64 = (1u64 << 30) as f64;

/// What a run will need: bytes held at its peak and elementary steps of work. Estimates are
/// `f64` so that no input can overflow them (a huge input gives a huge or infinite estimate,
/// which is refused).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Estimate {
    pub bytes: f64,
    pub work: f64,
}

impl Estimate {
    pub fn new(bytes: f64, work: f64) -> Estimate {
        Estimate { bytes, work }
    }

    /// Memory only; the work is proportional to it and small beside the budget.
    pub fn memory(bytes: f64) -> Estimate {
        Estimate { bytes, work: bytes }
    }
}

impl Add for Estimate {
    type Output = Estimate;
    fn add(self, other: Estimate) -> Estimate {
        Estimate {
            bytes: self.bytes + other.bytes,
            work: self.work + other.work,
        }
    }
}

/// How much one run may take.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Budget {
    pub bytes: f64,
    pub work: f64,
}

impl Budget {
    /// The budget from the environment, or the defaults (module docs); a malformed variable is
    /// a one-line error naming it.
    pub fn current() -> Result<Budget> {
        let bytes = match std::env::var(MEMORY_BUDGET_ENV) {
            Ok(text) => parse_amount(MEMORY_BUDGET_ENV, &text, "e.g. 8GiB")?,
            Err(_) => MEMORY_FRACTION * usable_memory_bytes(),
        };
        let work = match std::env::var(WORK_BUDGET_ENV) {
            Ok(text) => parse_amount(WORK_BUDGET_ENV, &text, "e.g. 1e12, or inf")?,
            Err(_) => DEFAULT_WORK_STEPS,
        };
        Ok(Budget { bytes, work })
    }

    pub fn fits(&self, e: Estimate) -> bool {
        e.bytes <= self.bytes && e.work <= self.work
    }
}

/// An input that drives an estimate: its name as the user spells it, its value, the least value
/// the estimate formula takes (searched down to when looking for the largest that fits) and the
/// step its valid values come in (1 for a count, 2 for an even radix, 0 for a real number).
#[derive(Debug, Clone, Copy)]
pub struct Driver<'a> {
    pub field: &'a str,
    pub value: f64,
    pub least: f64,
    pub step: u64,
    /// A count's exact value (an `f64` shows only 53 bits of it).
    exact: Option<u64>,
}

impl<'a> Driver<'a> {
    /// A count from `least` up.
    pub fn new(field: &'a str, value: u64, least: u64) -> Driver<'a> {
        Driver {
            field,
            value: value as f64,
            least: least.min(value) as f64,
            step: 1,
            exact: Some(value),
        }
    }

    /// A real number from 0 up.
    pub fn real(field: &'a str, value: f64) -> Driver<'a> {
        Driver {
            field,
            value,
            least: 0.0,
            step: 0,
            exact: None,
        }
    }

    /// Valid values are multiples of `step`.
    pub fn in_steps_of(self, step: u64) -> Driver<'a> {
        Driver {
            step: step.max(1),
            ..self
        }
    }

    fn show(&self, v: f64) -> String {
        match self.step {
            0 => format!("{v:.3e}"),
            _ => format!("{v:.0}"),
        }
    }
}

/// Refuses `what` when `estimate` of the drivers' values exceeds the current budget.
pub fn require(
    what: &str,
    drivers: &[Driver],
    estimate: impl Fn(&[f64]) -> Estimate,
) -> Result<Estimate> {
    require_within(&Budget::current()?, what, drivers, estimate)
}

/// [`require`] against a given budget. The refusal names the driver that contributes most to
/// the size (the one whose reduction to its least value shrinks the estimate most) and the
/// largest value of it that fits with the others unchanged.
pub fn require_within(
    budget: &Budget,
    what: &str,
    drivers: &[Driver],
    estimate: impl Fn(&[f64]) -> Estimate,
) -> Result<Estimate> {
    let values: Vec<f64> = drivers.iter().map(|d| d.value).collect();
    let need = estimate(&values);
    if budget.fits(need) {
        return Ok(need);
    }
    let with = |i: usize, v: f64| {
        let mut vs = values.clone();
        vs[i] = v;
        estimate(&vs)
    };
    let size = |e: Estimate| (e.bytes / budget.bytes).max(e.work / budget.work);
    let main = (0..drivers.len())
        .min_by(|&a, &b| {
            let (ea, eb) = (
                size(with(a, drivers[a].least)),
                size(with(b, drivers[b].least)),
            );
            ea.total_cmp(&eb)
        })
        .unwrap_or(0);
    let over_memory = need.bytes > budget.bytes;
    let rule = if over_memory {
        format!(
            "{what} needs about {} of memory, over the budget of {} ({MEMORY_BUDGET_ENV}; default {:.0}% of this machine's memory)",
            human_bytes(need.bytes),
            human_bytes(budget.bytes),
            100.0 * MEMORY_FRACTION
        )
    } else {
        format!(
            "{what} takes about {:.1e} steps of work, over the budget of {:.1e} ({WORK_BUDGET_ENV})",
            need.work, budget.work
        )
    };
    let Some(driver) = drivers.get(main) else {
        return Err(RailxError::invalid(
            what,
            "this input",
            rule,
            "use a smaller input",
        ));
    };
    let raise = if over_memory {
        MEMORY_BUDGET_ENV
    } else {
        WORK_BUDGET_ENV
    };
    let hint = match largest_fitting(budget, driver, |v| with(main, v)) {
        Some(v) => format!(
            "the largest {} that fits is {} (or raise {raise})",
            driver.field,
            driver.show(v)
        ),
        None => format!(
            "no {} fits with the other inputs as they are; make them smaller or raise {raise}",
            driver.field
        ),
    };
    let value = match driver.exact {
        Some(v) => v.to_string(),
        None => driver.show(driver.value),
    };
    Err(RailxError::invalid(driver.field, value, rule, hint))
}

/// The largest value in `least..value` of a driver that fits, by bisection (estimates grow with
/// their drivers), on its steps.
fn largest_fitting(
    budget: &Budget,
    driver: &Driver,
    estimate: impl Fn(f64) -> Estimate,
) -> Option<f64> {
    if !budget.fits(estimate(driver.least)) {
        return None;
    }
    let (mut lo, mut hi) = (driver.least, driver.value);
    let close = |lo: f64, hi: f64| match driver.step {
        0 => hi - lo <= 1e-3 * hi,
        _ => hi - lo <= 1.0,
    };
    while !close(lo, hi) {
        let mid = match driver.step {
            0 => 0.5 * (lo + hi),
            _ => (lo + (hi - lo) / 2.0).floor(),
        };
        if budget.fits(estimate(mid)) {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    let step = driver.step.max(1) as f64;
    let stepped = match driver.step {
        0 => lo,
        _ => (lo / step).floor() * step,
    };
    Some(if stepped >= driver.least { stepped } else { lo })
}

/// Bytes as the budget's refusal shows them.
pub fn human_bytes(bytes: f64) -> String {
    if !bytes.is_finite() {
        return "more than any machine has".to_string();
    }
    let units = [("TiB", 40), ("GiB", 30), ("MiB", 20), ("KiB", 10)];
    for (name, shift) in units {
        let unit = (1u64 << shift) as f64;
        if bytes >= unit {
            return format!("{:.1} {name}", bytes / unit);
        }
    }
    format!("{bytes:.0} B")
}

/// A non-negative amount with an optional binary or decimal unit (`8GiB`, `500 MB`, `1e12`,
/// `inf`).
fn parse_amount(field: &str, text: &str, hint: &str) -> Result<f64> {
    let t = text.trim();
    let split = t
        .find(|c: char| c.is_ascii_alphabetic() && c != 'e' && c != 'E')
        .filter(|_| !t.eq_ignore_ascii_case("inf"))
        .unwrap_or(t.len());
    let (number, unit) = (t[..split].trim(), t[split..].trim());
    let scale = match unit.to_ascii_lowercase().as_str() {
        "" | "b" => 1.0,
        "k" | "kb" => 1e3,
        "m" | "mb" => 1e6,
        "g" | "gb" => 1e9,
        "t" | "tb" => 1e12,
        "kib" => (1u64 << 10) as f64,
        "mib" => (1u64 << 20) as f64,
        "gib" => GIB,
        "tib" => (1u64 << 40) as f64,
        _ => f64::NAN,
    };
    match number.parse::<f64>() {
        Ok(v) if v >= 0.0 && !v.is_nan() && !scale.is_nan() => Ok(v * scale),
        _ => Err(RailxError::invalid(
            field,
            format!("{t:?}"),
            "must be a non-negative amount, optionally with a unit (B, KB, MB, GB, KiB, MiB, GiB)",
            hint,
        )),
    }
}

/// Memory this process may still use: the machine's, or what its address-space limit leaves.
fn usable_memory_bytes() -> f64 {
    let machine = read_kib("/proc/meminfo", "MemTotal:").unwrap_or(FALLBACK_MEMORY_BYTES);
    match address_space_limit_bytes() {
        Some(limit) => {
            let mapped = read_kib("/proc/self/status", "VmSize:").unwrap_or(0.0);
            machine.min((limit - mapped).max(0.0))
        }
        None => machine,
    }
}

/// A `NAME:  123 kB` line of a /proc file, in bytes.
fn read_kib(path: &str, name: &str) -> Option<f64> {
    let text = std::fs::read_to_string(path).ok()?;
    let line = text.lines().find(|l| l.starts_with(name))?;
    let kib: f64 = line[name.len()..].split_whitespace().next()?.parse().ok()?;
    Some(kib * 1024.0)
}

/// The soft RLIMIT_AS, from /proc/self/limits ("Max address space  <soft> <hard> bytes").
fn address_space_limit_bytes() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = text.lines().find(|l| l.starts_with("Max address space"))?;
    line["Max address space".len()..]
        .split_whitespace()
        .next()?
        .parse()
        .ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const BUDGET: Budget = Budget {
        bytes: 1e9,
        work: 1e12,
    };

    #[test]
    fn a_fitting_estimate_passes_and_is_returned() {
        let e = require_within(&BUDGET, "x", &[Driver::new("n", 10, 1)], |v| {
            Estimate::memory(v[0])
        })
        .unwrap();
        assert_eq!(e.bytes, 10.0);
    }

    #[test]
    fn the_refusal_names_the_main_driver_and_the_largest_value_that_fits() {
        // bytes = 1000 * m^2 * grid: m = 1024 drives it; the largest m with grid = 9 is
        // floor(sqrt(1e9 / 9000)) = 333.
        let est = |v: &[f64]| Estimate::memory(1000.0 * v[1] * v[1] * v[0]);
        let err = require_within(
            &BUDGET,
            "the network",
            &[Driver::new("grid", 9, 1), Driver::new("m", 1024, 1)],
            est,
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.starts_with("m = 1024: the network needs about 8.8 GiB"),
            "{err}"
        );
        assert!(err.contains("the largest m that fits is 333"), "{err}");
        assert!(!err.contains('\n'));
    }

    #[test]
    fn work_is_refused_by_the_work_budget_and_infinity_never_fits() {
        let err = require_within(
            &BUDGET,
            "the run",
            &[Driver::new("cycles", u64::MAX, 1)],
            |v| Estimate::new(0.0, v[0] * 1e3),
        )
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("steps of work")
                && err.contains("the largest cycles that fits is 1000000000"),
            "{err}"
        );
        let err = require_within(&BUDGET, "x", &[Driver::new("s", 5, 5)], |_| {
            Estimate::memory(f64::INFINITY)
        })
        .unwrap_err()
        .to_string();
        assert!(
            err.contains("more than any machine has") && err.contains("no s fits"),
            "{err}"
        );
    }

    #[test]
    fn amounts_parse_with_units_and_refuse_garbage() {
        assert_eq!(parse_amount("B", "8GiB", "").unwrap(), 8.0 * GIB);
        assert_eq!(parse_amount("B", " 500 MB", "").unwrap(), 5e8);
        assert_eq!(parse_amount("B", "1e12", "").unwrap(), 1e12);
        assert!(parse_amount("B", "inf", "").unwrap().is_infinite());
        for bad in ["", "-1", "ten", "5 parsecs", "nan"] {
            assert!(parse_amount("B", bad, "").is_err(), "{bad}");
        }
    }

    #[test]
    fn the_default_memory_budget_is_positive_and_below_the_machine() {
        let usable = usable_memory_bytes();
        assert!(usable > 0.0 && usable.is_finite());
    }
}
