//! Output caps with a notice the model can act on (docs/background.md
//! §4.2).

/// Most characters a tool returns.
pub const MAX_OUTPUT_CHARS: usize = 24_000;

/// `text` cut to `max` characters (on a character boundary) with the
/// notice `[OUTPUT TRUNCATED: Showing X of Y characters from TOOL]` and a
/// hint on how to see the rest.
pub fn cap(text: String, max: usize, tool: &str, hint: &str) -> String {
    let total = text.chars().count();
    if total <= max {
        return text;
    }
    let mut out: String = text.chars().take(max).collect();
    out.push_str(&format!(
        "\n[OUTPUT TRUNCATED: Showing {max} of {total} characters from {tool}]"
    ));
    if !hint.is_empty() {
        out.push(' ');
        out.push_str(hint);
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn long_output_is_cut_on_a_character_boundary_with_a_notice() {
        let s = "é".repeat(10);
        assert_eq!(super::cap(s.clone(), 20, "t", ""), s);
        let cut = super::cap(s, 4, "read_file", "use offset");
        assert!(cut.starts_with(
            "éééé\n[OUTPUT TRUNCATED: Showing 4 of 10 characters from read_file] use offset"
        ));
    }
}
