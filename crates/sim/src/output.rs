//! Simulation results through the output layer: the trajectory table (CSV), JSON and
//! a plot.

use crate::error::Result;
use crate::simulator::SimulationResult;
use fesd_output::Trajectory;
use std::path::Path;

impl SimulationResult {
    /// One row per finite-element boundary: `t, x_0 … x_{n−1}, h` (h of the element
    /// starting there; empty on the last row).
    pub fn trajectory(&self) -> Result<Trajectory> {
        let mut table = Trajectory::new(&self.t);
        table.add_columns("x", &self.x)?;
        table.add_column("h", &self.h)?;
        Ok(table)
    }

    /// Writes [`SimulationResult::trajectory`] as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        Ok(self.trajectory()?.write_csv(path)?)
    }

    /// Writes the whole result as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        Ok(fesd_output::write_json(self, path)?)
    }

    /// Plots the states over time (top, switch times as vertical lines) and the step
    /// sizes (bottom). PNG or SVG by the file extension.
    #[cfg(feature = "plot")]
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        use fesd_output::{Figure, Line, Panel};
        let n_x = self.x.first().map_or(0, Vec::len);
        let states = (0..n_x)
            .map(|i| Line { dots: true, ..Line::new(format!("x_{i}"), self.t.iter().zip(&self.x).map(|(t, x)| (*t, x[i])).collect()) })
            .collect();
        let panels = vec![
            Panel {
                x_label: "t".into(),
                y_label: "x".into(),
                lines: states,
                markers: self.switch_times.clone(),
                weight: 46,
                ..Default::default()
            },
            Panel {
                x_label: "t".into(),
                y_label: "step size h".into(),
                lines: vec![Line::steps(None, &self.t, &self.h)],
                markers: self.switch_times.clone(),
                from_zero: true,
                weight: 24,
                ..Default::default()
            },
        ];
        Ok(Figure { title: title.into(), size: (900, 700), panels }.draw(path)?)
    }
}
