//! Simulation records of both kinds through the output layer: the trajectory table (CSV), JSON and
//! a plot.

use crate::error::Result;
use crate::rigid::ClsSimulation;
use crate::switched::SimulationResult;
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

impl ClsSimulation {
    /// One row per element boundary: `t, q_0 …, v_0 …` (velocities before any impulse).
    pub fn trajectory(&self) -> Result<Trajectory> {
        let mut table = Trajectory::new(&self.t);
        table.add_columns("q", &self.q)?;
        table.add_columns("v", &self.v)?;
        Ok(table)
    }

    /// Writes [`ClsSimulation::trajectory`] as CSV.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        Ok(self.trajectory()?.write_csv(path)?)
    }

    /// The whole simulation as JSON.
    pub fn write_json(&self, path: &Path) -> Result<()> {
        Ok(fesd_output::write_json(self, path)?)
    }

    /// The velocity polyline of coordinate `i` with each impact as a vertical jump.
    #[cfg(feature = "plot")]
    fn velocity_path(&self, i: usize) -> Vec<(f64, f64)> {
        let mut pts = Vec::with_capacity(self.t.len() + self.impacts.len());
        let mut impacts = self.impacts.iter().peekable();
        for (t, v) in self.t.iter().zip(&self.v) {
            pts.push((*t, v[i]));
            while let Some(imp) = impacts.next_if(|imp| (imp.time - t).abs() <= 1e-12 * t.abs().max(1.0)) {
                pts.push((imp.time, imp.v_after[i]));
            }
        }
        pts
    }

    /// Positions (top) and velocities with their jumps (bottom) over time, impacts as
    /// vertical lines. PNG or SVG by the file extension.
    #[cfg(feature = "plot")]
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        use fesd_output::{Figure, Line, Panel};
        let n_q = self.q.first().map_or(0, Vec::len);
        let impacts: Vec<f64> = self.impacts.iter().map(|i| i.time).collect();
        let positions =
            (0..n_q).map(|i| Line::new(format!("q_{i}"), self.t.iter().zip(&self.q).map(|(t, q)| (*t, q[i])).collect())).collect();
        let velocities = (0..n_q).map(|i| Line::new(format!("v_{i}"), self.velocity_path(i))).collect();
        let panel = |y: &str, lines| Panel {
            x_label: "t".into(),
            y_label: y.into(),
            lines,
            markers: impacts.clone(),
            weight: 1,
            ..Default::default()
        };
        Ok(Figure { title: title.into(), size: (900, 700), panels: vec![panel("q", positions), panel("v", velocities)] }.draw(path)?)
    }

    /// The path of the point `(q_ix, q_iy)` in the plane, impacts marked.
    #[cfg(feature = "plot")]
    pub fn plot_plane(&self, path: &Path, title: &str, ix: usize, iy: usize) -> Result<()> {
        use fesd_output::{Figure, Line, Panel};
        let n_q = self.q.first().map_or(0, Vec::len);
        if ix >= n_q || iy >= n_q {
            return Err(crate::error::SimError::BadInput { what: "plot_plane", reason: format!("coordinates ({ix}, {iy}) of {n_q}") });
        }
        let pts: Vec<(f64, f64)> = self.q.iter().map(|q| (q[ix], q[iy])).collect();
        let marks = self
            .impacts
            .iter()
            .filter_map(|imp| self.t.iter().position(|t| (t - imp.time).abs() <= 1e-12 * t.abs().max(1.0)))
            .map(|k| pts[k])
            .collect();
        let panel = Panel {
            x_label: format!("q_{ix}"),
            y_label: format!("q_{iy}"),
            lines: vec![Line { label: None, points: pts, dots: false }],
            marks,
            weight: 1,
            ..Default::default()
        };
        Ok(Figure { title: title.into(), size: (800, 600), panels: vec![panel] }.draw(path)?)
    }
}
