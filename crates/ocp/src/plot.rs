//! Plots of OCP solutions (PNG or SVG by file extension), with the `plot` feature.

use crate::error::Result;
use crate::output::out_err;
use crate::solver::OcpResult;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

impl OcpResult {
    /// Plots the states (top), the piecewise-constant controls (middle) and the step
    /// sizes (bottom), with the switch times as vertical lines. PNG or SVG by extension.
    pub fn plot(&self, path: &Path, title: &str) -> Result<()> {
        fesd_sim::register_font();
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
            let root = SVGBackend::new(path, (900, 900)).into_drawing_area();
            self.draw(root, title).map_err(|e| out_err(path, e))
        } else {
            let root = BitMapBackend::new(path, (900, 900)).into_drawing_area();
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
        let (top, rest) = root.split_vertically(420);
        let (middle, bottom) = rest.split_vertically(260);
        let t_end = self.t.last().copied().unwrap_or(1.0).max(1e-12);
        let range = |values: &mut dyn Iterator<Item = f64>| {
            let (lo, hi) = values.fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
            if lo.is_finite() && hi.is_finite() {
                let pad = 0.05 * (hi - lo).max(1e-9);
                (lo - pad, hi + pad)
            } else {
                (-1.0, 1.0)
            }
        };
        // States.
        let (lo, hi) = range(&mut self.x.iter().flatten().copied());
        let mut chart = ChartBuilder::on(&top)
            .caption(title, ("sans-serif", 22))
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, lo..hi)?;
        chart.configure_mesh().y_desc("x").draw()?;
        for &ts in &self.switch_times {
            chart.draw_series(LineSeries::new([(ts, lo), (ts, hi)], BLACK.mix(0.3)))?;
        }
        for i in 0..self.x.first().map_or(0, |v| v.len()) {
            let color = Palette99::pick(i).to_rgba();
            let pts: Vec<(f64, f64)> = self.t.iter().zip(&self.x).map(|(t, x)| (*t, x[i])).collect();
            chart
                .draw_series(LineSeries::new(pts, color.stroke_width(2)))?
                .label(format!("x_{i}"))
                .legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
        }
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
        // Controls, piecewise constant on the control grid.
        let (lo, hi) = range(&mut self.u.iter().flatten().copied());
        let mut uc =
            ChartBuilder::on(&middle).margin(12).x_label_area_size(30).y_label_area_size(60).build_cartesian_2d(0.0..t_end, lo..hi)?;
        uc.configure_mesh().y_desc("u").draw()?;
        for j in 0..self.u.first().map_or(0, |v| v.len()) {
            let color = Palette99::pick(j + 5).to_rgba();
            let pts: Vec<(f64, f64)> =
                self.u.iter().enumerate().flat_map(|(k, u)| [(self.t_controls[k], u[j]), (self.t_controls[k + 1], u[j])]).collect();
            uc.draw_series(LineSeries::new(pts, color.stroke_width(2)))?;
        }
        // Step sizes.
        let h_max = self.h.iter().copied().fold(0.0, f64::max).max(1e-12);
        let mut hc = ChartBuilder::on(&bottom)
            .margin(12)
            .x_label_area_size(30)
            .y_label_area_size(60)
            .build_cartesian_2d(0.0..t_end, 0.0..1.1 * h_max)?;
        hc.configure_mesh().x_desc("t").y_desc("h").draw()?;
        let steps: Vec<(f64, f64)> = self.h.iter().enumerate().flat_map(|(e, h)| [(self.t[e], *h), (self.t[e + 1], *h)]).collect();
        hc.draw_series(LineSeries::new(steps, BLUE.stroke_width(2)))?;
        for &ts in &self.switch_times {
            hc.draw_series(LineSeries::new([(ts, 0.0), (ts, 1.1 * h_max)], RED.mix(0.5)))?;
        }
        root.present()?;
        Ok(())
    }
}
