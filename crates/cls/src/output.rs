//! Writing rigid-body simulations: CSV and JSON (plots: the `plot` module).

use crate::error::{ClsError, Result};
use crate::simulator::ClsSimulation;
use std::path::Path;

pub(crate) fn out_err(path: &Path, e: impl std::fmt::Display) -> ClsError {
    ClsError::BadInput { what: "output path", reason: format!("writing {}: {e}", path.display()) }
}

impl ClsSimulation {
    /// One row per element boundary: `t, q_0 …, v_0 …` (velocities before any impulse).
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        let n_q = self.q.first().map_or(0, |v| v.len());
        let mut s = String::from("t");
        (0..n_q).for_each(|i| s.push_str(&format!(",q_{i}")));
        (0..n_q).for_each(|i| s.push_str(&format!(",v_{i}")));
        s.push('\n');
        for ((t, q), v) in self.t.iter().zip(&self.q).zip(&self.v) {
            s.push_str(&format!("{t:.17e}"));
            q.iter().chain(v).for_each(|x| s.push_str(&format!(",{x:.17e}")));
            s.push('\n');
        }
        std::fs::write(path, s).map_err(|e| out_err(path, e))
    }

    /// The whole simulation as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        let text = serde_json::to_string_pretty(self).map_err(|e| out_err(path, e))?;
        std::fs::write(path, text).map_err(|e| out_err(path, e))
    }
}
