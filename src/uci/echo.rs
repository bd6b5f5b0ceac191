//! Echoing what the user typed in an error message, made safe to print.

/// Longest token echoed back in an error message.
const SHOWN_CHARS: usize = 48;

/// A token as echoed in an error: control characters replaced, cut after
/// [`SHOWN_CHARS`] characters (a 1 MB token is not sent back whole).
pub fn shown(token: &str) -> String {
    let mut out: String =
        token.chars().take(SHOWN_CHARS).map(|c| if c.is_control() { char::REPLACEMENT_CHARACTER } else { c }).collect();
    if token.chars().nth(SHOWN_CHARS).is_some() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shown_cuts_long_tokens_and_control_characters() {
        assert_eq!(shown("abc"), "abc");
        assert_eq!(shown(&"x".repeat(1_000_000)).chars().count(), SHOWN_CHARS + 1);
        assert_eq!(shown("a\u{1}b"), "a\u{fffd}b");
    }
}
