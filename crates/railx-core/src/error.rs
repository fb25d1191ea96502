//! The one error type of railx-core. Every message is a single line that names the field (or
//! switch), the offending value, the rule it breaks and a valid alternative, so that the Python
//! layer and the CLI can show it as is.

use thiserror::Error;

#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum RailxError {
    /// A configuration value or combination breaks a rule.
    #[error("{field} = {value}: {rule}; {hint}")]
    Invalid {
        field: String,
        value: String,
        rule: String,
        hint: String,
    },
    /// An OCS configuration is malformed, or is not the intended topology.
    #[error("{location}: {message}")]
    Verification { location: String, message: String },
    /// A file could not be parsed (JSON syntax, wrong format tag, missing key).
    #[error("{what}: {message}")]
    Parse { what: String, message: String },
    /// An invariant broke inside railx: a bug, never the input's fault.
    #[error("internal error in {what}: {message}; this is a bug in railx, please report it with the input that caused it")]
    Internal { what: String, message: String },
    /// A long run stopped because its progress observer asked it to (`crate::progress`).
    #[error("{what} cancelled after {done} of {total} {unit} by its progress observer")]
    Cancelled {
        what: String,
        done: u64,
        total: String,
        unit: String,
    },
}

impl RailxError {
    pub fn invalid(
        field: impl Into<String>,
        value: impl ToString,
        rule: impl Into<String>,
        hint: impl Into<String>,
    ) -> Self {
        RailxError::Invalid {
            field: field.into(),
            value: value.to_string(),
            rule: rule.into(),
            hint: hint.into(),
        }
    }

    pub fn verification(location: impl Into<String>, message: impl Into<String>) -> Self {
        RailxError::Verification {
            location: location.into(),
            message: message.into(),
        }
    }

    pub fn internal(what: impl Into<String>, message: impl ToString) -> Self {
        RailxError::Internal {
            what: what.into(),
            message: message.to_string().replace('\n', " "),
        }
    }

    pub fn parse(what: impl Into<String>, message: impl ToString) -> Self {
        RailxError::Parse {
            what: what.into(),
            // Keep the one-line promise even when a parser's message spans lines.
            message: message.to_string().replace('\n', " "),
        }
    }
}

pub type Result<T> = std::result::Result<T, RailxError>;

/// Checks that a count is positive; the error names the field and gives `hint`.
pub fn require_positive(field: &str, value: u32, hint: &str) -> Result<()> {
    if value == 0 {
        return Err(RailxError::invalid(
            field,
            value,
            "must be a positive integer",
            hint,
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_internal_error_reads_as_a_bug_not_as_bad_input() {
        let e = RailxError::internal("flit conservation", "created 3 != injected 2\nat cycle 9");
        let text = e.to_string();
        assert!(text.starts_with("internal error in flit conservation: created 3"));
        assert!(text.contains("this is a bug in railx") && !text.contains('\n'));
        assert!(!text.contains("invalid"));
    }
}
