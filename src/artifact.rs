//! Typed, versioned stage artifacts (deid stats, eval results, probe metrics, release state):
//! each is a struct used by both its writer and its readers, carries a `schema` name with a
//! version, and is read back through [`read`], whose errors name the file, the line and the
//! kind of problem, never a value from the file.

use std::path::Path;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::error::{json_kind, InputError};

/// Artifacts are small summaries: a larger file is not one of ours.
const MAX_ARTIFACT_BYTES: u64 = 64 << 20;

/// A stage output with a schema name of the form `anonlm.<what>/<version>`.
pub trait Artifact: Serialize + DeserializeOwned {
    const SCHEMA: &'static str;
    /// The schema the value carries (checked against [`Artifact::SCHEMA`] on reading).
    fn schema(&self) -> &str;
}

/// SHA-256 (hex) of a file's bytes, for the identity blocks of artifacts and reports.
pub fn file_sha256(path: &Path) -> Result<String, InputError> {
    use sha2::{Digest, Sha256};
    let mut f = std::fs::File::open(path).map_err(|e| InputError::io(path, e))?;
    let mut h = Sha256::new();
    std::io::copy(&mut f, &mut h).map_err(|e| InputError::io(path, e))?;
    Ok(format!("{:x}", h.finalize()))
}

/// The artifact as written: pretty JSON with a final newline.
pub fn to_bytes<T: Artifact>(value: &T) -> Vec<u8> {
    let mut bytes = serde_json::to_vec_pretty(value).expect("artifacts serialize");
    bytes.push(b'\n');
    bytes
}

/// Reads an artifact of type `T`, refusing another schema or version.
pub fn read<T: Artifact>(path: &Path) -> Result<T, InputError> {
    let meta = std::fs::metadata(path).map_err(|e| InputError::io(path, e))?;
    if !meta.is_file() {
        return Err(InputError::file(path, "not a regular file"));
    }
    if meta.len() > MAX_ARTIFACT_BYTES {
        return Err(InputError::file(
            path,
            format!("larger than {MAX_ARTIFACT_BYTES} bytes: not an anonlm stage output"),
        ));
    }
    let bytes = std::fs::read(path).map_err(|e| InputError::io(path, e))?;
    let value: serde_json::Value =
        serde_json::from_slice(&bytes).map_err(|e| InputError::json(path, &e))?;
    if value.get("schema").and_then(|s| s.as_str()) != Some(T::SCHEMA) {
        return Err(InputError::file(
            path,
            format!("not an anonlm artifact of schema {}", T::SCHEMA),
        ));
    }
    T::deserialize(value)
        .map_err(|e| InputError::file(path, format!("{} (schema {})", json_kind(&e), T::SCHEMA)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde::Deserialize;

    #[derive(Serialize, Deserialize, Debug, PartialEq)]
    struct Thing {
        schema: String,
        count: u64,
    }

    impl Artifact for Thing {
        const SCHEMA: &'static str = "anonlm.thing/1";
        fn schema(&self) -> &str {
            &self.schema
        }
    }

    #[test]
    fn reads_its_own_schema_and_refuses_others_without_quoting_values() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("t.json");
        let t = Thing {
            schema: Thing::SCHEMA.into(),
            count: 3,
        };
        std::fs::write(&p, to_bytes(&t)).unwrap();
        assert_eq!(read::<Thing>(&p).unwrap(), t);
        for (body, want) in [
            (
                r#"{"schema":"anonlm.thing/2","count":1}"#,
                "not an anonlm artifact",
            ),
            (
                r#"{"schema":"anonlm.thing/1","count":"Xyloquentin"}"#,
                "unexpected fields",
            ),
            ("{\"schema\":\n\"Xyloquentin", "truncated JSON"),
        ] {
            std::fs::write(&p, body).unwrap();
            let msg = read::<Thing>(&p).unwrap_err().to_string();
            assert!(msg.contains(want), "{msg}");
            assert!(!msg.contains("Xyloquentin"), "{msg}");
        }
    }
}
