//! Writing simulation results: CSV and JSON (plots: the `plot` module).

use crate::error::{Result, SimError};
use crate::simulator::SimulationResult;
use std::path::Path;

pub(crate) fn out_err(path: &Path, e: impl std::fmt::Display) -> SimError {
    SimError::Output { path: path.to_path_buf(), reason: e.to_string() }
}

impl SimulationResult {
    /// Writes one row per finite-element boundary: `t, x_0 … x_{n−1}, h` (h of the
    /// element starting there; empty on the last row).
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let n_x = self.x.first().map_or(0, |v| v.len());
        let mut s = String::from("t");
        for i in 0..n_x {
            s.push_str(&format!(",x_{i}"));
        }
        s.push_str(",h\n");
        for (k, (t, x)) in self.t.iter().zip(&self.x).enumerate() {
            s.push_str(&format!("{t:.17e}"));
            for v in x {
                s.push_str(&format!(",{v:.17e}"));
            }
            match self.h.get(k) {
                Some(h) => s.push_str(&format!(",{h:.17e}\n")),
                None => s.push_str(",\n"),
            }
        }
        std::fs::write(path, s).map_err(|e| out_err(path, e))
    }

    /// Writes the whole result as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| out_err(path, e))?;
        std::fs::write(path, text).map_err(|e| out_err(path, e))
    }
}
