//! The output layer of every result (simulation, rigid-body simulation, optimal
//! control): a [`Trajectory`] table of named columns over time, written as CSV, the
//! whole result as JSON ([`write_json`]), and a [`Figure`] of panels drawn as PNG or
//! SVG (feature `plot`).
//!
//! ```
//! use fesd_output::Trajectory;
//! let mut table = Trajectory::new(&[0.0, 0.5, 1.0]);
//! table.add_columns("x", &[vec![1.0, 2.0], vec![1.5, 2.5], vec![2.0, 3.0]]).unwrap();
//! table.add_column("h", &[0.5, 0.5]).unwrap(); // one value short: empty on the last row
//! assert_eq!(table.columns, ["t", "x_0", "x_1", "h"]);
//! assert!(table.to_csv().ends_with("1.00000000000000000e0,2.00000000000000000e0,3.00000000000000000e0,\n"));
//! ```

#[cfg(feature = "plot")]
mod figure;

use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

#[cfg(feature = "plot")]
pub use figure::register_font;

/// Why an output could not be made.
#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    /// Writing or drawing the file failed.
    #[error("writing {path}: {reason}")]
    Write {
        /// The file.
        path: PathBuf,
        /// Why.
        reason: String,
    },
    /// The data does not fit the table or the figure.
    #[error("{what}: {reason}")]
    Shape {
        /// What was added.
        what: String,
        /// Why it does not fit.
        reason: String,
    },
}

/// Result alias of this crate.
pub type Result<T> = std::result::Result<T, OutputError>;

fn write_err(path: &Path, e: impl std::fmt::Display) -> OutputError {
    OutputError::Write { path: path.to_path_buf(), reason: e.to_string() }
}

/// A trajectory as a table: one row per time point, named columns, the first `t`.
/// A NaN is "no value here" (empty in CSV), e.g. the step size of the element starting
/// at the last time point.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Trajectory {
    /// Column names.
    pub columns: Vec<String>,
    /// One row per time point, as long as `columns`.
    pub rows: Vec<Vec<f64>>,
}

impl Trajectory {
    /// A table with the time column `t` only.
    pub fn new(t: &[f64]) -> Trajectory {
        Trajectory { columns: vec!["t".into()], rows: t.iter().map(|t| vec![*t]).collect() }
    }

    /// Adds the column `name` with a value per row; fewer values leave the last rows
    /// empty. More values than rows is an error.
    pub fn add_column(&mut self, name: &str, values: &[f64]) -> Result<()> {
        if values.len() > self.rows.len() {
            return Err(OutputError::Shape { what: name.into(), reason: format!("{} values for {} rows", values.len(), self.rows.len()) });
        }
        self.columns.push(name.into());
        for (k, row) in self.rows.iter_mut().enumerate() {
            row.push(values.get(k).copied().unwrap_or(f64::NAN));
        }
        Ok(())
    }

    /// Adds the columns `name_0 … name_{n−1}` from a vector per row (n the first
    /// vector's length; fewer vectors leave the last rows empty).
    pub fn add_columns(&mut self, name: &str, values: &[Vec<f64>]) -> Result<()> {
        let n = values.first().map_or(0, Vec::len);
        if let Some(bad) = values.iter().position(|v| v.len() != n) {
            return Err(OutputError::Shape {
                what: name.into(),
                reason: format!("row {bad} has {} entries, the first {n}", values[bad].len()),
            });
        }
        for i in 0..n {
            let column: Vec<f64> = values.iter().map(|v| v[i]).collect();
            self.add_column(&format!("{name}_{i}"), &column)?;
        }
        Ok(())
    }

    /// The values of column `name` (NaN where empty).
    pub fn column(&self, name: &str) -> Option<Vec<f64>> {
        let i = self.columns.iter().position(|c| c == name)?;
        Some(self.rows.iter().map(|r| r[i]).collect())
    }

    /// The table as CSV: a header line, then every value with 17 significant digits
    /// (round-trip exact), empty where there is none.
    pub fn to_csv(&self) -> String {
        let mut s = self.columns.join(",");
        s.push('\n');
        for row in &self.rows {
            let cells: Vec<String> = row.iter().map(|v| if v.is_nan() { String::new() } else { format!("{v:.17e}") }).collect();
            s.push_str(&cells.join(","));
            s.push('\n');
        }
        s
    }

    /// Writes [`Trajectory::to_csv`] to `path`.
    pub fn write_csv(&self, path: &Path) -> Result<()> {
        std::fs::write(path, self.to_csv()).map_err(|e| write_err(path, e))
    }
}

/// Writes `value` as pretty JSON to `path`.
pub fn write_json<T: Serialize>(value: &T, path: &Path) -> Result<()> {
    let text = serde_json::to_string_pretty(value).map_err(|e| write_err(path, e))?;
    std::fs::write(path, text).map_err(|e| write_err(path, e))
}

/// One line of a panel: its points and, if any, its legend label.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Line {
    /// Legend label (`None`: no legend entry).
    pub label: Option<String>,
    /// The points, joined in order.
    pub points: Vec<(f64, f64)>,
    /// Also mark every point with a dot.
    pub dots: bool,
}

impl Line {
    /// A labelled line through `points`.
    pub fn new(label: impl Into<String>, points: Vec<(f64, f64)>) -> Line {
        Line { label: Some(label.into()), points, dots: false }
    }

    /// The step line of piecewise-constant values: `values[k]` on `[edges[k], edges[k+1]]`.
    pub fn steps(label: Option<String>, edges: &[f64], values: &[f64]) -> Line {
        let points = values.iter().enumerate().flat_map(|(k, v)| [(edges[k], *v), (edges[k + 1], *v)]).collect();
        Line { label, points, dots: false }
    }
}

/// One panel of a figure: lines over a common x axis, vertical marker lines (switch
/// times, impacts) and marked points.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Panel {
    /// Label of the x axis (empty: none).
    pub x_label: String,
    /// Label of the y axis.
    pub y_label: String,
    /// The lines.
    pub lines: Vec<Line>,
    /// x positions of vertical marker lines.
    pub markers: Vec<f64>,
    /// Points marked with a circle.
    pub marks: Vec<(f64, f64)>,
    /// Start the y axis at zero (e.g. step sizes).
    pub from_zero: bool,
    /// Relative height of the panel in its figure.
    pub weight: u32,
}

/// Panels stacked vertically under a title.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Figure {
    /// The title, above the first panel.
    pub title: String,
    /// Width and height in pixels.
    pub size: (u32, u32),
    /// The panels, top to bottom.
    pub panels: Vec<Panel>,
}
