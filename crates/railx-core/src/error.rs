//! The one error type of railx-core. Every message is a single line that names the field (or
//! switch), the offending value, the rule it breaks and a valid alternative, so that the Python
//! layer and the CLI can show it as is.
//!
//! Messages echo input safely: every part passes through [`one_line`] when the error is made
//! (control characters escaped, at most [`MAX_MESSAGE_CHARS`]), and a value read from a file
//! (an OCS switch id, a job name) is echoed with [`shown`] (quoted, escaped, at most
//! [`MAX_SHOWN_CHARS`]), so a crafted file can neither print a line of its own (a fake `OK`,
//! terminal escape sequences) nor make a megabyte-long message. `railx.messages` in Python
//! applies the same rules with the same limits.

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
            field: one_line(&field.into()),
            value: one_line(&value.to_string()),
            rule: one_line(&rule.into()),
            hint: one_line(&hint.into()),
        }
    }

    pub fn verification(location: impl Into<String>, message: impl Into<String>) -> Self {
        RailxError::Verification {
            location: one_line(&location.into()),
            message: one_line(&message.into()),
        }
    }

    pub fn internal(what: impl Into<String>, message: impl ToString) -> Self {
        RailxError::Internal {
            what: one_line(&what.into()),
            message: one_line(&message.to_string()),
        }
    }

    /// A parser's message (serde's, say) echoes the input it stopped at; [`one_line`] keeps it
    /// one printable line of bounded length.
    pub fn parse(what: impl Into<String>, message: impl ToString) -> Self {
        RailxError::Parse {
            what: one_line(&what.into()),
            message: one_line(&message.to_string()),
        }
    }
}

/// Characters of one echoed value [`shown`] keeps before cutting it.
pub const MAX_SHOWN_CHARS: usize = 80;

/// Characters of one part of a message [`one_line`] keeps before cutting it.
pub const MAX_MESSAGE_CHARS: usize = 2000;

/// A value read from input as a message echoes it: quoted, every control character escaped
/// (`\n`, `\u{1b}`), cut to [`MAX_SHOWN_CHARS`] with `…` and the full length when longer:
/// `"AAAA…" (10,000,000 chars)`.
pub fn shown(value: &str) -> String {
    let length = value.chars().count();
    let quoted = format!("{:?}", cut(value, MAX_SHOWN_CHARS + 1));
    if length <= MAX_SHOWN_CHARS && quoted.chars().count() <= MAX_SHOWN_CHARS {
        return quoted;
    }
    format!(
        "{}… ({} chars)",
        cut(&quoted, MAX_SHOWN_CHARS),
        thousands(length)
    )
}

/// A message part as one printable line: control characters escaped (`\n`, `\u{1b}`), cut to
/// [`MAX_MESSAGE_CHARS`] with `…` and the full length when longer.
pub fn one_line(text: &str) -> String {
    let length = text.chars().count();
    let mut out: String = cut(text, MAX_MESSAGE_CHARS)
        .chars()
        .flat_map(|c| {
            let escaped: Vec<char> = if c.is_control() {
                c.escape_default().collect()
            } else {
                vec![c]
            };
            escaped
        })
        .collect();
    if length > MAX_MESSAGE_CHARS {
        out.push_str(&format!("… ({} chars)", thousands(length)));
    }
    out
}

/// The first `chars` characters of `text`.
fn cut(text: &str, chars: usize) -> &str {
    text.char_indices()
        .nth(chars)
        .map_or(text, |(end, _)| &text[..end])
}

/// `10000000` as `10,000,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, d) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(d);
    }
    out
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
    fn an_echoed_value_is_escaped_and_shortened() {
        assert_eq!(shown("X/0/0"), "\"X/0/0\"");
        let forged = shown("X\n\u{1b}[32mOK\u{1b}[0m\u{9b}");
        assert!(!forged.chars().any(char::is_control), "{forged}");
        assert!(
            forged.contains("\\n") && forged.contains("\\u{1b}"),
            "{forged}"
        );
        let long = shown(&"A".repeat(10_000_000));
        assert!(long.ends_with("… (10,000,000 chars)"), "{long}");
        assert!(long.chars().count() < MAX_SHOWN_CHARS + 30, "{long}");
        // Multi-byte characters are cut on a character boundary.
        assert!(shown(&"é".repeat(100)).ends_with("… (100 chars)"));
    }

    #[test]
    fn every_message_part_is_one_printable_line_of_bounded_length() {
        let e = RailxError::parse(
            "OCS file",
            "unknown variant `Z\n\u{1b}]0;t\u{7}`\nat line 1",
        );
        let text = e.to_string();
        assert!(!text.chars().any(char::is_control), "{text}");
        let e = RailxError::invalid("id", "B".repeat(5_000_000), "rule", "hint");
        assert!(
            e.to_string().len() < 2 * MAX_MESSAGE_CHARS,
            "{}",
            e.to_string().len()
        );
        assert!(e.to_string().contains("(5,000,000 chars)"));
    }

    #[test]
    fn an_internal_error_reads_as_a_bug_not_as_bad_input() {
        let e = RailxError::internal("flit conservation", "created 3 != injected 2\nat cycle 9");
        let text = e.to_string();
        assert!(text.starts_with("internal error in flit conservation: created 3"));
        assert!(text.contains("this is a bug in railx") && !text.contains('\n'));
        assert!(!text.contains("invalid"));
    }
}
