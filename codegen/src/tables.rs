//! Constant tables kept out of the compiled C.
//!
//! CasADi's generated C spells every sparsity pattern and index list as a static
//! array initializer. For a discretization whose kernels are mapped over N elements
//! the code is the same for every N, but the patterns of the assembled Jacobian and
//! Hessian (and the index lists that scatter into them) grow with N: at N = 1000 they
//! were 98 % of a 92 MB source and most of its compile time. [`split_tables`] moves
//! every large, fully spelled-out `casadi_int` / `casadi_real` array into a
//! [`ConstantTables`] blob: the array becomes a pointer, and a generated
//! `<module>_bind_tables` function points it into the blob after the object is
//! loaded. The C left behind is flat in N; the blob is plain data, read in
//! milliseconds.

use crate::error::{CodegenError, Result};
use std::path::Path;

/// The values of the arrays moved out of the C source, in order of appearance.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ConstantTables {
    /// Concatenated `casadi_int` arrays.
    pub ints: Vec<i64>,
    /// Concatenated `casadi_real` arrays.
    pub reals: Vec<f64>,
}

const MAGIC: &[u8; 8] = b"FESDTBL1";

impl ConstantTables {
    /// True if no array was moved.
    pub fn is_empty(&self) -> bool {
        self.ints.is_empty() && self.reals.is_empty()
    }

    /// The binary form: magic, counts, integer width (4 or 8 bytes), integers, reals
    /// (all little-endian).
    pub fn to_bytes(&self) -> Vec<u8> {
        let narrow = self.ints.iter().all(|&v| i32::try_from(v).is_ok());
        let width: u64 = if narrow { 4 } else { 8 };
        let mut out = Vec::with_capacity(32 + self.ints.len() * width as usize + self.reals.len() * 8);
        out.extend_from_slice(MAGIC);
        for n in [self.ints.len() as u64, self.reals.len() as u64, width] {
            out.extend_from_slice(&n.to_le_bytes());
        }
        for &v in &self.ints {
            if narrow {
                out.extend_from_slice(&(v as i32).to_le_bytes());
            } else {
                out.extend_from_slice(&v.to_le_bytes());
            }
        }
        for &v in &self.reals {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Reads [`ConstantTables::to_bytes`]'s form; `path` names the file in errors.
    pub fn from_bytes(bytes: &[u8], path: &Path) -> Result<ConstantTables> {
        let bad = |reason: &str| CodegenError::CorruptCache { path: path.to_path_buf(), reason: reason.to_string() };
        if bytes.len() < 32 || &bytes[..8] != MAGIC {
            return Err(bad("not a constant-table file"));
        }
        let word = |i: usize| u64::from_le_bytes(bytes[8 + 8 * i..16 + 8 * i].try_into().unwrap_or_default()) as usize;
        let (n_ints, n_reals, width) = (word(0), word(1), word(2));
        if width != 4 && width != 8 {
            return Err(bad("integer width is neither 4 nor 8"));
        }
        let expected = n_ints.checked_mul(width).and_then(|a| n_reals.checked_mul(8).and_then(|b| a.checked_add(b)));
        if expected.and_then(|e| e.checked_add(32)) != Some(bytes.len()) {
            return Err(bad("size does not match its header"));
        }
        let body = &bytes[32..];
        let ints = body[..n_ints * width]
            .chunks_exact(width)
            .map(|c| {
                if width == 4 {
                    i32::from_le_bytes([c[0], c[1], c[2], c[3]]) as i64
                } else {
                    i64::from_le_bytes(c.try_into().unwrap_or_default())
                }
            })
            .collect();
        let reals = body[n_ints * width..].chunks_exact(8).map(|c| f64::from_le_bytes(c.try_into().unwrap_or_default())).collect();
        Ok(ConstantTables { ints, reals })
    }
}

/// The name of the function that binds a module's tables.
pub(crate) fn bind_symbol(module: &str) -> String {
    format!("{module}_bind_tables")
}

/// One `static const casadi_<kind> casadi_<name>[<len>] = {…};` declaration.
struct Declaration<'a> {
    real: bool,
    name: &'a str,
    values: &'a str,
    len: usize,
}

/// Parses a declaration that starts at `text` (a line beginning with `static const`);
/// returns it and the number of bytes it spans.
fn parse_declaration(text: &str) -> Option<(Declaration<'_>, usize)> {
    let (real, rest) = if let Some(r) = text.strip_prefix("static const casadi_int ") {
        (false, r)
    } else {
        (true, text.strip_prefix("static const casadi_real ")?)
    };
    let open = rest.find('[')?;
    let name = &rest[..open];
    if !name.starts_with("casadi_") || !name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_') {
        return None;
    }
    let close = rest.find(']')?;
    let len: usize = rest[open + 1..close].parse().ok()?;
    let brace = rest.find('{')?;
    let end = rest.find("};")?;
    if !rest[close + 1..brace].trim().eq("=") {
        return None;
    }
    let consumed = text.len() - rest.len() + end + 2;
    Some((Declaration { real, name, values: &rest[brace + 1..end], len }, consumed))
}

/// Moves every fully spelled-out constant array with at least `min_len` entries out of
/// `c_source` (see the module docs). Returns the new source (with the binding function
/// `<module>_bind_tables(ints, n_ints, reals, n_reals)`, 0 on success) and the tables;
/// if nothing qualifies the source comes back unchanged and the tables empty.
pub fn split_tables(c_source: &str, module: &str, min_len: usize) -> (String, ConstantTables) {
    let mut out = String::with_capacity(c_source.len() / 4);
    let mut tables = ConstantTables::default();
    let mut bindings = Vec::new();
    let mut rest = c_source;
    while let Some(at) = rest.find("\nstatic const casadi_") {
        out.push_str(&rest[..at + 1]);
        rest = &rest[at + 1..];
        let moved = parse_declaration(rest).and_then(|(d, consumed)| {
            if d.len < min_len.max(1) {
                return None;
            }
            let tokens: Vec<&str> = d.values.split(|c: char| c == ',' || c.is_whitespace()).filter(|t| !t.is_empty()).collect();
            if tokens.len() != d.len {
                return None;
            }
            if d.real {
                let v: Vec<f64> = tokens.iter().map(|t| t.parse::<f64>()).collect::<std::result::Result<_, _>>().ok()?;
                bindings.push((d.name, true, tables.reals.len()));
                tables.reals.extend(v);
                out.push_str(&format!("static const casadi_real* {};", d.name));
            } else {
                let v: Vec<i64> = tokens.iter().map(|t| t.parse::<i64>()).collect::<std::result::Result<_, _>>().ok()?;
                bindings.push((d.name, false, tables.ints.len()));
                tables.ints.extend(v);
                out.push_str(&format!("static const casadi_int* {};", d.name));
            }
            Some(consumed)
        });
        match moved {
            Some(consumed) => rest = &rest[consumed..],
            None => {
                out.push_str("static const casadi_");
                rest = &rest["static const casadi_".len()..];
            }
        }
    }
    out.push_str(rest);
    if bindings.is_empty() {
        return (c_source.to_string(), ConstantTables::default());
    }
    let mut bind = format!(
        "\n/* Points the tables above into the data stored beside this object. */\n\
         CASADI_SYMBOL_EXPORT int {}(const casadi_int* ints, casadi_int n_ints, const casadi_real* reals, casadi_int n_reals) {{\n\
         \x20 if (n_ints != {} || n_reals != {}) return 1;\n",
        bind_symbol(module),
        tables.ints.len(),
        tables.reals.len()
    );
    for (name, real, offset) in bindings {
        bind.push_str(&format!("  {name} = {} + {offset};\n", if real { "reals" } else { "ints" }));
    }
    bind.push_str("  return 0;\n}\n");
    crate::entries::insert_before_guard(&mut out, &bind);
    (out, tables)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SRC: &str = "#define casadi_s0 CASADI_PREFIX(s0)\n\
        static const casadi_int casadi_s0[3] = {1, 1, 1};\n\
        static const casadi_int casadi_s1[6] = \n  {4, 1, 0, 3,\n  0, 2};\n\
        static const casadi_real casadi_c0[4] = {0., 1.5, -2.5e-01, 1.0000000000000001e+00};\n\
        static const casadi_real casadi_zeros[9] = \n  {0.};\n\
        int f(void) { return casadi_s1[2]; }\n\
        #ifdef __cplusplus\n} /* extern \"C\" */\n#endif\n";

    #[test]
    fn large_complete_arrays_move_and_the_rest_stays() {
        let (c, t) = split_tables(SRC, "m", 4);
        assert_eq!(t.ints, vec![4, 1, 0, 3, 0, 2]);
        assert_eq!(t.reals, vec![0.0, 1.5, -0.25, 1.0000000000000001]);
        assert!(c.contains("static const casadi_int casadi_s0[3] = {1, 1, 1};"));
        assert!(c.contains("static const casadi_int* casadi_s1;"));
        assert!(c.contains("static const casadi_real* casadi_c0;"));
        assert!(c.contains("casadi_zeros[9] = \n  {0.};"), "partial initializers stay");
        assert!(c.contains("casadi_s1 = ints + 0;") && c.contains("casadi_c0 = reals + 0;"));
        assert!(c.find("m_bind_tables").unwrap() < c.find("#ifdef __cplusplus").unwrap());
        assert!(!c.contains("0, 2}"));
    }

    #[test]
    fn nothing_to_move_leaves_the_source_alone() {
        let (c, t) = split_tables(SRC, "m", 100);
        assert_eq!(c, SRC);
        assert!(t.is_empty());
    }

    #[test]
    fn the_binary_form_round_trips_and_rejects_damage() {
        let t = ConstantTables { ints: vec![1, -2, 3], reals: vec![0.5, f64::MAX] };
        let path = Path::new("x.tables");
        assert_eq!(ConstantTables::from_bytes(&t.to_bytes(), path).unwrap(), t);
        let wide = ConstantTables { ints: vec![1 << 40], reals: vec![] };
        assert_eq!(ConstantTables::from_bytes(&wide.to_bytes(), path).unwrap(), wide);
        let bytes = t.to_bytes();
        assert!(ConstantTables::from_bytes(&bytes[..bytes.len() - 1], path).is_err());
        assert!(ConstantTables::from_bytes(b"garbage", path).is_err());
    }
}
