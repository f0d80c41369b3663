//! `balance --plot FILE.svg`: each node's weighted load, as a multiple of
//! its fair share, before (grey) and after (blue) the overrides, with the
//! bound c drawn across. The nodes shown are the most loaded before (at
//! most [`SHOWN`]), so the picture's size is bounded whatever the table's.

use std::path::Path;

use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use crate::out::destination::{self, Pending};

/// The most nodes drawn.
const SHOWN: usize = 30;
const ROW: i32 = 9;
const LABEL: i32 = 120;
const BAR_WIDTH: i32 = 360;
const MARGIN: i32 = 20;
const TITLE: i32 = 62;

/// What the picture shows.
pub struct BalancePicture<'a> {
    /// The tables' fingerprints, `jt1:... -> jt1:...`.
    pub tables: String,
    /// Each node's name, load before and after, relative to its share.
    pub nodes: Vec<(&'a str, f64, f64)>,
    /// The factor c.
    pub factor: f64,
    /// The fraction of the weight moved.
    pub moved: f64,
    /// max/mean over every node, before and after.
    pub peaks: (f64, f64),
}

/// Draws `picture` to the SVG file at `path` (`-`: standard output), to
/// be committed with the command's other outputs.
pub fn prepare(path: &Path, picture: &BalancePicture<'_>) -> Result<Pending, String> {
    let svg = render(picture).map_err(|e| format!("cannot draw {}: {e}", path.display()))?;
    destination::prepare_whole(path, svg.as_bytes())
}

fn render(p: &BalancePicture<'_>) -> Result<String, Box<dyn std::error::Error>> {
    let mut nodes = p.nodes.clone();
    nodes.sort_by(|a, b| b.1.total_cmp(&a.1));
    nodes.truncate(SHOWN);
    let peak = |i: usize| nodes.iter().map(|n| [n.1, n.2][i]).fold(0.0, f64::max);
    let scale = peak(0)
        .max(peak(1))
        .max(if p.factor.is_finite() { p.factor } else { 0.0 })
        .max(1.0);
    let height = TITLE + 2 * ROW * nodes.len() as i32 + 2 * MARGIN;
    let width = MARGIN + LABEL + BAR_WIDTH + 80;
    let mut svg = String::new();
    {
        let root =
            SVGBackend::with_string(&mut svg, (width as u32, height as u32)).into_drawing_area();
        root.fill(&WHITE)?;
        let text = |size: u32| TextStyle::from(("sans-serif", size).into_font()).color(&BLACK);
        root.draw(&Text::new(
            format!(
                "balance: max/mean {:.3} -> {:.3}, c = {}, {:.2}% of the weight moved",
                p.peaks.0,
                p.peaks.1,
                p.factor,
                100.0 * p.moved
            ),
            (MARGIN, MARGIN),
            text(15),
        ))?;
        root.draw(&Text::new(
            format!("tables {}", p.tables),
            (MARGIN, MARGIN + 20),
            text(11),
        ))?;
        root.draw(&Text::new(
            "load / fair share: before (grey), after (blue); the bound in red",
            (MARGIN, MARGIN + 36),
            text(11),
        ))?;
        let x0 = MARGIN + LABEL;
        let x = |v: f64| x0 + (f64::from(BAR_WIDTH) * v / scale) as i32;
        for (i, (node, before, after)) in nodes.iter().enumerate() {
            let y = TITLE + 2 * ROW * i as i32;
            root.draw(&Text::new(
                node.to_string(),
                (x0 - 6, y + ROW),
                text(10).pos(Pos::new(HPos::Right, VPos::Center)),
            ))?;
            for (row, load, color) in [
                (0, before, RGBColor(170, 170, 170)),
                (1, after, RGBColor(60, 110, 200)),
            ] {
                let y = y + row * ROW;
                root.draw(&Rectangle::new(
                    [(x0, y + 1), (x(*load).max(x0 + 1), y + ROW - 1)],
                    color.filled(),
                ))?;
            }
        }
        if p.factor.is_finite() {
            let bound = x(p.factor);
            root.draw(&PathElement::new(
                [(bound, TITLE), (bound, height - MARGIN)],
                RGBColor(200, 40, 40).stroke_width(2),
            ))?;
        }
        root.present()?;
    }
    Ok(svg)
}
