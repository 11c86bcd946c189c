//! OCP results through the output layer: the trajectory table (CSV), JSON and a plot
//! (states, controls, step sizes, switches).

use crate::error::Result;
use crate::solver::OcpResult;
use fesd_output::Trajectory;
use std::path::Path;

impl OcpResult {
    /// One row per element boundary: `t, x_0 … x_{n−1}, u_0 … u_{m−1}, h` (u and h of
    /// the element starting there; empty on the last row).
    pub fn trajectory(&self) -> Result<Trajectory> {
        let mut table = Trajectory::new(&self.t);
        table.add_columns("x", &self.x)?;
        // The control of the interval holding each element.
        let u: Vec<Vec<f64>> = self.t[..self.h.len()]
            .iter()
            .map(|t| {
                let k = self.t_controls.iter().rposition(|tc| *tc <= t + 1e-12 * t.abs().max(1.0)).unwrap_or(0);
                self.u.get(k).cloned().unwrap_or_default()
            })
            .collect();
        table.add_columns("u", &u)?;
        table.add_column("h", &self.h)?;
        Ok(table)
    }

    /// Writes [`OcpResult::trajectory`] as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        Ok(self.trajectory()?.write_csv(path)?)
    }

    /// Writes the whole result (including the homotopy table and the variable table)
    /// as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        Ok(fesd_output::write_json(self, path)?)
    }

    /// Plots the states (top), the piecewise-constant controls (middle) and the step
    /// sizes (bottom), with the switch times as vertical lines. PNG or SVG by extension.
    #[cfg(feature = "plot")]
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        use fesd_output::{Figure, Line, Panel};
        let n_x = self.x.first().map_or(0, Vec::len);
        let n_u = self.u.first().map_or(0, Vec::len);
        let states = (0..n_x).map(|i| Line::new(format!("x_{i}"), self.t.iter().zip(&self.x).map(|(t, x)| (*t, x[i])).collect())).collect();
        let controls = (0..n_u)
            .map(|j| Line::steps(Some(format!("u_{j}")), &self.t_controls, &self.u.iter().map(|u| u[j]).collect::<Vec<_>>()))
            .collect();
        let panel = |y: &str, lines, weight| Panel {
            x_label: "t".into(),
            y_label: y.into(),
            lines,
            markers: self.switch_times.clone(),
            weight,
            ..Default::default()
        };
        let steps = Panel { from_zero: true, ..panel("h", vec![Line::steps(None, &self.t, &self.h)], 22) };
        Ok(Figure { title: title.into(), size: (900, 900), panels: vec![panel("x", states, 42), panel("u", controls, 26), steps] }
            .draw(path)?)
    }
}
