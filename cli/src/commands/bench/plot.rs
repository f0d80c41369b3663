//! `jumpshard bench --plot FILE.svg`: the benchmark's results as an SVG
//! line chart, one line per kernel and one for the Figure 1 reference.
//! Without `--sizes`: Mkeys/s against N; with it: ns per key against keys
//! per call, one panel per N. Both axes that span decades are logarithmic.
//! With `--placement`, one bar per call: its ratio to Figure 1, on a
//! logarithmic axis with Figure 1 itself marked.
//! The chart is made in memory, then written atomically (`-`: to standard
//! output).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::kernels::Row;
use super::placement::Report;
use super::sizes::SizeRow;
use crate::out::destination;

/// One line of a chart: its legend and its points.
struct Line {
    name: String,
    points: Vec<(f64, f64)>,
}

/// The lines of `rows`, one per (kernel, division) in first-seen order.
fn lines<R>(
    rows: &[R],
    name: impl Fn(&R) -> String,
    point: impl Fn(&R) -> (f64, f64),
) -> Vec<Line> {
    let mut lines: Vec<Line> = Vec::new();
    for r in rows {
        let name = name(r);
        match lines.iter_mut().find(|l| l.name == name) {
            Some(line) => line.points.push(point(r)),
            None => lines.push(Line {
                name,
                points: vec![point(r)],
            }),
        }
    }
    lines
}

fn label(kernel: &str, division: &str) -> String {
    if kernel == "reference" {
        "Figure 1 (C++)".into()
    } else {
        format!("{kernel} ({division})")
    }
}

/// Mkeys/s against N.
pub fn throughput(path: &Path, rows: &[Row]) -> Result<(), String> {
    let lines = lines(
        rows,
        |r| label(r.kernel, r.division),
        |r| (f64::from(r.buckets), r.mkeys_per_s),
    );
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, 560)).into_drawing_area();
        draw(
            &root,
            &lines,
            "jumpshard: single-thread throughput",
            "N (buckets)",
            "Mkeys/s",
        )?;
        root.present()
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    destination::write_whole(path, svg.as_bytes())
}

/// ns per key against keys per call, one panel per N.
pub fn sizes(path: &Path, rows: &[SizeRow]) -> Result<(), String> {
    let mut counts: Vec<u32> = rows.iter().map(|r| r.buckets).collect();
    counts.dedup();
    let mut svg = String::new();
    let root =
        SVGBackend::with_string(&mut svg, (900, 520 * counts.len() as u32)).into_drawing_area();
    let panels = root.split_evenly((counts.len(), 1));
    for (panel, &n) in panels.iter().zip(&counts) {
        let of_n: Vec<&SizeRow> = rows.iter().filter(|r| r.buckets == n).collect();
        let lines = lines(
            &of_n,
            |r| label(r.kernel, r.division),
            |r| (r.keys_per_call as f64, r.ns_per_key),
        );
        let title = format!("jumpshard::batch, N = {n}: time per key against keys per call");
        draw(panel, &lines, &title, "keys per call", "ns per key")?;
    }
    root.present()
        .map_err(|e| format!("{}: {e}", path.display()))?;
    drop(panels);
    drop(root);
    destination::write_whole(path, svg.as_bytes())
}

/// One horizontal bar per call, its length the ratio to Figure 1 (log
/// scale), named and labelled with the ratio; a line marks 1x.
pub fn placement(path: &Path, report: &Report) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| format!("plot: {e}");
    let rows = &report.rows;
    let (lo, hi) = bounds(rows.iter().map(|r| r.ratio_vs_reference).chain([1.0]));
    let (x_min, x_max) = (lo / 2.0, hi * 2.0);
    let height = 120 + 36 * rows.len() as u32;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, (900, height)).into_drawing_area();
        root.fill(&WHITE).map_err(err)?;
        let title = format!(
            "jumpshard, N = {}, {} keys: speed as a ratio to Figure 1 (C++)",
            report.buckets, report.keys
        );
        let mut chart = ChartBuilder::on(&root)
            .caption(title, ("sans-serif", 18))
            .margin(12)
            .x_label_area_size(40)
            .build_cartesian_2d((x_min..x_max).log_scale(), -0.5..rows.len() as f64 - 0.5)
            .map_err(err)?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(0)
            .x_desc(format!("x Figure 1 ({}; {})", report.kernel, report.cpu))
            .x_label_formatter(&|x| tick(*x))
            .draw()
            .map_err(err)?;
        for (i, r) in rows.iter().enumerate() {
            // The first row at the top.
            let y = (rows.len() - 1 - i) as f64;
            let color = Palette99::pick(i).to_rgba();
            chart
                .draw_series([Rectangle::new(
                    [(x_min, y - 0.35), (r.ratio_vs_reference, y + 0.35)],
                    color.filled(),
                )])
                .map_err(err)?;
            chart
                .draw_series([Text::new(
                    format!("{} {:.2}x", r.call, r.ratio_vs_reference),
                    (x_min * 1.05, y + 0.3),
                    ("sans-serif", 14),
                )])
                .map_err(err)?;
        }
        chart
            .draw_series(LineSeries::new(
                [(1.0, -0.5), (1.0, rows.len() as f64 - 0.5)],
                BLACK.stroke_width(1),
            ))
            .map_err(err)?;
        root.present()
            .map_err(|e| format!("{}: {e}", path.display()))?;
    }
    destination::write_whole(path, svg.as_bytes())
}

/// A log-log chart of `lines` with a legend.
fn draw(
    area: &DrawingArea<SVGBackend<'_>, Shift>,
    lines: &[Line],
    title: &str,
    x_desc: &str,
    y_desc: &str,
) -> Result<(), String> {
    let err = |e: DrawingAreaErrorKind<_>| format!("plot: {e}");
    let all = || lines.iter().flat_map(|l| l.points.iter());
    let (x_min, x_max) = bounds(all().map(|p| p.0));
    let (y_min, y_max) = bounds(all().map(|p| p.1));
    area.fill(&WHITE).map_err(err)?;
    let mut chart = ChartBuilder::on(area)
        .caption(title, ("sans-serif", 20))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(60)
        .build_cartesian_2d(
            (x_min / 1.5..x_max * 1.5).log_scale(),
            (y_min / 1.5..y_max * 1.5).log_scale(),
        )
        .map_err(err)?;
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(y_desc)
        .x_label_formatter(&|x| tick(*x))
        .y_label_formatter(&|y| tick(*y))
        .draw()
        .map_err(err)?;
    for (i, line) in lines.iter().enumerate() {
        let color = Palette99::pick(i).to_rgba();
        chart
            .draw_series(LineSeries::new(
                line.points.iter().copied(),
                color.stroke_width(2),
            ))
            .map_err(err)?
            .label(line.name.as_str())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], color));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()
        .map_err(err)
}

/// An axis label: whole numbers without decimals, small ones with one.
fn tick(v: f64) -> String {
    if v >= 10.0 {
        format!("{v:.0}")
    } else {
        format!("{v:.1}")
    }
}

/// The smallest and largest positive value (1 and 10 when there is none).
fn bounds(values: impl Iterator<Item = f64>) -> (f64, f64) {
    let (lo, hi) = values
        .filter(|v| v.is_finite() && *v > 0.0)
        .fold((f64::INFINITY, 0.0f64), |(lo, hi), v| {
            (lo.min(v), hi.max(v))
        });
    if hi > 0.0 {
        (lo, hi)
    } else {
        (1.0, 10.0)
    }
}
