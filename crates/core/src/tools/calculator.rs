//! `calculator`: exact-enough arithmetic, because small models cannot add.

use async_trait::async_trait;
use serde_json::{Value, json};

use super::arith::evaluate;
use crate::tool::{Tool, ToolContext, ToolError, ToolSpec};

/// Evaluates an arithmetic expression.
#[derive(Debug, Clone, Copy, Default)]
pub struct Calculator;

#[async_trait]
impl Tool for Calculator {
    fn spec(&self) -> ToolSpec {
        ToolSpec {
            name: "calculator".into(),
            description: "Evaluate an arithmetic expression: + - * / % ^, parentheses, \
                          sqrt abs ln log10 exp sin cos tan floor ceil round, pi, e."
                .into(),
            parameters: json!({
                "type": "object",
                "properties": {
                    "expression": {"type": "string", "description": "for example (2 + 3) * sqrt(16)"}
                },
                "required": ["expression"]
            }),
        }
    }

    async fn call(&self, arguments: Value, _ctx: &ToolContext) -> Result<String, ToolError> {
        let expr = arguments
            .get("expression")
            .and_then(Value::as_str)
            .ok_or_else(|| {
                ToolError::InvalidArguments("`expression` (a string) is required".into())
            })?;
        let v = evaluate(expr).map_err(|e| ToolError::Failed(e.to_string()))?;
        Ok(format_number(v))
    }
}

/// Integers without a trailing `.0`; others with up to 12 significant digits.
fn format_number(v: f64) -> String {
    if v.fract() == 0.0 && v.abs() < 1e15 {
        format!("{v:.0}")
    } else {
        let s = format!("{v:.12}");
        s.trim_end_matches('0').trim_end_matches('.').to_owned()
    }
}

#[cfg(test)]
mod tests {
    use super::format_number;

    #[test]
    fn numbers_read_naturally() {
        assert_eq!(format_number(42.0), "42");
        assert_eq!(format_number(0.1 + 0.2), "0.3");
        assert_eq!(format_number(-2.5), "-2.5");
    }
}
