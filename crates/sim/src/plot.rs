//! Plots of simulation results (PNG or SVG by file extension), with the `plot`
//! feature.

use crate::error::Result;
use crate::output::out_err;
use crate::simulator::SimulationResult;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

impl SimulationResult {
    /// Plots the states over time (top; switch times as vertical lines) and the step
    /// sizes (bottom). PNG or SVG by the file extension.
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        register_font();
        let is_svg = path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg"));
        if is_svg {
            let root = SVGBackend::new(path, (900, 700)).into_drawing_area();
            self.draw(root, title).map_err(|e| out_err(path, e))
        } else {
            let root = BitMapBackend::new(path, (900, 700)).into_drawing_area();
            self.draw(root, title).map_err(|e| out_err(path, e))
        }
    }

    fn draw<DB: DrawingBackend>(
        &self,
        root: DrawingArea<DB, Shift>,
        title: &str,
    ) -> std::result::Result<(), Box<dyn std::error::Error + '_>>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let (top, bottom) = root.split_vertically(460);
        let t_end = self.t.last().copied().unwrap_or(1.0).max(1e-12);
        let n_x = self.x.first().map_or(0, |v| v.len());
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in self.x.iter().chain(&self.x_stage).flatten() {
            lo = lo.min(*v);
            hi = hi.max(*v);
        }
        if !(lo.is_finite() && hi.is_finite()) {
            (lo, hi) = (-1.0, 1.0);
        }
        let pad = 0.05 * (hi - lo).max(1e-9);
        let mut chart = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, (lo - pad)..(hi + pad))?;
        chart.configure_mesh().x_desc("t").y_desc("x").draw()?;
        for &ts in &self.switch_times {
            chart.draw_series(LineSeries::new([(ts, lo - pad), (ts, hi + pad)], BLACK.mix(0.3)))?;
        }
        for i in 0..n_x {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(f64, f64)> = self.t.iter().zip(&self.x).map(|(t, x)| (*t, x[i])).collect();
            chart
                .draw_series(LineSeries::new(pts.clone(), color.stroke_width(2)))?
                .label(format!("x_{i}"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
            chart.draw_series(pts.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;

        let h_max = self.h.iter().copied().fold(0.0, f64::max).max(1e-12);
        let mut hc = ChartBuilder::on(&bottom)
            .margin(12)
            .x_label_area_size(32)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, 0.0..1.1 * h_max)?;
        hc.configure_mesh().x_desc("t").y_desc("step size h").draw()?;
        let mut steps = Vec::with_capacity(2 * self.h.len());
        for (k, h) in self.h.iter().enumerate() {
            steps.push((self.t[k], *h));
            steps.push((self.t[k + 1], *h));
        }
        hc.draw_series(LineSeries::new(steps, BLUE.stroke_width(2)))?;
        for &ts in &self.switch_times {
            hc.draw_series(LineSeries::new([(ts, 0.0), (ts, 1.1 * h_max)], RED.mix(0.5)))?;
        }
        root.present()?;
        Ok(())
    }
}

/// Registers the bundled DejaVu Sans as plotters' "sans-serif" (once per process), so
/// plots render the same on machines without system fonts.
pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}
