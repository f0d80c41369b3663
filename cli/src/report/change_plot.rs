//! `--plot FILE.svg` of `reshard --from-nodes` and `remove`: a picture of a
//! change of node table. On the left, each node's load before (grey) and
//! after (blue) as bars; on the right, the transfer matrix as a heatmap,
//! one row per old node and one column per new node, darker for more keys
//! (with the count written in each cell while the table is small).
//!
//! Drawn with plotters' SVG backend alone: the layout is computed here, so
//! no font files are needed; the SVG is rendered in memory, then written
//! atomically.

use std::collections::BTreeMap;
use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::change_summary::ChangeSummary;
use crate::out::atomic::AtomicFile;

/// Pixels per row of the bar chart and per heatmap cell.
const ROW: i32 = 18;
/// Room for node names.
const LABEL: i32 = 120;
const BAR_WIDTH: i32 = 300;
const MARGIN: i32 = 20;
const TITLE: i32 = 40;
/// Counts are written in the cells up to this many nodes.
const NUMBERED: usize = 16;

/// Draws `summary` (titled `title`) to the SVG file at `path`.
pub fn write(path: &Path, title: &str, summary: &ChangeSummary) -> Result<(), String> {
    let svg = render(title, summary).map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    let mut file = AtomicFile::create(path)?;
    file.write_all(svg.as_bytes())?;
    file.commit()
}

/// The SVG text of the picture.
pub fn render(title: &str, s: &ChangeSummary) -> Result<String, Box<dyn std::error::Error>> {
    let before: BTreeMap<&str, u64> = s
        .load_before
        .iter()
        .map(|(k, v)| (k.as_str(), *v))
        .collect();
    let after: BTreeMap<&str, u64> = s.load_after.iter().map(|(k, v)| (k.as_str(), *v)).collect();
    // Every node once: the old table's, then the new-only ones.
    let mut nodes: Vec<&str> = s.load_before.iter().map(|(k, _)| k.as_str()).collect();
    nodes.extend(
        s.load_after
            .iter()
            .map(|(k, _)| k.as_str())
            .filter(|k| !before.contains_key(k)),
    );
    let olds: Vec<&str> = s.load_before.iter().map(|(k, _)| k.as_str()).collect();
    let news: Vec<&str> = s.load_after.iter().map(|(k, _)| k.as_str()).collect();
    let cell = if nodes.len() <= NUMBERED {
        2 * ROW
    } else {
        ROW
    };
    let bars_height = ROW * 2 * nodes.len() as i32;
    let map_height = cell * olds.len() as i32 + LABEL;
    let height = TITLE + MARGIN + bars_height.max(map_height) + 2 * MARGIN;
    let map_left = MARGIN + LABEL + BAR_WIDTH + 3 * MARGIN + LABEL;
    let width = map_left + cell * news.len() as i32 + MARGIN;

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

        // Loads before and after, one pair of bars per node.
        let top = TITLE + MARGIN;
        root.draw(&Text::new(
            "keys per node: before (grey), after (blue)",
            (MARGIN, top - 16),
            text(12),
        ))?;
        let max_load = before
            .values()
            .chain(after.values())
            .copied()
            .max()
            .unwrap_or(0)
            .max(1);
        let x0 = MARGIN + LABEL;
        for (i, node) in nodes.iter().enumerate() {
            let y = top + 2 * ROW * i as i32;
            root.draw(&Text::new(node.to_string(), (x0 - 6, y + ROW), right(12)))?;
            for (row, load, color) in [
                (0, before.get(node), RGBColor(170, 170, 170)),
                (1, after.get(node), RGBColor(60, 110, 200)),
            ] {
                let load = load.copied().unwrap_or(0);
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
        let max_transfer = s
            .transfers
            .values()
            .flat_map(|t| t.values())
            .copied()
            .max()
            .unwrap_or(0)
            .max(1);
        for (r, from) in olds.iter().enumerate() {
            let y = top + cell * r as i32;
            root.draw(&Text::new(
                from.to_string(),
                (map_left - 6, y + cell / 2),
                right(12),
            ))?;
            for (c, to) in news.iter().enumerate() {
                let x = map_left + cell * c as i32;
                let n = s
                    .transfers
                    .get(*from)
                    .and_then(|t| t.get(*to))
                    .copied()
                    .unwrap_or(0);
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
                if n > 0 && nodes.len() <= NUMBERED {
                    root.draw(&Text::new(
                        n.to_string(),
                        (x + cell / 2, y + cell / 2),
                        text(9).pos(Pos::new(HPos::Center, VPos::Center)),
                    ))?;
                }
            }
        }
        // Column names, written downwards under the matrix.
        let below = top + cell * olds.len() as i32 + 6;
        for (c, to) in news.iter().enumerate() {
            let x = map_left + cell * c as i32 + cell / 2;
            let style = text(12)
                .transform(FontTransform::Rotate90)
                .pos(Pos::new(HPos::Left, VPos::Center));
            root.draw(&Text::new(to.to_string(), (x, below), style))?;
        }
        root.present()?;
    }
    Ok(svg)
}
