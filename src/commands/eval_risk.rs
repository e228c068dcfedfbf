//! `anonlm eval --risk` and `--names`: the recognizer flags of `eval` as the stage's
//! recognizer settings, built exactly as `recognize` and `deid` build theirs.

use super::common;
use crate::cli::shared::{MaxDocBytes, Quiet, Threads};
use crate::cli::{EvalArgs, InputArgs};
use crate::corpus::ReadOptions;
use crate::recognize::settings::RecognizerSettings;

/// The recognizer flags of `eval` as the corpus commands' input flags (a new recognizer flag
/// is one more field here).
fn input_args(args: &EvalArgs) -> InputArgs {
    let r = &args.risk;
    InputArgs {
        input: args.gold.clone(),
        format: args.format.clone(),
        language: r.language.clone(),
        label_map: args.label_map.clone(),
        taggers: r.taggers.clone(),
        no_rules: false,
        max_doc_bytes: MaxDocBytes {
            bytes: args
                .max_doc_bytes
                .unwrap_or(ReadOptions::DEFAULT_MAX_DOC_BYTES),
        },
        threads: Threads::default(),
        quiet: Quiet { on: true },
    }
}

/// The recognizers `eval --risk` and `eval --names` run.
pub fn recognizers(args: &EvalArgs) -> RecognizerSettings {
    common::recognizer_settings(&input_args(args))
}

#[cfg(test)]
mod tests {
    #[test]
    fn default_risk_args_are_off_with_the_flag_defaults() {
        let r = crate::cli::RiskArgs::default();
        assert!(!r.risk && r.risk_svg.is_none() && r.key_file.is_none());
        assert_eq!((r.passes, r.policy.as_str()), (2, "default"));
        assert_eq!(r.language.lang, crate::lang::LangChoice::Auto);
    }
}
