//! Tool-input repair (docs/background.md §5.5): small models send `null` for
//! optional fields, JSON inside strings, numbers as strings. Arguments are
//! checked against the tool's JSON schema and repaired where the intent is
//! clear; what cannot be repaired is reported back to the model.

use serde_json::{Map, Value};

/// Why arguments cannot be fitted to a tool's schema. The model is told
/// (as invalid arguments) and sends the call again: a shape it must
/// change, or the arguments it left out.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum RepairError {
    /// A string that is not a JSON object.
    #[error("arguments must be a JSON object, got the string {0:?}")]
    NotAnObjectString(String),
    /// A number, a list, a boolean.
    #[error("arguments must be a JSON object, got {0}")]
    NotAnObject(Value),
    /// Required arguments that are missing, in the schema's order.
    #[error("missing required argument(s): {}", .0.join(", "))]
    Missing(Vec<String>),
}

/// Arguments fitted to `schema` (an object schema with `properties`,
/// `required`, `default`s), or what is wrong with them.
pub fn repair_arguments(arguments: Value, schema: &Value) -> Result<Value, RepairError> {
    let mut args = match arguments {
        Value::Null => Map::new(),
        Value::Object(m) => m,
        // The whole object sent as a JSON string.
        Value::String(s) => match serde_json::from_str::<Value>(&s) {
            Ok(Value::Object(m)) => m,
            _ if s.trim().is_empty() => Map::new(),
            _ => return Err(RepairError::NotAnObjectString(s)),
        },
        other => return Err(RepairError::NotAnObject(other)),
    };
    let empty = Map::new();
    let props = schema
        .get("properties")
        .and_then(Value::as_object)
        .unwrap_or(&empty);
    for (name, prop) in props {
        let Some(value) = args.get(name).cloned() else {
            continue;
        };
        if value.is_null() {
            // "not given": the default (below) or the tool's own.
            args.remove(name);
            continue;
        }
        if let Some(fixed) = coerce(value, prop) {
            args.insert(name.clone(), fixed);
        }
    }
    for (name, prop) in props {
        if !args.contains_key(name)
            && let Some(d) = prop.get("default")
        {
            args.insert(name.clone(), d.clone());
        }
    }
    let missing: Vec<String> = schema
        .get("required")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .filter(|r| !args.contains_key(*r))
        .map(str::to_owned)
        .collect();
    if !missing.is_empty() {
        return Err(RepairError::Missing(missing));
    }
    Ok(Value::Object(args))
}

/// A value of the wrong JSON type converted to the schema's type, when the
/// conversion is unambiguous; `None` leaves it as it is (the tool reports).
fn coerce(value: Value, prop: &Value) -> Option<Value> {
    let ty = prop.get("type").and_then(Value::as_str)?;
    match (ty, &value) {
        ("object" | "array", Value::String(s)) => {
            let parsed: Value = serde_json::from_str(s).ok()?;
            let fits =
                (ty == "object" && parsed.is_object()) || (ty == "array" && parsed.is_array());
            fits.then_some(parsed)
        }
        ("array", v) if !v.is_array() => Some(Value::Array(vec![value])),
        ("integer", Value::String(s)) => s.trim().parse::<i64>().ok().map(Value::from),
        ("integer", Value::Number(n)) if n.as_i64().is_none() => n
            .as_f64()
            .filter(|f| f.fract() == 0.0 && f.abs() < 9e15)
            .map(|f| Value::from(f as i64)),
        ("number", Value::String(s)) => s
            .trim()
            .parse::<f64>()
            .ok()
            .and_then(|f| serde_json::Number::from_f64(f).map(Value::Number)),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" | "yes" | "1" => Some(Value::Bool(true)),
            "false" | "no" | "0" => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Number(_) | Value::Bool(_)) => Some(Value::String(value.to_string())),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn schema() -> Value {
        json!({
            "type": "object",
            "properties": {
                "path": {"type": "string"},
                "offset": {"type": "integer", "default": 1},
                "limit": {"type": "integer"},
                "all": {"type": "boolean"},
                "done": {"type": "array", "items": {"type": "integer"}},
                "opts": {"type": "object"}
            },
            "required": ["path"]
        })
    }

    #[test]
    fn nulls_strings_and_defaults_are_repaired() {
        let got = repair_arguments(
            json!({"path": "a", "offset": null, "limit": "20", "all": "true", "done": "[1,2]", "opts": "{\"x\":1}", "extra": 5}),
            &schema(),
        )
        .unwrap();
        assert_eq!(
            got,
            json!({"path": "a", "offset": 1, "limit": 20, "all": true, "done": [1, 2], "opts": {"x": 1}, "extra": 5})
        );
        // The whole object as a string, and a lone value for an array.
        let got = repair_arguments(json!("{\"path\": \"b\", \"done\": 3}"), &schema()).unwrap();
        assert_eq!(got, json!({"path": "b", "offset": 1, "done": [3]}));
        assert_eq!(
            repair_arguments(json!({"path": 7}), &schema()).unwrap()["path"],
            "7"
        );
    }

    #[test]
    fn what_cannot_be_repaired_is_reported() {
        let e = repair_arguments(json!({"offset": 2}), &schema()).unwrap_err();
        assert_eq!(e, RepairError::Missing(vec!["path".into()]));
        assert_eq!(e.to_string(), "missing required argument(s): path");
        let e = repair_arguments(json!([1, 2]), &schema()).unwrap_err();
        assert_eq!(e, RepairError::NotAnObject(json!([1, 2])));
        assert_eq!(e.to_string(), "arguments must be a JSON object, got [1,2]");
        let e = repair_arguments(json!("not json"), &schema()).unwrap_err();
        assert_eq!(e, RepairError::NotAnObjectString("not json".into()));
        assert_eq!(
            e.to_string(),
            "arguments must be a JSON object, got the string \"not json\""
        );
        // Ambiguous values are left for the tool to judge.
        let got = repair_arguments(json!({"path": "a", "limit": "twenty"}), &schema()).unwrap();
        assert_eq!(got["limit"], "twenty");
    }
}
