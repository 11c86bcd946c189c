//! Drawing a [`Figure`] with plotters: PNG or SVG by the file extension, the bundled
//! DejaVu Sans as the font, so plots render the same on machines without system fonts.

use crate::{write_err, Figure, Panel, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// Registers the bundled DejaVu Sans as plotters' "sans-serif" (once per process).
pub fn register_font() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let _ = plotters::style::register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular());
    });
}

/// `lo..hi` of `values` padded by 5 % (−1..1 without finite values; from zero if asked).
fn range(values: impl Iterator<Item = f64>, from_zero: bool) -> std::ops::Range<f64> {
    let (lo, hi) = values.filter(|v| v.is_finite()).fold((f64::INFINITY, f64::NEG_INFINITY), |(l, h), v| (l.min(v), h.max(v)));
    let (lo, hi) = if lo.is_finite() && hi.is_finite() { (lo, hi) } else { (-1.0, 1.0) };
    let pad = 0.05 * (hi - lo).max(1e-9);
    if from_zero {
        0.0..(hi + pad).max(1e-12)
    } else {
        (lo - pad)..(hi + pad)
    }
}

type DrawResult<'a> = std::result::Result<(), Box<dyn std::error::Error + 'a>>;

impl Figure {
    /// Draws the figure to `path` (SVG for a `.svg` extension, else PNG).
    pub fn draw(&self, path: &Path) -> Result<()> {
        register_font();
        if path.extension().is_some_and(|e| e.eq_ignore_ascii_case("svg")) {
            self.draw_on(SVGBackend::new(path, self.size).into_drawing_area()).map_err(|e| write_err(path, e))
        } else {
            self.draw_on(BitMapBackend::new(path, self.size).into_drawing_area()).map_err(|e| write_err(path, e))
        }
    }

    fn draw_on<DB: DrawingBackend>(&self, root: DrawingArea<DB, Shift>) -> DrawResult<'_>
    where
        DB::ErrorType: 'static,
    {
        root.fill(&WHITE)?;
        let total: u32 = self.panels.iter().map(|p| p.weight.max(1)).sum::<u32>().max(1);
        let mut rest = root.clone();
        for (k, panel) in self.panels.iter().enumerate() {
            let height = (self.size.1 * panel.weight.max(1) / total) as i32;
            let (area, below) = if k + 1 < self.panels.len() { rest.split_vertically(height) } else { (rest.clone(), rest.clone()) };
            draw_panel(&area, panel, if k == 0 { &self.title } else { "" })?;
            rest = below;
        }
        root.present()?;
        Ok(())
    }
}

fn draw_panel<'a, DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, panel: &'a Panel, title: &str) -> DrawResult<'a>
where
    DB::ErrorType: 'static,
{
    let points = || panel.lines.iter().flat_map(|l| l.points.iter()).chain(&panel.marks);
    let x = range(points().map(|p| p.0), false);
    let x = if panel.lines.iter().all(|l| l.points.first().is_none_or(|p| p.0 >= 0.0)) && x.start < 0.0 { 0.0..x.end } else { x };
    let y = range(points().map(|p| p.1), panel.from_zero);
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 22))
        .margin(12)
        .x_label_area_size(32)
        .y_label_area_size(60)
        .build_cartesian_2d(x, y.clone())?;
    chart.configure_mesh().x_desc(panel.x_label.as_str()).y_desc(panel.y_label.as_str()).draw()?;
    for &m in &panel.markers {
        chart.draw_series(LineSeries::new([(m, y.start), (m, y.end)], RED.mix(0.4)))?;
    }
    let mut labelled = false;
    for (i, line) in panel.lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        let series = chart.draw_series(LineSeries::new(line.points.clone(), color.stroke_width(2)))?;
        if let Some(label) = &line.label {
            series.label(label.as_str()).legend(move |(x, y)| PathElement::new([(x, y), (x + 18, y)], color.stroke_width(2)));
            labelled = true;
        }
        if line.dots {
            chart.draw_series(line.points.iter().map(|&p| Circle::new(p, 2, color.filled())))?;
        }
    }
    chart.draw_series(panel.marks.iter().map(|&p| Circle::new(p, 5, RED.filled())))?;
    if labelled {
        chart.configure_series_labels().background_style(WHITE.mix(0.8)).border_style(BLACK).draw()?;
    }
    Ok(())
}
