//! The content of a rendered report, once: sections of paragraphs, lists, tables and figure
//! slots, built from a [`Report`] and written out by the Markdown and HTML renderers, so both
//! say the same thing in the same order.

use super::model::{CanaryEvidence, DeidSummary, ProbeEvidence, Report, VocabularySummary};
use super::text::{
    estimate, find_tpr, num2, num3, opt_hash, opt_num3, outcome_sentence, outcome_word, percent,
    share, signed3, tpr_at, tpr_cell, NOT_MEASURED,
};
use crate::audit::run::{AttackResult, Outcome};

/// A plot the HTML page draws at this point (the Markdown names it and refers to the HTML).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// ROC curves of every attack, log-log.
    Roc,
    /// Member and non-member score histograms of the attack at this index.
    Histogram(usize),
    /// Name-like share per probe set with intervals and the threshold.
    NameLike,
    /// Exposure per canary by repeat group.
    Canary,
}

/// A table; `class` styles it in HTML (e.g. the sign-off table).
#[derive(Clone, Debug, Default)]
pub struct Table {
    pub head: Vec<String>,
    pub rows: Vec<Vec<String>>,
    pub class: Option<&'static str>,
}

#[derive(Clone, Debug)]
pub enum Block {
    Para(String),
    /// A paragraph rendered strong (e.g. the decision).
    Strong(String),
    Bullets(Vec<String>),
    Table(Table),
    /// Preformatted text (settings JSON, the command).
    Code(String),
    Figure(Figure),
}

/// A heading (level 2 or 3) and its blocks; `outcome` colours a decision or result section.
#[derive(Clone, Debug)]
pub struct Section {
    pub level: u8,
    pub title: String,
    pub outcome: Option<Outcome>,
    pub blocks: Vec<Block>,
}

impl Section {
    fn new(level: u8, title: impl Into<String>) -> Self {
        Section {
            level,
            title: title.into(),
            outcome: None,
            blocks: Vec::new(),
        }
    }
    fn push(&mut self, b: Block) {
        self.blocks.push(b);
    }
    fn para(&mut self, s: impl Into<String>) {
        self.push(Block::Para(s.into()));
    }
    fn kv(&mut self, rows: Vec<(&str, String)>) {
        self.push(Block::Table(Table {
            head: vec!["Item".into(), "Value".into()],
            rows: rows.into_iter().map(|(k, v)| vec![k.into(), v]).collect(),
            class: Some("kv"),
        }));
    }
}

/// The blind baseline is judged against its own threshold (INVALID, not FAIL).
pub fn is_baseline(a: &AttackResult) -> bool {
    a.name == "blind_baseline"
}

/// Every section of the report, in reading order.
pub fn sections(r: &Report) -> Vec<Section> {
    let mut out = vec![decision(r), identity(r), data(r)];
    out.push(vocabulary(r.vocabulary.as_ref()));
    out.extend(attacks(r));
    out.push(canaries(r.canaries.as_ref(), r));
    out.push(probe(r.probe.as_ref(), r));
    out.push(utility(r));
    out.push(thresholds(r));
    out.push(reproducibility(r));
    out.push(sign_off(r));
    out
}

/// The line under the title.
pub fn subtitle(r: &Report) -> String {
    format!(
        "Leakage audit report ({}), written by {}.",
        r.schema, r.tool
    )
}

fn reasons_or(reasons: &[String], none: &str) -> Block {
    if reasons.is_empty() {
        Block::Para(none.into())
    } else {
        Block::Bullets(reasons.to_vec())
    }
}

fn decision(r: &Report) -> Section {
    let mut s = Section::new(2, format!("Decision: {}", outcome_word(r.decision.outcome)));
    s.outcome = Some(r.decision.outcome);
    s.push(Block::Strong(outcome_sentence(r.decision.outcome).into()));
    s.para(format!("Reasons ({}):", r.decision.reasons.len()));
    s.push(reasons_or(
        &r.decision.reasons,
        "None: every attack and every piece of evidence stayed within its threshold.",
    ));
    let mut rows: Vec<Vec<String>> = r
        .attacks
        .iter()
        .map(|a| {
            vec![
                format!("attack {}", a.name),
                outcome_word(a.outcome).into(),
                a.reasons.len().to_string(),
            ]
        })
        .collect();
    let part = |name: &str, o: Option<(Outcome, usize)>| match o {
        Some((o, n)) => vec![name.into(), outcome_word(o).into(), n.to_string()],
        None => vec![name.into(), NOT_MEASURED.into(), "-".into()],
    };
    let residual = r.deid.as_ref().and_then(|d| d.residual.as_ref());
    rows.push(match residual {
        Some(g) => vec![
            format!("residual PII ({} of gold entities left)", percent(g.share)),
            outcome_word(g.outcome).into(),
            g.reasons.len().to_string(),
        ],
        None => part("residual PII", None),
    });
    rows.push(part(
        "canary exposure",
        r.canaries.as_ref().map(|c| (c.outcome, c.reasons.len())),
    ));
    rows.push(part(
        "name probes",
        r.probe.as_ref().map(|p| (p.outcome, p.reasons.len())),
    ));
    s.push(Block::Table(Table {
        head: vec!["Part".into(), "Outcome".into(), "Reasons".into()],
        rows,
        class: None,
    }));
    s
}

fn identity(r: &Report) -> Section {
    let mut s = Section::new(2, "Identity: what these figures belong to");
    let id = &r.identity;
    let mut rows = vec![vec![
        "audit spec".into(),
        id.spec.path.clone(),
        id.spec.sha256.clone(),
    ]];
    let model_rows = |who: &str, m: &super::model::ModelIdentity, rows: &mut Vec<Vec<String>>| {
        rows.push(vec![
            format!("{who} weights"),
            m.dir.clone(),
            opt_hash(m.weights_sha256.as_deref()),
        ]);
        rows.push(vec![
            format!("{who} tokenizer"),
            m.dir.clone(),
            opt_hash(m.tokenizer_sha256.as_deref()),
        ]);
        rows.push(vec![
            format!("{who} manifest"),
            m.dir.clone(),
            opt_hash(m.manifest_sha256.as_deref()),
        ]);
        if let Some(d) = &m.corpus_digest {
            rows.push(vec![
                format!("{who} training corpus digest"),
                "(from the manifest)".into(),
                d.clone(),
            ]);
        }
    };
    model_rows("model", &id.model, &mut rows);
    match &id.reference {
        Some(m) => model_rows("reference model", m, &mut rows),
        None => rows.push(vec![
            "reference model".into(),
            "none".into(),
            NOT_MEASURED.into(),
        ]),
    }
    for f in &id.data_files {
        rows.push(vec!["data file".into(), f.path.clone(), f.sha256.clone()]);
    }
    if id.data_files.is_empty() {
        rows.push(vec!["data file".into(), "none".into(), NOT_MEASURED.into()]);
    }
    s.push(Block::Table(Table {
        head: vec!["Item".into(), "Path".into(), "SHA-256".into()],
        rows,
        class: Some("hashes"),
    }));
    s
}

fn data(r: &Report) -> Section {
    let mut s = Section::new(2, "Data and de-identification");
    let d = &r.data;
    let unit = match d.unit {
        crate::audit::Unit::Sentence => "sentence",
        crate::audit::Unit::Document => "document",
    };
    s.kv(vec![
        ("decision unit", unit.into()),
        ("member sentences", d.member_sentences.to_string()),
        ("non-member sentences", d.non_member_sentences.to_string()),
        ("member documents", d.member_documents.to_string()),
        ("non-member documents", d.non_member_documents.to_string()),
        (
            "documents skipped (not in the manifest, or changed)",
            d.skipped_documents.to_string(),
        ),
    ]);
    deid(&mut s, r.deid.as_ref());
    s
}

fn deid(s: &mut Section, d: Option<&DeidSummary>) {
    let Some(d) = d else {
        s.para(format!("De-identification: {NOT_MEASURED}."));
        return;
    };
    let total: u64 = d.replaced_by_label.iter().map(|l| l.count).sum();
    s.para("De-identification of the training corpus:");
    s.kv(vec![
        (
            "stats file",
            format!("{} (sha256 {})", d.stats_file.path, d.stats_file.sha256),
        ),
        ("documents", d.documents.to_string()),
        ("passes", d.passes.to_string()),
        ("policy", d.policy.clone()),
        ("replacements", total.to_string()),
        (
            "recall on gold entities (a miss is a leak)",
            d.recall.as_ref().map_or_else(|| NOT_MEASURED.into(), share),
        ),
    ]);
    s.push(Block::Table(Table {
        head: vec!["Label".into(), "Replacements".into()],
        rows: d
            .replaced_by_label
            .iter()
            .map(|l| vec![l.label.clone(), l.count.to_string()])
            .collect(),
        class: None,
    }));
    let Some(g) = &d.residual else {
        s.para(format!(
            "Residual PII on gold entities: {NOT_MEASURED} (no gold set scored, so not gated)."
        ));
        return;
    };
    s.para(format!(
        "Residual PII on gold entities: {} of {} ({}) not fully removed; threshold ≤ {} \
         overall. Outcome: {}.",
        g.with_residue,
        g.entities,
        percent(g.share),
        percent(g.threshold),
        outcome_word(g.outcome)
    ));
    s.push(Block::Table(Table {
        head: [
            "Category",
            "Gold entities",
            "Not fully removed",
            "Residual share",
            "Threshold",
        ]
        .map(String::from)
        .to_vec(),
        rows: std::iter::once(vec![
            "all".into(),
            g.entities.to_string(),
            g.with_residue.to_string(),
            percent(g.share),
            percent(g.threshold),
        ])
        .chain(g.by_category.iter().map(|c| {
            vec![
                c.category.clone(),
                c.entities.to_string(),
                c.with_residue.to_string(),
                c.share.map_or_else(|| "no gold entity".into(), percent),
                c.threshold.map_or_else(|| "-".into(), percent),
            ]
        }))
        .collect(),
        class: None,
    }));
    s.push(reasons_or(
        &g.reasons,
        "No residual-PII threshold exceeded.",
    ));
}

fn vocabulary(v: Option<&VocabularySummary>) -> Section {
    let mut s = Section::new(2, "Vocabulary review");
    let Some(v) = v else {
        s.para(format!("Vocabulary review: {NOT_MEASURED}."));
        return s;
    };
    s.kv(vec![
        ("tokens reviewed", v.reviewed.to_string()),
        ("tokens removed", v.removed.to_string()),
        (
            "tokens renamed through a removed one",
            v.derived.to_string(),
        ),
    ]);
    if v.checks.is_empty() {
        s.para(format!(
            "Checks of the rewritten tokenizer: {NOT_MEASURED}."
        ));
    } else {
        s.push(Block::Table(Table {
            head: vec!["Check".into(), "Result".into(), "Detail".into()],
            rows: v
                .checks
                .iter()
                .map(|c| {
                    vec![
                        c.name.clone(),
                        if c.passed { "passed" } else { "FAILED" }.into(),
                        c.detail.clone(),
                    ]
                })
                .collect(),
            class: None,
        }));
    }
    s
}

fn attacks(r: &Report) -> Vec<Section> {
    let mut head = Section::new(2, "Membership-inference attacks");
    if r.attacks.is_empty() {
        head.para(format!("Membership-inference attacks: {NOT_MEASURED}."));
        return vec![head];
    }
    head.para(
        "Each attack scores members (training examples) and non-members; higher scores mean \
         \"member\". AUC 0.5 and TPR equal to FPR are chance. Intervals are 95%: DeLong for the \
         AUC; for TPR at a target FPR a bootstrap that chooses the threshold again in each \
         resample (the exact interval at the chosen threshold, narrower, is in each attack's \
         section).",
    );
    head.push(Block::Table(Table {
        head: [
            "Attack",
            "Members",
            "Non-members",
            "AUC [95%]",
            "TPR at 1% FPR",
            "TPR at 0.1% FPR",
            "Epsilon lower bound",
            "Outcome",
        ]
        .map(String::from)
        .to_vec(),
        rows: r
            .attacks
            .iter()
            .map(|a| {
                let m = &a.metrics;
                let short = |target: f64| match find_tpr(&m.tpr_at_fpr, target) {
                    Some(t) if t.resolvable => tpr_cell(t),
                    Some(_) => "not resolvable".into(),
                    None => NOT_MEASURED.into(),
                };
                vec![
                    a.name.clone(),
                    m.members.to_string(),
                    m.non_members.to_string(),
                    estimate(&m.auc),
                    short(0.01),
                    short(0.001),
                    num2(m.epsilon_lower_bound),
                    outcome_word(a.outcome).into(),
                ]
            })
            .collect(),
        class: None,
    }));
    head.push(Block::Figure(Figure::Roc));
    let mut out = vec![head];
    let t = &r.thresholds;
    for (i, a) in r.attacks.iter().enumerate() {
        let m = &a.metrics;
        let mut s = Section::new(3, format!("Attack: {}", a.name));
        s.outcome = Some(a.outcome);
        s.para(format!("Threat model: {}", a.threat_model));
        let unit = match a.unit {
            crate::audit::Unit::Sentence => "sentence",
            crate::audit::Unit::Document => "document",
        };
        let mut rows = vec![
            ("unit", unit.to_string()),
            ("members", m.members.to_string()),
            ("non-members", m.non_members.to_string()),
            ("AUC [95% DeLong]", estimate(&m.auc)),
            (
                "TPR at 1% FPR [95%]",
                tpr_at(find_tpr(&m.tpr_at_fpr, 0.01), m.non_members),
            ),
            (
                "TPR at 0.1% FPR [95%]",
                tpr_at(find_tpr(&m.tpr_at_fpr, 0.001), m.non_members),
            ),
            ("advantage (max TPR − FPR) [95%]", estimate(&m.advantage)),
            ("empirical epsilon lower bound", num2(m.epsilon_lower_bound)),
        ];
        if let Some(sm) = &a.sentence_metrics {
            rows.push(("sentence-level AUC [95%]", estimate(&sm.auc)));
        }
        if is_baseline(a) {
            rows.push((
                "threshold",
                format!("AUC ≤ {} (above: INVALID)", num3(t.max_blind_auc)),
            ));
        } else {
            rows.push((
                "thresholds",
                format!(
                    "AUC ≤ {}; TPR at 1% FPR ≤ {}; epsilon ≤ {}",
                    num3(t.max_auc),
                    num3(t.max_tpr_at_1pct_fpr),
                    num2(t.max_epsilon)
                ),
            ));
        }
        rows.push(("outcome", outcome_word(a.outcome).into()));
        s.kv(rows);
        s.push(reasons_or(&a.reasons, "No threshold exceeded."));
        s.push(Block::Figure(Figure::Histogram(i)));
        out.push(s);
    }
    out
}

fn canaries(c: Option<&CanaryEvidence>, r: &Report) -> Section {
    let mut s = Section::new(2, "Canary exposure");
    let Some(c) = c else {
        s.para(format!("Canary exposure: {NOT_MEASURED}."));
        return s;
    };
    s.outcome = Some(c.outcome);
    s.para(format!("Threat model: {}", c.threat_model));
    s.para(format!(
        "Each canary is ranked among {} never-inserted candidates. A model that memorized \
         nothing exceeds {} bits with probability 5% (chance 95th percentile); the mean \
         exposure of such a model is about 1.44 bits. Threshold: mean exposure per group ≤ {} \
         bits{}.",
        c.candidates,
        num2(c.chance_95th_percentile_bits),
        num2(r.thresholds.max_mean_canary_exposure),
        match r.thresholds.canary_gate_max_repeats {
            Some(n) => format!(
                ", gated for the groups inserted at most {n} time(s); the others are reported only"
            ),
            None => String::new(),
        }
    ));
    s.push(Block::Table(Table {
        head: [
            "Repeats",
            "Canaries",
            "Mean exposure (bits)",
            "Max exposure (bits)",
            "Share above chance 95th percentile [95%] (5% expected)",
        ]
        .map(String::from)
        .to_vec(),
        rows: c
            .groups
            .iter()
            .map(|g| {
                vec![
                    g.repeats.to_string(),
                    g.exposures.len().to_string(),
                    num2(g.mean_exposure),
                    num2(g.max_exposure),
                    share(&g.above_chance),
                ]
            })
            .collect(),
        class: None,
    }));
    s.push(Block::Figure(Figure::Canary));
    s.para(format!("Outcome: {}.", outcome_word(c.outcome)));
    s.push(reasons_or(&c.reasons, "No threshold exceeded."));
    s
}

fn probe(p: Option<&ProbeEvidence>, r: &Report) -> Section {
    let mut s = Section::new(2, "Name probes");
    let Some(p) = p else {
        s.para(format!("Name probes: {NOT_MEASURED}."));
        return s;
    };
    s.outcome = Some(p.outcome);
    s.para(format!(
        "Fill-mask at name slots of the released model, top {} predictions per slot \
         (probe metrics file {}, sha256 {}). Threshold: name-like share ≤ {} per set.",
        p.top_k,
        p.file.path,
        p.file.sha256,
        percent(r.thresholds.max_name_like_share)
    ));
    s.push(Block::Table(Table {
        head: [
            "Set",
            "Slots",
            "Name-like share of predictions [95%]",
            "Slots with any name-like [95%]",
            "Best name-like rank",
        ]
        .map(String::from)
        .to_vec(),
        rows: p
            .sets
            .iter()
            .map(|m| {
                vec![
                    m.set.clone(),
                    m.slots.to_string(),
                    share(&m.name_like_predictions),
                    share(&m.slots_with_name_like),
                    m.best_name_like_rank
                        .map_or_else(|| "none".into(), |r| r.to_string()),
                ]
            })
            .collect(),
        class: None,
    }));
    let rec: Vec<Vec<String>> = p
        .sets
        .iter()
        .filter_map(|m| {
            let r = m.recovery.as_ref()?;
            Some(vec![
                m.set.clone(),
                r.slots.to_string(),
                share(&r.in_top_k),
                share(&r.pll_rank_first),
                r.uniform_rank_first
                    .map_or_else(|| NOT_MEASURED.into(), percent),
                r.mean_rank_percentile
                    .map_or_else(|| NOT_MEASURED.into(), num3),
            ])
        })
        .collect();
    if rec.is_empty() {
        s.para(format!("Recovery of the original names: {NOT_MEASURED}."));
    } else {
        s.para("Recovery of the original names:");
        s.push(Block::Table(Table {
            head: [
                "Set",
                "Slots",
                "Original in top k [95%]",
                "Original ranked first by PLL [95%]",
                "Ranked first by chance",
                "Mean rank percentile (0.5 = knows nothing)",
            ]
            .map(String::from)
            .to_vec(),
            rows: rec,
            class: None,
        }));
    }
    s.push(Block::Figure(Figure::NameLike));
    s.para(format!("Outcome: {}.", outcome_word(p.outcome)));
    s.push(reasons_or(&p.reasons, "No threshold exceeded."));
    s
}

fn utility(r: &Report) -> Section {
    let mut s = Section::new(2, "Utility");
    let Some(u) = &r.utility else {
        s.para(format!("Utility: {NOT_MEASURED}."));
        return s;
    };
    s.para(
        "Held-out masked-LM loss in nats per masked token (lower is better); the unigram \
         baseline is what a model that ignores context achieves.",
    );
    let diff = match (u.loss_before_rewrite, u.loss_after_rewrite) {
        (Some(b), Some(a)) => signed3(a - b),
        _ => NOT_MEASURED.into(),
    };
    s.kv(vec![
        ("held-out documents", u.held_out_documents.to_string()),
        (
            "loss before the vocabulary rewrite",
            opt_num3(u.loss_before_rewrite),
        ),
        (
            "loss after the vocabulary rewrite",
            opt_num3(u.loss_after_rewrite),
        ),
        (
            "unigram baseline",
            match (&u.unigram_baseline, &u.unigram_baseline_source) {
                (Some(b), Some(src)) => format!("{b:.3} (from the {src})"),
                _ => opt_num3(u.unigram_baseline),
            },
        ),
        ("difference (after − before)", diff),
    ]);
    s
}

fn thresholds(r: &Report) -> Section {
    let t = &r.thresholds;
    let mut s = Section::new(2, "Thresholds of the gate");
    s.kv(vec![
        ("max AUC of an attack", num3(t.max_auc)),
        ("max TPR at 1% FPR", num3(t.max_tpr_at_1pct_fpr)),
        ("max epsilon lower bound", num2(t.max_epsilon)),
        (
            "max blind-baseline AUC (above: INVALID)",
            num3(t.max_blind_auc),
        ),
        (
            "min held-out loss gain over the unigram baseline (below: INVALID)",
            percent(t.min_gain_over_unigram),
        ),
        (
            "max held-out loss increase from the rewrite",
            percent(t.max_utility_loss),
        ),
        (
            "max name-like share per probe set",
            percent(t.max_name_like_share),
        ),
        (
            "max mean canary exposure per group (bits)",
            num2(t.max_mean_canary_exposure),
        ),
        (
            "max residual-PII share of gold entities",
            percent(t.max_residual_share),
        ),
    ]);
    if !t.max_residual_share_by_category.is_empty() {
        s.push(Block::Table(Table {
            head: vec!["Category".into(), "Max residual-PII share".into()],
            rows: t
                .max_residual_share_by_category
                .iter()
                .map(|(k, v)| vec![k.clone(), percent(*v)])
                .collect(),
            class: None,
        }));
    }
    s
}

fn reproducibility(r: &Report) -> Section {
    let p = &r.reproducibility;
    let mut s = Section::new(2, "Reproducibility");
    s.kv(vec![
        ("tool version", p.tool_version.clone()),
        ("seed", p.seed.to_string()),
    ]);
    s.para("Command:");
    s.push(Block::Code(p.command.clone()));
    s.para("Settings:");
    s.push(Block::Code(
        serde_json::to_string(&p.settings).unwrap_or_else(|_| "{}".into()),
    ));
    s
}

fn sign_off(r: &Report) -> Section {
    let mut s = Section::new(2, "Sign-off");
    s.para(format!(
        "By signing, I confirm that I have read this report (decision: {}) and take the \
         decision entered below.",
        outcome_word(r.decision.outcome)
    ));
    let fill = |v: &Option<String>| v.clone().unwrap_or_default();
    let blocks = if r.sign_off.is_empty() {
        super::model::SignOff::blank()
    } else {
        r.sign_off.clone()
    };
    s.push(Block::Table(Table {
        head: ["Role", "Name", "Date", "Decision", "Signature"]
            .map(String::from)
            .to_vec(),
        rows: blocks
            .iter()
            .map(|o| {
                vec![
                    o.role.clone(),
                    fill(&o.name),
                    fill(&o.date),
                    fill(&o.decision),
                    String::new(),
                ]
            })
            .collect(),
        class: Some("signoff"),
    }));
    s
}
