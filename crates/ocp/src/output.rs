//! Writing OCP results: JSON, CSV and a plot (states, controls, step sizes, switches).

use crate::error::{OcpError, Result};
use crate::solver::OcpResult;
use std::path::Path;

pub(crate) fn out_err(path: &Path, e: impl std::fmt::Display) -> OcpError {
    OcpError::Invalid { what: "output", reason: format!("{}: {e}", path.display()) }
}

impl OcpResult {
    /// Writes the whole result (including the homotopy table and the variable table)
    /// as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| out_err(path, e))?;
        std::fs::write(path, text).map_err(|e| out_err(path, e))
    }

    /// Writes one row per element boundary: `t, x_0 … x_{n−1}, u_0 … u_{m−1}, h` (u and h
    /// of the element starting there; empty on the last row).
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let n_x = self.x.first().map_or(0, |v| v.len());
        let n_u = self.u.first().map_or(0, |v| v.len());
        let mut s = String::from("t");
        (0..n_x).for_each(|i| s.push_str(&format!(",x_{i}")));
        (0..n_u).for_each(|i| s.push_str(&format!(",u_{i}")));
        s.push_str(",h\n");
        for (e, (t, x)) in self.t.iter().zip(&self.x).enumerate() {
            s.push_str(&format!("{t:.17e}"));
            x.iter().for_each(|v| s.push_str(&format!(",{v:.17e}")));
            // The interval holding the element that starts at t.
            let k = self.t_controls.iter().rposition(|tc| *tc <= t + 1e-12 * t.abs().max(1.0)).unwrap_or(0);
            match (self.h.get(e), self.u.get(k)) {
                (Some(h), Some(u)) => {
                    u.iter().for_each(|v| s.push_str(&format!(",{v:.17e}")));
                    s.push_str(&format!(",{h:.17e}"));
                }
                _ => s.push_str(&",".repeat(n_u + 1)),
            }
            s.push('\n');
        }
        std::fs::write(path, s).map_err(|e| out_err(path, e))
    }
}
