//! The `eval` command's SVG plot: how far apart near-duplicate and distinct pairs are under
//! the best config, with its *k* marked: the picture to choose *k* from.

use std::path::Path;

use plotters::prelude::*;
use tantivy_dedup::eval::{EvalReport, NO_FINGERPRINT};

/// Draws the distance distributions of the best config of `report` into `path`.
pub fn plot(report: &EvalReport, path: &Path) -> anyhow::Result<()> {
    let best = &report.configs[report.best_config];
    let fractions = |counts: &[u64]| -> Vec<f64> {
        let total: u64 = counts[..NO_FINGERPRINT].iter().sum();
        counts[..NO_FINGERPRINT]
            .iter()
            .map(|&c| c as f64 / total.max(1) as f64)
            .collect()
    };
    let positive = fractions(&best.counts.positive);
    let negative = fractions(&best.counts.negative);
    let top = positive
        .iter()
        .chain(&negative)
        .copied()
        .fold(0.0, f64::max)
        .max(0.01)
        * 1.1;
    let root = SVGBackend::new(path, (960, 540)).into_drawing_area();
    root.fill(&WHITE)?;
    let mut chart = ChartBuilder::on(&root)
        .caption(
            format!("{}: distances under {}", report.set, best.name),
            ("sans-serif", 22),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(0u32..64u32, 0f64..top)?;
    chart
        .configure_mesh()
        .x_desc("Hamming distance between the two fingerprints (bits)")
        .y_desc("fraction of the pairs")
        .draw()?;
    let near = RGBColor(0x1f, 0x77, 0xb4);
    let distinct = RGBColor(0xd6, 0x27, 0x28);
    let series = |values: &[f64]| -> Vec<(u32, f64)> {
        values
            .iter()
            .enumerate()
            .map(|(d, &f)| (d as u32, f))
            .collect()
    };
    chart
        .draw_series(AreaSeries::new(series(&positive), 0.0, near.mix(0.25)).border_style(near))?
        .label(format!("near-duplicate pairs ({})", report.positives))
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], near.filled()));
    chart
        .draw_series(
            AreaSeries::new(series(&negative), 0.0, distinct.mix(0.25)).border_style(distinct),
        )?
        .label(format!("distinct pairs ({})", report.negatives))
        .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 20, y + 5)], distinct.filled()));
    let k = best.best.k;
    chart
        .draw_series(LineSeries::new(
            vec![(k, 0.0), (k, top)],
            BLACK.stroke_width(2),
        ))?
        .label(format!(
            "best k = {k}: precision {:.3}, recall {:.3}, F1 {:.3}",
            best.best.scores.precision, best.best.scores.recall, best.best.scores.f1
        ))
        .legend(|(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], BLACK.stroke_width(2)));
    let k0 = report.default_k;
    if k0 != k {
        let at = &best.at_default_k;
        let grey = RGBColor(0x7f, 0x7f, 0x7f);
        chart
            .draw_series(LineSeries::new(
                vec![(k0, 0.0), (k0, top)],
                grey.stroke_width(2),
            ))?
            .label(format!(
                "k = {k0} (--distance): precision {:.3}, recall {:.3}, F1 {:.3}",
                at.scores.precision, at.scores.recall, at.scores.f1
            ))
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], grey.stroke_width(2))
            });
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .draw()?;
    root.present()?;
    Ok(())
}
