//! Embeds every word list under `wordlists/` and every shipped tagger under `models/<lang>/` into
//! the binary, so a release never runs without them.

use std::fs;
use std::path::Path;

fn collect(dir: &Path, root: &Path, out: &mut Vec<String>) {
    let mut entries: Vec<_> = fs::read_dir(dir)
        .expect("read wordlists dir")
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
    let root = Path::new(&manifest).join("wordlists");
    println!("cargo:rerun-if-changed=wordlists");
    // A checkout without its word lists must not build a binary that recognizes nothing.
    assert!(
        root.is_dir(),
        "the word lists folder {} is missing",
        root.display()
    );
    let mut files = Vec::new();
    collect(&root, &root, &mut files);
    let mut code = String::from("pub static BUILTIN_FILES: &[(&str, &str)] = &[\n");
    for f in &files {
        println!("cargo:rerun-if-changed=wordlists/{f}");
        code.push_str(&format!(
            "    ({f:?}, include_str!(concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/wordlists/{f}\"))),\n"
        ));
    }
    code.push_str("];\n");
    let out_dir = std::env::var("OUT_DIR").unwrap();
    fs::write(Path::new(&out_dir).join("builtin_wordlists.rs"), code).unwrap();
    fs::write(
        Path::new(&out_dir).join("builtin_models.rs"),
        embedded_models(&Path::new(&manifest).join("models")),
    )
    .unwrap();
}

/// `models/<lang>/` folders (a language code only: any other folder there is not shipped)
/// holding the three files of a tagger.
fn embedded_models(root: &Path) -> String {
    const FILES: [&str; 3] = ["ner.json", "vocab.json", "model.safetensors"];
    const LANGS: [&str; 5] = ["en", "es", "hu", "it", "nl"];
    println!("cargo:rerun-if-changed=models");
    let langs: Vec<&str> = LANGS
        .into_iter()
        .filter(|l| root.join(l).is_dir())
        .collect();
    let mut code = String::from("pub static EMBEDDED_MODELS: &[EmbeddedModel] = &[\n");
    for lang in &langs {
        for f in FILES {
            let path = root.join(lang).join(f);
            assert!(path.is_file(), "{} is missing", path.display());
            println!("cargo:rerun-if-changed=models/{lang}/{f}");
        }
        let at = |f: &str| format!("concat!(env!(\"CARGO_MANIFEST_DIR\"), \"/models/{lang}/{f}\")");
        code.push_str(&format!(
            "    EmbeddedModel {{ lang: {lang:?}, config: include_str!({}), vocab: include_str!({}), weights: include_bytes!({}) }},\n",
            at(FILES[0]),
            at(FILES[1]),
            at(FILES[2])
        ));
    }
    code.push_str("];\n");
    code
}
