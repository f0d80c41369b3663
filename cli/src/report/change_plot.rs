//! `--plot FILE.svg` of `reshard --from-nodes` and `remove`: a picture of a
//! change of node table. On the left, each node's load before (grey) and
//! after (blue) as bars; on the right, the transfer matrix as a heatmap,
//! one row per old node and one column per new node, darker for more keys
//! (with the count written in each cell while the table is small).
//!
//! Its size is bounded whatever the tables': the bars are those of the
//! nodes the summary lists (`ChangeSummary::top_loads`) and one pair for
//! the mean of the others; the matrix has at most [`AXIS`] rows and
//! columns, the nodes sending (or receiving) the most keys and one row
//! (column) for all the others.
//!
//! Drawn with plotters' SVG backend alone: the layout is computed here, so
//! no font files are needed; the SVG is rendered in memory, then written
//! atomically.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::change_summary::ChangeSummary;
use crate::out::destination::{self, Pending};

/// Pixels per row of the bar chart and per heatmap cell.
const ROW: i32 = 18;
/// Room for node names.
const LABEL: i32 = 120;
const BAR_WIDTH: i32 = 300;
const MARGIN: i32 = 20;
const TITLE: i32 = 56;
/// Counts are written in the cells up to this many nodes.
const NUMBERED: usize = 16;
/// The most rows, and columns, of the transfer matrix, "other" included.
const AXIS: usize = 16;

/// Draws `summary` (titled `title`, with the fingerprints of the tables
/// under it, `jt1:... -> jt1:...`) to the SVG file at `path` (`-`:
/// standard output), to be committed with the command's other outputs.
pub fn prepare(
    path: &Path,
    title: &str,
    tables: &str,
    summary: &ChangeSummary,
) -> Result<Pending, String> {
    let svg = render(title, tables, summary)
        .map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    destination::prepare_whole(path, svg.as_bytes())
}

/// One axis of the transfer matrix: the labels, and each node's index
/// among them (the last label is "other" when nodes share it).
struct Axis<'a> {
    labels: Vec<String>,
    index: BTreeMap<&'a str, usize>,
}

impl<'a> Axis<'a> {
    /// Every node of `nodes`, or the [`AXIS`] - 1 with the most keys in
    /// `volume` and "other" for the rest.
    fn new(nodes: &[&'a str], volume: &BTreeMap<&str, u64>) -> Axis<'a> {
        if nodes.len() <= AXIS {
            return Axis {
                labels: nodes.iter().map(|n| n.to_string()).collect(),
                index: nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect(),
            };
        }
        let keys = |n: &str| volume.get(n).copied().unwrap_or(0);
        let mut order: Vec<usize> = (0..nodes.len()).collect();
        order.sort_by(|&a, &b| keys(nodes[b]).cmp(&keys(nodes[a])).then(a.cmp(&b)));
        let mut shown: Vec<usize> = order[..AXIS - 1].to_vec();
        shown.sort_unstable();
        let mut index: BTreeMap<&str, usize> = nodes.iter().map(|n| (*n, AXIS - 1)).collect();
        let mut labels: Vec<String> = Vec::with_capacity(AXIS);
        for (row, &i) in shown.iter().enumerate() {
            index.insert(nodes[i], row);
            labels.push(nodes[i].to_string());
        }
        labels.push(format!("other {} nodes", nodes.len() - shown.len()));
        Axis { labels, index }
    }
}

/// The SVG text of the picture.
pub fn render(
    title: &str,
    tables: &str,
    s: &ChangeSummary,
) -> Result<String, Box<dyn std::error::Error>> {
    let loads = s.top_loads();
    // The listed nodes' bars, then the others' mean.
    let mut bars: Vec<(String, Option<u64>, Option<u64>)> = loads
        .rows
        .iter()
        .map(|(node, before, after)| (node.to_string(), *before, *after))
        .collect();
    if loads.rest_nodes > 0 {
        let mean = |keys: u64| Some(keys / loads.rest_nodes as u64);
        bars.push((
            format!("other {} nodes (mean)", loads.rest_nodes),
            mean(loads.rest_before),
            mean(loads.rest_after),
        ));
    }
    let olds: Vec<&str> = s.load_before.iter().map(|(k, _)| k.as_str()).collect();
    let news: Vec<&str> = s.load_after.iter().map(|(k, _)| k.as_str()).collect();
    let mut sent: BTreeMap<&str, u64> = BTreeMap::new();
    let mut received: BTreeMap<&str, u64> = BTreeMap::new();
    let name = |i: u32| s.names[i as usize].as_str();
    for &(from, to, n) in &s.transfers {
        *sent.entry(name(from)).or_default() += n;
        *received.entry(name(to)).or_default() += n;
    }
    let rows = Axis::new(&olds, &sent);
    let columns = Axis::new(&news, &received);
    let mut matrix = vec![vec![0u64; columns.labels.len()]; rows.labels.len()];
    for &(from, to, n) in &s.transfers {
        if let (Some(&r), Some(&c)) = (rows.index.get(name(from)), columns.index.get(name(to))) {
            matrix[r][c] += n;
        }
    }
    let numbered =
        bars.len() <= NUMBERED && rows.labels.len().max(columns.labels.len()) <= NUMBERED;
    let cell = if numbered { 2 * ROW } else { ROW };
    let bars_height = ROW * 2 * bars.len() as i32;
    let map_height = cell * rows.labels.len() as i32 + LABEL;
    let height = TITLE + MARGIN + bars_height.max(map_height) + 2 * MARGIN;
    let map_left = MARGIN + LABEL + BAR_WIDTH + 3 * MARGIN + LABEL;
    let width = map_left + cell * columns.labels.len() as i32 + MARGIN;

    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE)?;
        let text = |size: u32| TextStyle::from(("sans-serif", size).into_font()).color(&BLACK);
        let right = |size: u32| text(size).pos(Pos::new(HPos::Right, VPos::Center));
        root.draw(&Text::new(
            format!(
                "{title}: {} of {} keys move; max/mean load {:.3} -> {:.3}",
                s.moved, s.keys, s.max_over_mean_before, s.max_over_mean_after
            ),
            (MARGIN, MARGIN),
            text(16),
        ))?;
        root.draw(&Text::new(
            format!("tables {tables}"),
            (MARGIN, MARGIN + 20),
            text(11),
        ))?;

        // Loads before and after, one pair of bars per node.
        let top = TITLE + MARGIN;
        root.draw(&Text::new(
            "keys per node: before (grey), after (blue)",
            (MARGIN, top - 16),
            text(12),
        ))?;
        let max_load = bars
            .iter()
            .flat_map(|b| [b.1, b.2])
            .flatten()
            .max()
            .unwrap_or(0)
            .max(1);
        let x0 = MARGIN + LABEL;
        for (i, (node, before, after)) in bars.iter().enumerate() {
            let y = top + 2 * ROW * i as i32;
            root.draw(&Text::new(node.clone(), (x0 - 6, y + ROW), right(12)))?;
            for (row, load, color) in [
                (0, before, RGBColor(170, 170, 170)),
                (1, after, RGBColor(60, 110, 200)),
            ] {
                let load = load.unwrap_or(0);
                let len = (i64::from(BAR_WIDTH) * load as i64 / max_load as i64) as i32;
                let y = y + row * ROW;
                root.draw(&Rectangle::new(
                    [(x0, y + 2), (x0 + len.max(1), y + ROW - 2)],
                    color.filled(),
                ))?;
                root.draw(&Text::new(
                    load.to_string(),
                    (x0 + len + 4, y + ROW / 2),
                    text(10).pos(Pos::new(HPos::Left, VPos::Center)),
                ))?;
            }
        }

        // The transfer matrix: rows old nodes, columns new nodes.
        root.draw(&Text::new(
            "transfers: from (rows) -> to (columns)",
            (map_left - LABEL, top - 16),
            text(12),
        ))?;
        let max_transfer = matrix.iter().flatten().copied().max().unwrap_or(0).max(1);
        for (r, from) in rows.labels.iter().enumerate() {
            let y = top + cell * r as i32;
            root.draw(&Text::new(
                from.clone(),
                (map_left - 6, y + cell / 2),
                right(12),
            ))?;
            for (c, &n) in matrix[r].iter().enumerate() {
                let x = map_left + cell * c as i32;
                let shade = 255 - (200 * n / max_transfer) as u8;
                let fill = if n == 0 {
                    RGBColor(248, 248, 248)
                } else {
                    RGBColor(shade, shade, 255)
                };
                root.draw(&Rectangle::new(
                    [(x, y), (x + cell, y + cell)],
                    fill.filled(),
                ))?;
                root.draw(&Rectangle::new(
                    [(x, y), (x + cell, y + cell)],
                    RGBColor(220, 220, 220),
                ))?;
                if n > 0 && numbered {
                    root.draw(&Text::new(
                        n.to_string(),
                        (x + cell / 2, y + cell / 2),
                        text(9).pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
            }
        }
        // Column names, written downwards under the matrix.
        let below = top + cell * rows.labels.len() as i32 + 6;
        for (c, to) in columns.labels.iter().enumerate() {
            let x = map_left + cell * c as i32 + cell / 2;
            let style = text(12)
                .transform(FontTransform::Rotate90)
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(to.clone(), (x, below), style))?;
        }
        root.present()?;
    }
    Ok(svg)
}
