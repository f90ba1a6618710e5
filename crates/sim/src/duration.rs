//! `keep_alive` values: Go's `time.ParseDuration`, error texts included, and
//! Ollama's JSON rules for the field (a number is seconds, a string is a Go
//! duration, anything negative means forever).
//!
//! Pure functions; the only caller is request validation in `chat`.

use std::time::Duration;

use serde_json::Value;

/// How long a runner stays loaded after a request.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum KeepAlive {
    /// Never expires (a negative value in the request).
    Forever,
    /// Expires this long after the request ends; zero unloads at once.
    For(Duration),
}

impl KeepAlive {
    /// Ollama's default (`OLLAMA_KEEP_ALIVE` unset).
    pub(crate) const DEFAULT: Self = Self::For(Duration::from_secs(300));

    /// Whether this asks for an unload as soon as the request ends.
    pub(crate) fn is_zero(self) -> bool {
        self == Self::For(Duration::ZERO)
    }

    /// Reads the `keep_alive` field of a request; `Ok(None)` when absent or
    /// null. The error text is what Ollama answers with its 400.
    pub(crate) fn from_json(v: Option<&Value>) -> Result<Option<Self>, String> {
        match v {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => {
                let secs = n.as_f64().unwrap_or(0.0);
                if secs < 0.0 {
                    Ok(Some(Self::Forever))
                } else {
                    // Go: time.Duration(t * float64(time.Second)), saturating.
                    let nanos = secs * 1e9;
                    if nanos >= 9.223_372_036_854_776e18 {
                        Ok(Some(Self::Forever))
                    } else {
                        Ok(Some(Self::For(Duration::from_nanos(nanos as u64))))
                    }
                }
            }
            Some(Value::String(s)) => {
                let nanos = parse_go_duration(s)?;
                if nanos < 0 {
                    Ok(Some(Self::Forever))
                } else {
                    Ok(Some(Self::For(Duration::from_nanos(nanos.unsigned_abs()))))
                }
            }
            Some(other) => Err(format!("Unsupported type: '{}'", go_type_name(other))),
        }
    }
}

fn go_type_name(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Array(_) => "[]interface {}",
        Value::Object(_) => "map[string]interface {}",
        _ => "string",
    }
}

/// Quotes like Go's `strconv.Quote` for the characters that matter here.
fn quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            c if c.is_control() => out.push_str(&format!("\\x{:02x}", u32::from(c))),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn unit_nanos(unit: &str) -> Option<u64> {
    Some(match unit {
        "ns" => 1,
        "us" | "\u{b5}s" | "\u{3bc}s" => 1_000,
        "ms" => 1_000_000,
        "s" => 1_000_000_000,
        "m" => 60_000_000_000,
        "h" => 3_600_000_000_000,
        _ => return None,
    })
}

/// Go's `time.ParseDuration`: `[-+]?([0-9]*(\.[0-9]*)?[a-z]+)+`, or `0`.
/// Returns nanoseconds, or Go's error text
/// (`time: invalid duration "x"`, `time: missing unit in duration "5"`,
/// `time: unknown unit "d" in duration "1d"`).
pub(crate) fn parse_go_duration(orig: &str) -> Result<i64, String> {
    let invalid = || format!("time: invalid duration {}", quote(orig));
    let mut s = orig.as_bytes();
    let mut neg = false;
    if let Some(&c) = s.first()
        && (c == b'-' || c == b'+')
    {
        neg = c == b'-';
        s = &s[1..];
    }
    if s == b"0" {
        return Ok(0);
    }
    if s.is_empty() {
        return Err(invalid());
    }
    const LIMIT: u64 = 1 << 63;
    let mut total: u64 = 0;
    while !s.is_empty() {
        if !(s[0] == b'.' || s[0].is_ascii_digit()) {
            return Err(invalid());
        }
        // Integer part.
        let digits = s.iter().take_while(|c| c.is_ascii_digit()).count();
        let pre = digits > 0;
        let mut v: u64 = 0;
        for &d in &s[..digits] {
            v = v
                .checked_mul(10)
                .and_then(|v| v.checked_add(u64::from(d - b'0')))
                .filter(|&v| v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        s = &s[digits..];
        // Fraction part: digits past what fits are ignored, as in Go.
        let mut frac: u64 = 0;
        let mut scale: f64 = 1.0;
        let mut post = false;
        if s.first() == Some(&b'.') {
            s = &s[1..];
            let n = s.iter().take_while(|c| c.is_ascii_digit()).count();
            post = n > 0;
            let mut overflow = false;
            for &d in &s[..n] {
                if overflow {
                    continue;
                }
                match frac
                    .checked_mul(10)
                    .and_then(|f| f.checked_add(u64::from(d - b'0')))
                    .filter(|&f| f <= LIMIT)
                {
                    Some(f) => {
                        frac = f;
                        scale *= 10.0;
                    }
                    None => overflow = true,
                }
            }
            s = &s[n..];
        }
        if !pre && !post {
            return Err(invalid());
        }
        // Unit.
        let n = s
            .iter()
            .take_while(|&&c| !(c == b'.' || c.is_ascii_digit()))
            .count();
        if n == 0 {
            return Err(format!("time: missing unit in duration {}", quote(orig)));
        }
        let unit = String::from_utf8_lossy(&s[..n]).into_owned();
        s = &s[n..];
        let unit_ns = unit_nanos(&unit).ok_or_else(|| {
            format!(
                "time: unknown unit {} in duration {}",
                quote(&unit),
                quote(orig)
            )
        })?;
        if v > LIMIT / unit_ns {
            return Err(invalid());
        }
        v *= unit_ns;
        if frac > 0 {
            // Go: v += uint64(float64(f) * (float64(unit) / scale)).
            v = v
                .checked_add((frac as f64 * (unit_ns as f64 / scale)) as u64)
                .filter(|&v| v <= LIMIT)
                .ok_or_else(invalid)?;
        }
        total = total
            .checked_add(v)
            .filter(|&t| t <= LIMIT)
            .ok_or_else(invalid)?;
    }
    if neg {
        return Ok(0i64.saturating_sub_unsigned(total));
    }
    i64::try_from(total).map_err(|_| invalid())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_like_go() {
        let cases: &[(&str, i64)] = &[
            ("0", 0),
            ("5m", 300_000_000_000),
            ("1h30m", 5_400_000_000_000),
            ("1.5h", 5_400_000_000_000),
            ("300ms", 300_000_000),
            ("-1s", -1_000_000_000),
            ("+2s", 2_000_000_000),
            (".5s", 500_000_000),
            ("1.s", 1_000_000_000),
            ("10µs", 10_000),
            ("1h2m3s4ms5us6ns", 3_723_004_005_006),
            ("-0", 0),
        ];
        for (s, want) in cases {
            assert_eq!(parse_go_duration(s), Ok(*want), "{s}");
        }
    }

    #[test]
    fn errors_like_go() {
        assert_eq!(
            parse_go_duration("abc").unwrap_err(),
            r#"time: invalid duration "abc""#
        );
        assert_eq!(
            parse_go_duration("").unwrap_err(),
            r#"time: invalid duration """#
        );
        assert_eq!(
            parse_go_duration("5").unwrap_err(),
            r#"time: missing unit in duration "5""#
        );
        assert_eq!(
            parse_go_duration("1d").unwrap_err(),
            r#"time: unknown unit "d" in duration "1d""#
        );
        assert_eq!(
            parse_go_duration(".s").unwrap_err(),
            r#"time: invalid duration ".s""#
        );
        assert_eq!(
            parse_go_duration("3000000h").unwrap_err(),
            r#"time: invalid duration "3000000h""#
        );
    }

    #[test]
    fn keep_alive_json() {
        use serde_json::json;
        let ka = |v: Value| KeepAlive::from_json(Some(&v));
        assert_eq!(ka(json!(0)), Ok(Some(KeepAlive::For(Duration::ZERO))));
        assert_eq!(
            ka(json!(1.5)),
            Ok(Some(KeepAlive::For(Duration::from_millis(1500))))
        );
        assert_eq!(ka(json!(-1)), Ok(Some(KeepAlive::Forever)));
        assert_eq!(ka(json!("-1m")), Ok(Some(KeepAlive::Forever)));
        assert_eq!(ka(json!("0")), Ok(Some(KeepAlive::For(Duration::ZERO))));
        assert_eq!(ka(json!(null)), Ok(None));
        assert_eq!(KeepAlive::from_json(None), Ok(None));
        assert_eq!(
            ka(json!("5x")).unwrap_err(),
            r#"time: unknown unit "x" in duration "5x""#
        );
        assert_eq!(ka(json!(true)).unwrap_err(), "Unsupported type: 'bool'");
    }
}
