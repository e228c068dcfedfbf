//! Embeds every word list under `vocab/` into the binary, so a release never runs without them.

use std::fs;
use std::path::Path;

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read vocab dir")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            collect(&p, root, out);
        } else if matches!(
            p.extension().and_then(|e| e.to_str()),
            Some("txt" | "toml" | "tsv")
        ) {
            out.push(
                p.strip_prefix(root)
                    .unwrap()
                    .to_string_lossy()
                    .replace('\\', "/"),
            );
        }
    }
}

fn main() {
    // Read at run time, not compile time: a cached build script must follow the crate if the
    // checkout moves (worktrees, CI clones).
    let manifest = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    let root = Path::new(&manifest).join("vocab");
    println!("cargo:rerun-if-changed=vocab");
    let mut files = Vec::new();
    if root.exists() {
        collect(&root, &root, &mut files);
    }
    let mut code = String::from("pub static BUILTIN_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed=vocab/{f}");
        code.push_str(&format!(
            "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/vocab/{f}\"))),\n"
        ));
    }
    code.push_str("];\n");
    let out = Path::new(&std::env::var("OUT_DIR").unwrap()).join("builtin_vocab.rs");
    fs::write(out, code).unwrap();
}
