//! The `eval` command's Markdown tables.

use std::fmt::Write;

use tantivy_dedup::eval::{CategoryResult, ConfigResult, EvalReport};
use tantivy_dedup::fingerprint::FingerprintConfig;

/// The report of one set as Markdown: every config ranked by F1, the best config's sweep,
/// its figures by category (and the base config's, when it is in the grid), the two-stage
/// matchers.
pub fn markdown(report: &EvalReport, base: &FingerprintConfig) -> String {
    let mut out = String::new();
    let best = &report.configs[report.best_config];
    let k0 = report.default_k;
    let _ = writeln!(out, "# Evaluation: {}\n", report.set);
    let _ = writeln!(
        out,
        "{} documents; {} near-duplicate pairs, {} distinct pairs counted.\n",
        report.documents, report.positives, report.negatives
    );
    let _ = writeln!(out, "## Configs, best F1 first\n");
    let _ = writeln!(
        out,
        "| config | best k | P | R | F1 | P at k={k0} | R at k={k0} | F1 at k={k0} | ROC AUC | no fingerprint | seconds |"
    );
    let _ = writeln!(
        out,
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
    );
    let mut ranked: Vec<&ConfigResult> = report.configs.iter().collect();
    ranked.sort_by(|a, b| b.best.scores.f1.total_cmp(&a.best.scores.f1));
    for c in ranked {
        let _ = writeln!(
            out,
            "| {} | {} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {:.3} | {} | {} | {:.2} |",
            c.name,
            c.best.k,
            c.best.scores.precision,
            c.best.scores.recall,
            c.best.scores.f1,
            c.at_default_k.scores.precision,
            c.at_default_k.scores.recall,
            c.at_default_k.scores.f1,
            c.roc_auc.map_or("-".to_owned(), |a| format!("{a:.4}")),
            c.no_fingerprint,
            c.fingerprint_seconds,
        );
    }
    let _ = writeln!(out, "\n## Sweep of the best config ({})\n", best.name);
    let _ = writeln!(out, "| k | TP | FP | FN | precision | recall | F1 |");
    let _ = writeln!(out, "|---:|---:|---:|---:|---:|---:|---:|");
    for p in &best.sweep {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.4} | {:.4} | {:.4} |",
            p.k,
            p.scores.true_positives,
            p.scores.false_positives,
            p.scores.false_negatives,
            p.scores.precision,
            p.scores.recall,
            p.scores.f1
        );
    }
    categories(&mut out, best, k0);
    if let Some(given) = report
        .configs
        .iter()
        .find(|c| &c.config == base && c.name != best.name)
    {
        categories(&mut out, given, k0);
    }
    if !report.verify.is_empty() {
        let _ = writeln!(
            out,
            "\n## Two-stage: candidates within loose k of the best and the default config, verified\n"
        );
        let _ = writeln!(
            out,
            "| config | method | loose k | candidates | threshold | TP | FP | FN | precision | recall | F1 |"
        );
        let _ = writeln!(
            out,
            "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
        );
        for v in &report.verify {
            let b = &v.best;
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {:.3} | {} | {} | {} | {:.4} | {:.4} | {:.4} |",
                v.config,
                v.method,
                v.loose_k,
                v.candidates,
                b.threshold,
                b.scores.true_positives,
                b.scores.false_positives,
                b.scores.false_negatives,
                b.scores.precision,
                b.scores.recall,
                b.scores.f1
            );
        }
    }
    out
}

fn categories(out: &mut String, config: &ConfigResult, k0: u32) {
    if config.categories.is_empty() {
        return;
    }
    let _ = writeln!(
        out,
        "\n## By kind of pair: {} (recall for near-duplicates, false-positive rate for distinct pairs)\n",
        config.name
    );
    let _ = writeln!(
        out,
        "| kind | rate | label | pairs | called near at k={} | at k={k0} |",
        config.best.k
    );
    let _ = writeln!(out, "|---|---:|---|---:|---:|---:|");
    let mut rows: Vec<&CategoryResult> = config.categories.iter().collect();
    rows.sort_by(|a, b| {
        (b.label, &a.kind)
            .cmp(&(a.label, &b.kind))
            .then(a.rate.unwrap_or(0.0).total_cmp(&b.rate.unwrap_or(0.0)))
    });
    for c in rows {
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {:.3} | {} |",
            if c.kind.is_empty() { "-" } else { &c.kind },
            c.rate.map_or("-".to_owned(), |r| format!("{r:.2}")),
            if c.label { "near" } else { "distinct" },
            c.pairs,
            c.near_at_best,
            c.near_at_default
                .map_or("-".to_owned(), |f| format!("{f:.3}")),
        );
    }
}
