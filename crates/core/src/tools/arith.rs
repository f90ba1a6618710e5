//! A small recursive-descent evaluator for the calculator tool.
//!
//! Hand-written on purpose (docs/adr/0003-calculator-parser.md): the
//! maintained expression crates are AGPL (evalexpr 13) or unmaintained
//! (meval, fasteval), and we need only arithmetic. Input length and nesting
//! are bounded so a hostile expression cannot exhaust the stack.

/// Longest expression accepted.
const MAX_LEN: usize = 4096;
/// Deepest nesting accepted.
const MAX_DEPTH: usize = 64;

/// Why an expression has no value. Positions are 1-based characters, as
/// the model counts them. Every variant is the expression's fault (the
/// calculator hands the text back for the model to send a corrected one);
/// which one says what to fix: a bound (`TooLong`, `TooDeep`) wants the
/// same sum shorter or flatter, the others a different expression.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub(crate) enum ArithError {
    /// Longer than [`MAX_LEN`] bytes.
    #[error("expression longer than {MAX_LEN} characters")]
    TooLong,
    /// Nested deeper than [`MAX_DEPTH`] levels.
    #[error("nested deeper than {MAX_DEPTH} levels")]
    TooDeep,
    /// A character that cannot stand where it stands.
    #[error("unexpected `{ch}` at position {at}")]
    UnexpectedChar {
        /// Its position.
        at: usize,
        /// The character.
        ch: char,
    },
    /// The expression stops where an operand was due.
    #[error("the expression ends too early")]
    UnexpectedEnd,
    /// An opening parenthesis never closed.
    #[error("missing `)` at position {at}")]
    MissingParen {
        /// Where the `)` was due.
        at: usize,
    },
    /// A function's arguments not closed.
    #[error("missing `)` after the arguments of `{function}`")]
    MissingArgsParen {
        /// The function.
        function: String,
    },
    /// Digits that do not make a number (`1.2.3`).
    #[error("`{text}` is not a number (position {at})")]
    BadNumber {
        /// The digits, separators removed.
        text: String,
        /// Where they start.
        at: usize,
    },
    /// A name that is neither `pi` nor `e`.
    #[error("unknown name `{0}`")]
    UnknownName(String),
    /// A function the calculator does not have.
    #[error("unknown function `{0}`")]
    UnknownFunction(String),
    /// A one-argument function given several.
    #[error("`{0}` takes one argument")]
    Arity(String),
    /// Infinity or NaN: a division by zero, an overflow, a root of a
    /// negative number.
    #[error("the result is not a finite number (division by zero or overflow)")]
    NotFinite,
}

/// Evaluate `src`; the error says what is wrong and where.
pub(crate) fn evaluate(src: &str) -> Result<f64, ArithError> {
    if src.len() > MAX_LEN {
        return Err(ArithError::TooLong);
    }
    let mut p = Parser {
        chars: src.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if let Some(&ch) = p.chars.get(p.pos) {
        return Err(ArithError::UnexpectedChar { at: p.pos + 1, ch });
    }
    if v.is_finite() {
        Ok(v)
    } else {
        Err(ArithError::NotFinite)
    }
}

struct Parser {
    chars: Vec<char>,
    pos: usize,
    depth: usize,
}

impl Parser {
    fn skip_ws(&mut self) {
        while self.chars.get(self.pos).is_some_and(|c| c.is_whitespace()) {
            self.pos += 1;
        }
    }

    fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.chars.get(self.pos).copied()
    }

    fn eat(&mut self, c: char) -> bool {
        if self.peek() == Some(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    /// expr := term (('+' | '-') term)*
    fn expr(&mut self) -> Result<f64, ArithError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(ArithError::TooDeep);
        }
        let mut v = self.term()?;
        loop {
            if self.eat('+') {
                v += self.term()?;
            } else if self.eat('-') {
                v -= self.term()?;
            } else {
                break;
            }
        }
        self.depth -= 1;
        Ok(v)
    }

    /// term := unary (('*' | '/' | '%') unary)*
    fn term(&mut self) -> Result<f64, ArithError> {
        let mut v = self.unary()?;
        loop {
            if self.eat('*') {
                v *= self.unary()?;
            } else if self.eat('/') {
                v /= self.unary()?;
            } else if self.eat('%') {
                v %= self.unary()?;
            } else {
                break;
            }
        }
        Ok(v)
    }

    /// unary := ('-' | '+') unary | power
    fn unary(&mut self) -> Result<f64, ArithError> {
        if self.eat('-') {
            return Ok(-self.unary()?);
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }

    /// power := atom ('^' unary)?   (right-associative, binds tighter than unary minus on its left)
    fn power(&mut self) -> Result<f64, ArithError> {
        let base = self.atom()?;
        if self.eat('^') {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(ArithError::TooDeep);
            }
            let exp = self.unary()?;
            self.depth -= 1;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    /// atom := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
    fn atom(&mut self) -> Result<f64, ArithError> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let v = self.expr()?;
                if !self.eat(')') {
                    return Err(ArithError::MissingParen { at: self.pos + 1 });
                }
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() => self.name(),
            Some(ch) => Err(ArithError::UnexpectedChar {
                at: self.pos + 1,
                ch,
            }),
            None => Err(ArithError::UnexpectedEnd),
        }
    }

    fn number(&mut self) -> Result<f64, ArithError> {
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_ascii_digit() || *c == '.' || *c == '_')
        {
            self.pos += 1;
        }
        // Exponent: 1e3, 2.5E-4.
        if self
            .chars
            .get(self.pos)
            .is_some_and(|c| *c == 'e' || *c == 'E')
        {
            let save = self.pos;
            self.pos += 1;
            if self
                .chars
                .get(self.pos)
                .is_some_and(|c| *c == '+' || *c == '-')
            {
                self.pos += 1;
            }
            if self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                while self.chars.get(self.pos).is_some_and(char::is_ascii_digit) {
                    self.pos += 1;
                }
            } else {
                self.pos = save;
            }
        }
        let text: String = self.chars[start..self.pos]
            .iter()
            .filter(|c| **c != '_')
            .collect();
        text.parse::<f64>().map_err(|_| ArithError::BadNumber {
            text,
            at: start + 1,
        })
    }

    fn name(&mut self) -> Result<f64, ArithError> {
        let start = self.pos;
        while self
            .chars
            .get(self.pos)
            .is_some_and(|c| c.is_alphanumeric())
        {
            self.pos += 1;
        }
        let name: String = self.chars[start..self.pos]
            .iter()
            .collect::<String>()
            .to_lowercase();
        if !self.eat('(') {
            return match name.as_str() {
                "pi" => Ok(std::f64::consts::PI),
                "e" => Ok(std::f64::consts::E),
                _ => Err(ArithError::UnknownName(name)),
            };
        }
        let mut args = vec![self.expr()?];
        while self.eat(',') {
            args.push(self.expr()?);
        }
        if !self.eat(')') {
            return Err(ArithError::MissingArgsParen { function: name });
        }
        let one = |f: fn(f64) -> f64| match args.as_slice() {
            [x] => Ok(f(*x)),
            _ => Err(ArithError::Arity(name.clone())),
        };
        match name.as_str() {
            "sqrt" => one(f64::sqrt),
            "abs" => one(f64::abs),
            "ln" => one(f64::ln),
            "log10" | "log" => one(f64::log10),
            "exp" => one(f64::exp),
            "sin" => one(f64::sin),
            "cos" => one(f64::cos),
            "tan" => one(f64::tan),
            "floor" => one(f64::floor),
            "ceil" => one(f64::ceil),
            "round" => one(f64::round),
            "min" | "max" if !args.is_empty() => {
                let pick = if name == "min" { f64::min } else { f64::max };
                Ok(args.iter().copied().fold(args[0], pick))
            }
            _ => Err(ArithError::UnknownFunction(name)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ArithError, evaluate};

    #[test]
    fn arithmetic_follows_precedence() {
        let cases = [
            ("1 + 2 * 3", 7.0),
            ("(1 + 2) * 3", 9.0),
            ("2 ^ 3 ^ 2", 512.0),
            ("-2 ^ 2", -4.0),
            ("10 % 4", 2.0),
            ("sqrt(16) + abs(-3)", 7.0),
            ("max(1, 5, 3) - min(4, 2)", 3.0),
            ("1e3 / 4", 250.0),
            ("1_000 * 2", 2000.0),
            ("round(2.5)", 3.0),
        ];
        for (src, want) in cases {
            assert_eq!(evaluate(src), Ok(want), "{src}");
        }
        assert!((evaluate("2 * pi").unwrap() - std::f64::consts::TAU).abs() < 1e-12);
    }

    #[test]
    fn bad_input_is_explained() {
        assert!(
            evaluate("1 / 0")
                .unwrap_err()
                .to_string()
                .contains("finite")
        );
        assert!(
            evaluate("2 +")
                .unwrap_err()
                .to_string()
                .contains("ends too early")
        );
        assert!(
            evaluate("(1 + 2")
                .unwrap_err()
                .to_string()
                .contains("missing `)`")
        );
        assert!(
            evaluate("foo(1)")
                .unwrap_err()
                .to_string()
                .contains("unknown function")
        );
        assert!(
            evaluate("1 $ 2")
                .unwrap_err()
                .to_string()
                .contains("unexpected `$`")
        );
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        assert!(
            evaluate(&deep)
                .unwrap_err()
                .to_string()
                .contains("nested deeper")
        );
        assert!(
            evaluate(&"1+".repeat(5000))
                .unwrap_err()
                .to_string()
                .contains("longer than")
        );
    }

    /// Each mistake is its own variant, with where it is; the words the
    /// model reads are the ones it always read.
    #[test]
    fn each_mistake_is_named_with_its_place() {
        let cases = [
            (
                "1 $ 2",
                ArithError::UnexpectedChar { at: 3, ch: '$' },
                "unexpected `$` at position 3",
            ),
            (
                "1 2",
                ArithError::UnexpectedChar { at: 3, ch: '2' },
                "unexpected `2` at position 3",
            ),
            (
                "2 +",
                ArithError::UnexpectedEnd,
                "the expression ends too early",
            ),
            (
                "(1 + 2",
                ArithError::MissingParen { at: 7 },
                "missing `)` at position 7",
            ),
            (
                "max(1, 2",
                ArithError::MissingArgsParen {
                    function: "max".into(),
                },
                "missing `)` after the arguments of `max`",
            ),
            (
                "1.2.3",
                ArithError::BadNumber {
                    text: "1.2.3".into(),
                    at: 1,
                },
                "`1.2.3` is not a number (position 1)",
            ),
            (
                "tau",
                ArithError::UnknownName("tau".into()),
                "unknown name `tau`",
            ),
            (
                "foo(1)",
                ArithError::UnknownFunction("foo".into()),
                "unknown function `foo`",
            ),
            (
                "sqrt(1, 2)",
                ArithError::Arity("sqrt".into()),
                "`sqrt` takes one argument",
            ),
            (
                "1 / 0",
                ArithError::NotFinite,
                "the result is not a finite number (division by zero or overflow)",
            ),
        ];
        for (src, variant, text) in cases {
            let e = evaluate(src).unwrap_err();
            assert_eq!(e, variant, "{src}");
            assert_eq!(e.to_string(), text, "{src}");
        }
    }

    /// A bound is told from a mistake: the same sum written shorter or
    /// flatter passes.
    #[test]
    fn the_bounds_are_told_from_mistakes() {
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        let e = evaluate(&deep).unwrap_err();
        assert_eq!(e, ArithError::TooDeep);
        assert_eq!(e.to_string(), "nested deeper than 64 levels");
        let e = evaluate(&"1+".repeat(5000)).unwrap_err();
        assert_eq!(e, ArithError::TooLong);
        assert_eq!(e.to_string(), "expression longer than 4096 characters");
    }
}
