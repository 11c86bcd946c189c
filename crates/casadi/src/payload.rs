//! Screening of CasADi's serialized text before CasADi reads it.
//!
//! Deserializing runs constructors: an `external` function `dlopen`s the library it
//! names, a plugin (`nlpsol`, `rootfinder`, `interpolant`, …) loads `libcasadi_*`
//! objects, and a function with `jit` set compiles C with a configured compiler. Data
//! read from a file must never do that, so [`screen`] refuses any payload that names
//! one of those classes or sets the `jit` flag, before CasADi sees it.

use crate::error::{Error, Result};

/// Class tags whose deserialization loads native code or a plugin.
const REFUSED_CLASSES: &[&str] = &[
    "External",
    "GenericExternal",
    "DllLibrary",
    "ShellCompiler",
    "JitFunction",
    "FmuFunction",
    "Callback",
    "Nlpsol",
    "Conic",
    "Rootfinder",
    "Integrator",
    "Interpolant",
    "Linsol",
    "Dple",
    "Expm",
    "BlazingSplineFunction",
    "Archiver",
    "Filesystem",
];

/// Decodes CasADi's text form: two letters `a`–`p` per byte, low nibble first.
fn decode(text: &str) -> std::result::Result<Vec<u8>, String> {
    let b = text.as_bytes();
    if !b.len().is_multiple_of(2) {
        return Err("truncated (odd number of characters)".into());
    }
    let nibble = |c: u8| -> std::result::Result<u8, String> {
        match c {
            b'a'..=b'p' => Ok(c - b'a'),
            _ => Err(format!("not CasADi's serialized text (character {:?})", c as char)),
        }
    };
    b.chunks(2).map(|p| Ok(nibble(p[0])? | (nibble(p[1])? << 4))).collect()
}

/// Positions where `name` occurs as a length-prefixed string (little-endian `u32`).
fn tag_positions<'a>(bytes: &'a [u8], name: &'a str) -> impl Iterator<Item = usize> + 'a {
    let mut needle = (name.len() as u32).to_le_bytes().to_vec();
    needle.extend_from_slice(name.as_bytes());
    bytes.windows(needle.len()).enumerate().filter(move |(_, w)| *w == needle.as_slice()).map(|(i, _)| i)
}

/// Refuses serialized text that would load native code when deserialized; `what`
/// names the payload in the message.
pub(crate) fn screen(text: &str, what: &str) -> Result<()> {
    let bytes = decode(text.trim()).map_err(|e| Error::Refused(format!("{what}: {e}")))?;
    for class in REFUSED_CLASSES {
        if tag_positions(&bytes, class).next().is_some() {
            return Err(Error::Refused(format!(
                "{what} contains a CasADi '{class}' object, which would load native code; \
                 only SX/MX expression functions are read from data"
            )));
        }
    }
    // Every function stores `jit` as one byte, two bytes before its `jit_serialize`
    // string ("source", "embed" or "link").
    for mode in ["source", "embed", "link"] {
        for i in tag_positions(&bytes, mode) {
            if i >= 2 && bytes[i - 2] == 1 && jit_tail_follows(&bytes, i + 4 + mode.len()) {
                return Err(Error::Refused(format!(
                    "{what} contains a function with 'jit' set, which would run a C compiler; \
                     only SX/MX expression functions are read from data"
                )));
            }
        }
    }
    Ok(())
}

/// True if a `jit_name` string follows at `at` (one flag byte, then the string): this
/// tells the `jit_serialize` field apart from the same word elsewhere in the data.
fn jit_tail_follows(bytes: &[u8], at: usize) -> bool {
    let rest = bytes.get(at + 1..).unwrap_or(&[]);
    rest.len() >= 4 && {
        let n = u32::from_le_bytes([rest[0], rest[1], rest[2], rest[3]]) as usize;
        n > 0 && n < 256 && rest.len() >= 4 + n && rest[4..4 + n].iter().all(|c| c.is_ascii_graphic())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decodes_low_nibble_first() {
        // 'y' = 0x79 is written "jh".
        assert_eq!(decode("jh").unwrap(), vec![0x79]);
        assert!(decode("jhz").is_err());
        assert!(decode("j!").is_err());
    }
}
