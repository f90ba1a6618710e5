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

/// Evaluate `src`; the error says what is wrong and where.
pub(crate) fn evaluate(src: &str) -> Result<f64, String> {
    if src.len() > MAX_LEN {
        return Err(format!("expression longer than {MAX_LEN} characters"));
    }
    let mut p = Parser {
        chars: src.chars().collect(),
        pos: 0,
        depth: 0,
    };
    let v = p.expr()?;
    p.skip_ws();
    if p.pos < p.chars.len() {
        return Err(format!(
            "unexpected `{}` at position {}",
            p.chars[p.pos],
            p.pos + 1
        ));
    }
    if v.is_finite() {
        Ok(v)
    } else {
        Err("the result is not a finite number (division by zero or overflow)".into())
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
    fn expr(&mut self) -> Result<f64, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(format!("nested deeper than {MAX_DEPTH} levels"));
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
    fn term(&mut self) -> Result<f64, String> {
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
    fn unary(&mut self) -> Result<f64, String> {
        if self.eat('-') {
            return Ok(-self.unary()?);
        }
        if self.eat('+') {
            return self.unary();
        }
        self.power()
    }

    /// power := atom ('^' unary)?   (right-associative, binds tighter than unary minus on its left)
    fn power(&mut self) -> Result<f64, String> {
        let base = self.atom()?;
        if self.eat('^') {
            self.depth += 1;
            if self.depth > MAX_DEPTH {
                return Err(format!("nested deeper than {MAX_DEPTH} levels"));
            }
            let exp = self.unary()?;
            self.depth -= 1;
            return Ok(base.powf(exp));
        }
        Ok(base)
    }

    /// atom := number | name | name '(' expr (',' expr)* ')' | '(' expr ')'
    fn atom(&mut self) -> Result<f64, String> {
        match self.peek() {
            Some('(') => {
                self.pos += 1;
                let v = self.expr()?;
                if !self.eat(')') {
                    return Err(format!("missing `)` at position {}", self.pos + 1));
                }
                Ok(v)
            }
            Some(c) if c.is_ascii_digit() || c == '.' => self.number(),
            Some(c) if c.is_alphabetic() => self.name(),
            Some(c) => Err(format!("unexpected `{c}` at position {}", self.pos + 1)),
            None => Err("the expression ends too early".into()),
        }
    }

    fn number(&mut self) -> Result<f64, String> {
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
        text.parse::<f64>()
            .map_err(|_| format!("`{text}` is not a number (position {})", start + 1))
    }

    fn name(&mut self) -> Result<f64, String> {
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
                _ => Err(format!("unknown name `{name}`")),
            };
        }
        let mut args = vec![self.expr()?];
        while self.eat(',') {
            args.push(self.expr()?);
        }
        if !self.eat(')') {
            return Err(format!("missing `)` after the arguments of `{name}`"));
        }
        let one = |f: fn(f64) -> f64| match args.as_slice() {
            [x] => Ok(f(*x)),
            _ => Err(format!("`{name}` takes one argument")),
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
            _ => Err(format!("unknown function `{name}`")),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::evaluate;

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
        assert!(evaluate("1 / 0").unwrap_err().contains("finite"));
        assert!(evaluate("2 +").unwrap_err().contains("ends too early"));
        assert!(evaluate("(1 + 2").unwrap_err().contains("missing `)`"));
        assert!(evaluate("foo(1)").unwrap_err().contains("unknown function"));
        assert!(evaluate("1 $ 2").unwrap_err().contains("unexpected `$`"));
        let deep = "(".repeat(500) + "1" + &")".repeat(500);
        assert!(evaluate(&deep).unwrap_err().contains("nested deeper"));
        assert!(
            evaluate(&"1+".repeat(5000))
                .unwrap_err()
                .contains("longer than")
        );
    }
}
