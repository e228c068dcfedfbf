//! Secret keys for keyed operators (pseudonyms, date shifts, corpus-wide surrogates): loading
//! from and generating key files, and the HMAC-SHA256 derivations built on them.
//!
//! Keys come only from key files, never from defaults. A key file holds either hex (at least
//! 64 hex digits, surrounding whitespace ignored) or at least 32 raw bytes. Content that looks
//! like hex is always read as hex, so a short hex key is rejected rather than silently reused
//! as raw bytes. Neither errors nor `Debug` ever show key material. As ssh does for private
//! keys, a key file that its group or others may read or write, or that holds only
//! whitespace, is refused.

use hmac::{Hmac, Mac};
use rand::RngCore;
use sha2::Sha256;
use std::fmt;
use std::path::{Path, PathBuf};

/// Minimum key material, in bytes.
pub const MIN_KEY_BYTES: usize = 32;

#[derive(Debug, thiserror::Error)]
pub enum KeyError {
    #[error("key file {path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("key file {path} is empty or holds only whitespace")]
    Empty { path: PathBuf },
    #[error(
        "key file {path} has mode {mode:04o}: its group or others may read it; \
         restrict it to its owner (chmod 600)"
    )]
    TooOpen { path: PathBuf, mode: u32 },
    #[error(
        "key file {path} holds {got} bytes of key material; at least {MIN_KEY_BYTES} are required"
    )]
    TooShort { path: PathBuf, got: usize },
    #[error("key file {path} already exists; refusing to overwrite a key")]
    Exists { path: PathBuf },
}

/// Secret key material (at least [`MIN_KEY_BYTES`] bytes).
#[derive(Clone)]
pub struct Key {
    bytes: Vec<u8>,
}

impl fmt::Debug for Key {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Key({} bytes, redacted)", self.bytes.len())
    }
}

impl Key {
    /// Reads a key file: hex (whitespace-trimmed, even length) or raw bytes. The file must be
    /// private to its owner.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Key, KeyError> {
        let path = path.as_ref();
        check_private(path)?;
        let raw = std::fs::read(path).map_err(|source| KeyError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Key::from_file_bytes(&raw).map_err(|got| {
            if got == 0 {
                KeyError::Empty {
                    path: path.to_path_buf(),
                }
            } else {
                KeyError::TooShort {
                    path: path.to_path_buf(),
                    got,
                }
            }
        })
    }

    /// Decodes key-file content; `Err(n)` gives the usable length when it is too short.
    fn from_file_bytes(raw: &[u8]) -> Result<Key, usize> {
        let trimmed = raw.trim_ascii();
        if trimmed.is_empty() {
            // Whitespace alone is no secret, however many bytes of it there are.
            return Err(0);
        }
        let bytes = decode_hex(trimmed).unwrap_or_else(|| raw.to_vec());
        if bytes.len() < MIN_KEY_BYTES {
            return Err(if trimmed.is_empty() { 0 } else { bytes.len() });
        }
        Ok(Key { bytes })
    }

    /// Builds a key from bytes in memory (tests, callers that manage their own secrets).
    pub fn from_bytes(bytes: &[u8]) -> Option<Key> {
        (bytes.len() >= MIN_KEY_BYTES).then(|| Key {
            bytes: bytes.to_vec(),
        })
    }

    /// Writes a new random 32-byte key as hex to `path` (mode 0600 on Unix), refusing to
    /// overwrite an existing file, and returns it.
    pub fn generate(path: impl AsRef<Path>) -> Result<Key, KeyError> {
        let path = path.as_ref();
        let mut bytes = vec![0u8; MIN_KEY_BYTES];
        rand::rngs::OsRng.fill_bytes(&mut bytes);
        let mut text = encode_hex(&bytes);
        text.push('\n');
        // Staged and published without replacing anything: mode 0600 from creation.
        let none = crate::fsio::Inputs::new();
        crate::fsio::write_file(path, text.as_bytes(), false, &none).map_err(|e| match e {
            crate::fsio::FsError::Exists { path } => KeyError::Exists { path },
            other => KeyError::Io {
                path: path.to_path_buf(),
                source: std::io::Error::other(other.to_string()),
            },
        })?;
        Ok(Key { bytes })
    }

    /// HMAC-SHA256 over `domain`, then each part, each followed by a 0 byte so that part
    /// boundaries cannot be shifted to forge a collision.
    /// A short public identifier of the key (HMAC of a fixed domain), safe to print in reports.
    pub fn fingerprint(&self) -> String {
        encode_hex(&self.mac("fingerprint", &[])[..8])
    }

    pub fn mac(&self, domain: &str, parts: &[&[u8]]) -> [u8; 32] {
        let mut mac = <Hmac<Sha256> as Mac>::new_from_slice(&self.bytes)
            .expect("HMAC accepts any key length");
        mac.update(domain.as_bytes());
        mac.update(&[0]);
        for p in parts {
            mac.update(p);
            mac.update(&[0]);
        }
        mac.finalize().into_bytes().into()
    }
}

/// Refuses a key file that anyone but its owner may read or write (the mode of the file a
/// symlink points to is what counts).
fn check_private(path: &Path) -> Result<(), KeyError> {
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let meta = std::fs::metadata(path).map_err(|source| KeyError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let mode = meta.permissions().mode() & 0o7777;
        if mode & 0o077 != 0 {
            return Err(KeyError::TooOpen {
                path: path.to_path_buf(),
                mode,
            });
        }
    }
    #[cfg(not(unix))]
    let _ = path;
    Ok(())
}

fn decode_hex(s: &[u8]) -> Option<Vec<u8>> {
    if s.is_empty() || !s.len().is_multiple_of(2) || !s.iter().all(u8::is_ascii_hexdigit) {
        return None;
    }
    let nib = |c: u8| match c {
        b'0'..=b'9' => c - b'0',
        b'a'..=b'f' => c - b'a' + 10,
        _ => c - b'A' + 10,
    };
    Some(s.chunks(2).map(|p| nib(p[0]) << 4 | nib(p[1])).collect())
}

/// Lowercase hex of `bytes`.
pub fn encode_hex(bytes: &[u8]) -> String {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push(DIGITS[(b >> 4) as usize] as char);
        s.push(DIGITS[(b & 15) as usize] as char);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn key_files_are_read_or_rejected() {
        let dir = tempfile::tempdir().unwrap();
        let hex64 = "ab".repeat(32);
        let (hex_nl, hex_up) = (format!("{hex64}\n"), hex64.to_uppercase());
        let cases: &[(&str, &[u8], Option<usize>)] = &[
            ("hex.key", hex_nl.as_bytes(), Some(32)),
            ("hexupper.key", hex_up.as_bytes(), Some(32)),
            ("raw.key", &[7u8; 40], Some(40)),
            ("empty.key", b"", None),
            ("blank.key", b"  \n", None),
            ("spaces.key", &[b' '; 64], None),
            (
                "mixedblank.key",
                b" \t\n\r \t\n\r \t\n\r \t\n\r \t\n\r \t\n\r \t\n\r \t\n\r ",
                None,
            ),
            ("shorthex.key", b"abcdef0123", None),
            ("shortraw.key", b"tiny secret", None),
        ];
        for (name, content, want) in cases {
            let p = dir.path().join(name);
            write_private(&p, content);
            match (Key::from_file(&p), want) {
                (Ok(k), Some(n)) => assert_eq!(k.bytes.len(), *n, "{name}"),
                (Err(e), None) => {
                    let msg = e.to_string();
                    assert!(msg.contains(name), "{msg}");
                    assert!(!msg.contains("tiny") && !msg.contains("abcdef"), "{msg}");
                }
                (got, _) => panic!("{name}: unexpected {got:?}"),
            }
        }
        let missing = Key::from_file(dir.path().join("nope.key")).unwrap_err();
        assert!(missing.to_string().contains("nope.key"));
    }

    fn write_private(p: &Path, content: &[u8]) {
        std::fs::write(p, content).unwrap();
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            std::fs::set_permissions(p, std::fs::Permissions::from_mode(0o600)).unwrap();
        }
    }

    #[cfg(unix)]
    #[test]
    fn key_files_open_to_group_or_others_are_refused() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("open.key");
        write_private(&p, "cd".repeat(32).as_bytes());
        assert!(Key::from_file(&p).is_ok());
        for mode in [0o644, 0o640, 0o604, 0o620, 0o602, 0o660] {
            std::fs::set_permissions(&p, std::fs::Permissions::from_mode(mode)).unwrap();
            let e = Key::from_file(&p).unwrap_err();
            assert!(matches!(e, KeyError::TooOpen { .. }), "{mode:o}: {e}");
            let msg = e.to_string();
            assert!(
                msg.contains("open.key") && msg.contains("chmod 600"),
                "{msg}"
            );
            assert!(!msg.contains("cdcd"), "{msg}");
        }
        std::fs::set_permissions(&p, std::fs::Permissions::from_mode(0o400)).unwrap();
        assert!(Key::from_file(&p).is_ok(), "owner-only read is private");
    }

    #[test]
    fn generate_writes_private_file_and_refuses_overwrite() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("k.key");
        let k = Key::generate(&p).unwrap();
        let back = Key::from_file(&p).unwrap();
        assert_eq!(k.bytes, back.bytes);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = std::fs::metadata(&p).unwrap().permissions().mode();
            assert_eq!(mode & 0o777, 0o600);
        }
        assert!(matches!(Key::generate(&p), Err(KeyError::Exists { .. })));
        assert_eq!(Key::from_file(&p).unwrap().bytes, k.bytes);
        assert!(!format!("{k:?}").contains(&encode_hex(&k.bytes)[..8]));
    }

    #[test]
    fn mac_separates_domains_and_parts() {
        let k = Key::from_bytes(&[1u8; 32]).unwrap();
        let a = k.mac("d", &[b"ab", b"c"]);
        assert_eq!(a, k.mac("d", &[b"ab", b"c"]));
        assert_ne!(a, k.mac("d", &[b"a", b"bc"]));
        assert_ne!(a, k.mac("e", &[b"ab", b"c"]));
        let k2 = Key::from_bytes(&[2u8; 32]).unwrap();
        assert_ne!(a, k2.mac("d", &[b"ab", b"c"]));
        assert!(Key::from_bytes(&[0u8; 31]).is_none());
    }
}
