//! The process panic hook: a panic reports where it happened, never its message (a slicing or
//! unwrap message can quote a document), and ends the process with exit code 2.

/// The line printed for a panic at `location` (`file:line`).
pub fn report(location: Option<(&str, u32)>) -> String {
    let at = match location {
        Some((file, line)) => format!("{file}:{line}"),
        None => "an unknown place".into(),
    };
    format!("anonlm: internal error at {at} (a bug; please report it with this location)")
}

/// Replaces the default hook (message, exit 101) with one that prints [`report`] and exits 2
/// from whichever thread panicked, so a worker's panic cannot leave a half-finished run behind
/// a success code either.
pub fn install() {
    std::panic::set_hook(Box::new(|info| {
        let loc = info.location().map(|l| (l.file(), l.line()));
        eprintln!("{}", report(loc));
        std::process::exit(2);
    }));
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_report_names_the_place_only() {
        let r = super::report(Some(("src/x.rs", 7)));
        assert!(r.contains("src/x.rs:7"), "{r}");
        assert!(super::report(None).contains("unknown place"));
    }
}
