//! Plots of rigid-body simulations, with the `plot` feature: positions and velocities
//! over time, and the path of a point in a plane (PNG or SVG by file extension).

use crate::error::{ClsError, Result};
use crate::output::out_err;
use crate::simulator::ClsSimulation;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One panel of a plot: its area, its title and its lines (each a list of (t, value)).
type Panel<'a, DB> = (&'a DrawingArea<DB, Shift>, &'static str, Vec<Vec<(f64, f64)>>);

type DrawResult<'a> = std::result::Result<(), Box<dyn std::error::Error + 'a>>;

/// Draws with `svg` or `bitmap` by the extension of `path`.
fn draw_to(
    path: &Path,
    size: (u32, u32),
    svg: impl Fn(DrawingArea<SVGBackend<'_>, Shift>) -> std::result::Result<(), String>,
    bitmap: impl Fn(DrawingArea<BitMapBackend<'_>, Shift>) -> std::result::Result<(), String>,
) -> Result<()> {
    fesd_sim::register_font();
    if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
        svg(SVGBackend::new(path, size).into_drawing_area()).map_err(|e| out_err(path, e))
    } else {
        bitmap(BitMapBackend::new(path, size).into_drawing_area()).map_err(|e| out_err(path, e))
    }
}

fn range<'a>(values: impl Iterator<Item = &'a f64>) -> std::ops::Range<f64> {
    let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(*v), h.max(*v)));
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (-1.0, 1.0) };
    let pad = 0.05 * (hi - lo).max(1e-9);
    (lo - pad)..(hi + pad)
}

impl ClsSimulation {
    /// The velocity polyline of coordinate `i` with each impact as a vertical jump.
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
    /// vertical lines.
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        draw_to(
            path,
            (900, 700),
            |root| self.draw(root, title).map_err(|e| e.to_string()),
            |root| self.draw(root, title).map_err(|e| e.to_string()),
        )
    }

    fn draw<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>, title: &str) -> DrawResult<'_>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(350);
        let t_end = self.t.last().copied().unwrap_or(1.0).max(1e-12);
        let n_q = self.q.first().map_or(0, |v| v.len());
        let panels: [Panel<'_, DB>; 2] = [
            (&top, "q", (0..n_q).map(|i| self.t.iter().zip(&self.q).map(|(t, q)| (*t, q[i])).collect()).collect()),
            (&bottom, "v", (0..n_q).map(|i| self.velocity_path(i)).collect()),
        ];
        for (k, (area, name, lines)) in panels.into_iter().enumerate() {
            let y = range(lines.iter().flatten().map(|p| &p.1));
            let mut chart = ChartBuilder::on(area)
                .caption(if k == 0 { title } else { "" }, ("sans-serif", 22))
                .margin(12)
                .x_label_area_size(32)
                .y_label_area_size(60)
                .build_cartesian_2d(0.0..t_end, y.clone())?;
            chart.configure_mesh().x_desc("t").y_desc(name).draw()?;
            for imp in &self.impacts {
                chart.draw_series(LineSeries::new([(imp.time, y.start), (imp.time, y.end)], RED.mix(0.3)))?;
            }
            for (i, pts) in lines.into_iter().enumerate() {
                let color = Palette99::pick(i).to_rgba();
                chart
                    .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                    .label(format!("{name}_{i}"))
                    .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
            }
            chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        }
        root.present()?;
        Ok(())
    }

    /// The path of the point `(q_ix, q_iy)` in the plane, impacts marked.
    pub fn plot_plane(&self, path: &Path, title: &str, ix: usize, iy: usize) -> Result<()> {
        let n_q = self.q.first().map_or(0, |v| v.len());
        if ix >= n_q || iy >= n_q {
            return Err(ClsError::BadInput { what: "plot_plane", reason: format!("coordinates ({ix}, {iy}) of {n_q}") });
        }
        draw_to(
            path,
            (800, 600),
            |root| self.draw_plane(root, title, ix, iy).map_err(|e| e.to_string()),
            |root| self.draw_plane(root, title, ix, iy).map_err(|e| e.to_string()),
        )
    }

    fn draw_plane<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>, title: &str, ix: usize, iy: usize) -> DrawResult<'_>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let pts: Vec<(f64, f64)> = self.q.iter().map(|q| (q[ix], q[iy])).collect();
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(60)
            .build_cartesian_2d(range(pts.iter().map(|p| &p.0)), range(pts.iter().map(|p| &p.1)))?;
        chart.configure_mesh().x_desc(format!("q_{ix}")).y_desc(format!("q_{iy}")).draw()?;
        chart.draw_series(LineSeries::new(pts.clone(), BLUE.stroke_width(2)))?;
        let at_impacts = self.impacts.iter().filter_map(|imp| self.t.iter().position(|t| (t - imp.time).abs() <= 1e-12 * t.abs().max(1.0)));
        chart.draw_series(at_impacts.map(|k| Circle::new(pts[k], 5, RED.filled())))?;
        root.present()?;
        Ok(())
    }
}
