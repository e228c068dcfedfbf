//! `--corpus`, `--ops-log`, `--names` ... of `vocab harvest` and `probe metrics` as the
//! stages' [`NameEvidenceSettings`].

use crate::cli::NameEvidenceArgs;
use crate::vocab::evidence::NameEvidenceSettings;

pub(crate) fn settings(args: &NameEvidenceArgs) -> NameEvidenceSettings {
    NameEvidenceSettings {
        corpus: args.corpus.clone(),
        format: args.format.clone(),
        ops_log: args.ops_log.clone(),
        labels: args.labels.clone(),
        reference: args.reference.clone(),
        names: args.names.clone(),
        no_builtin_lists: args.no_builtin_lists,
        threshold: args.threshold,
    }
}
