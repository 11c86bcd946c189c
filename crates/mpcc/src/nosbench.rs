//! Reader for MPCCs stored in the NOSBENCH JSON layout: CasADi-serialized `w`, `p`
//! (SX) and `g_fun`, `G_fun`, `H_fun`, `augmented_objective_fun` (Functions of
//! `(w, p)`), and number lists `w0, lbw, ubw, p0, lbg, ubg` in which unbounded entries
//! are the non-standard tokens `Infinity` / `-Infinity` (also `NaN`).

use crate::error::{MpccError, Result};
use crate::problem::{apply, Mpcc, MpccData, DEFAULT_MODULE};
use casadi::{Function, SX};
use serde_json::{Map, Value};
use std::path::Path;

/// Reads and validates an MPCC file.
pub fn read_file(path: &Path) -> Result<Mpcc> {
    let text = std::fs::read_to_string(path).map_err(|err| MpccError::Io { path: path.to_path_buf(), err })?;
    from_str(&text)
}

/// Parses and validates an MPCC from the JSON text.
pub fn from_str(text: &str) -> Result<Mpcc> {
    let value = parse(text)?;
    let obj = object(&value)?;
    let w = symbols(obj, "w")?;
    let p = symbols(obj, "p")?;
    let fun = |name: &str| -> Result<SX> {
        let f = Function::deserialize(string(obj, name)?)
            .map_err(|e| MpccError::Format(format!("field '{name}' is not a serialized CasADi Function: {e}")))?;
        apply(name, &f, &w, &p)
    };
    let f = fun("augmented_objective_fun")?;
    let g = fun("g_fun")?;
    let big_g = fun("G_fun")?;
    let big_h = fun("H_fun")?;
    let MpccData { lbw, ubw, lbg, ubg, w0, p0, module } = data(obj)?;
    let mpcc = Mpcc { lbw, ubw, lbg, ubg, w0, p0, w, p, f, g, big_g, big_h, formulation: Default::default(), module };
    mpcc.validate()?;
    Ok(mpcc)
}

/// The numbers of an MPCC file (bounds, initial guess, parameter values), without
/// reading its expressions.
pub(crate) fn data_from_str(text: &str) -> Result<MpccData> {
    data(object(&parse(text)?)?)
}

fn parse(text: &str) -> Result<Value> {
    serde_json::from_str(&quote_non_finite(text)).map_err(|e| MpccError::Format(e.to_string()))
}

fn object(value: &Value) -> Result<&Map<String, Value>> {
    value.as_object().ok_or_else(|| MpccError::Format("the top level must be a JSON object".into()))
}

fn data(obj: &Map<String, Value>) -> Result<MpccData> {
    Ok(MpccData {
        lbw: numbers(obj, "lbw")?,
        ubw: numbers(obj, "ubw")?,
        lbg: numbers(obj, "lbg")?,
        ubg: numbers(obj, "ubg")?,
        w0: numbers(obj, "w0")?,
        p0: numbers_or_empty(obj, "p0")?,
        module: DEFAULT_MODULE.into(),
    })
}

fn string<'a>(obj: &'a Map<String, Value>, key: &str) -> Result<&'a str> {
    match obj.get(key) {
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(MpccError::Format(format!("field '{key}' must be a string"))),
        None => Err(MpccError::Format(format!("missing field '{key}'"))),
    }
}

fn symbols(obj: &Map<String, Value>, key: &str) -> Result<SX> {
    let x =
        SX::deserialize(string(obj, key)?).map_err(|e| MpccError::Format(format!("field '{key}' is not a serialized CasADi SX: {e}")))?;
    let n = x.numel();
    let x = x.reshape(n, 1)?;
    if n > 0 && !x.is_symbolic() {
        return Err(MpccError::Format(format!("field '{key}' must hold distinct symbols")));
    }
    Ok(x)
}

fn numbers(obj: &Map<String, Value>, key: &str) -> Result<Vec<f64>> {
    let arr = match obj.get(key) {
        Some(Value::Array(a)) => a,
        Some(_) => return Err(MpccError::Format(format!("field '{key}' must be a list of numbers"))),
        None => return Err(MpccError::Format(format!("missing field '{key}'"))),
    };
    arr.iter()
        .enumerate()
        .map(|(i, v)| match v {
            Value::Number(n) => n.as_f64().ok_or_else(|| MpccError::Format(format!("{key}[{i}] is not a number"))),
            Value::String(s) if s == "Infinity" => Ok(f64::INFINITY),
            Value::String(s) if s == "-Infinity" => Ok(f64::NEG_INFINITY),
            Value::String(s) if s == "NaN" => Ok(f64::NAN),
            _ => Err(MpccError::Format(format!("{key}[{i}] is not a number"))),
        })
        .collect()
}

fn numbers_or_empty(obj: &Map<String, Value>, key: &str) -> Result<Vec<f64>> {
    if obj.contains_key(key) {
        numbers(obj, key)
    } else {
        Ok(Vec::new())
    }
}

/// Rewrites the bare tokens `Infinity`, `-Infinity` and `NaN` outside strings as JSON
/// strings, so a strict parser accepts the file.
fn quote_non_finite(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_string = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_string {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_string = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_string = true;
        }
        let token = ["-Infinity", "Infinity", "NaN"].into_iter().find(|t| rest.starts_with(t));
        match token {
            Some(t) => {
                out.push('"');
                out.push_str(t);
                out.push('"');
                rest = &rest[t.len()..];
            }
            None => {
                out.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::quote_non_finite;

    #[test]
    fn tokens_outside_strings_are_quoted() {
        assert_eq!(
            quote_non_finite(r#"{"a": [1, Infinity, -Infinity, NaN], "b": "Infinity"}"#),
            r#"{"a": [1, "Infinity", "-Infinity", "NaN"], "b": "Infinity"}"#
        );
    }
}
