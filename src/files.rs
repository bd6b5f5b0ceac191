//! Files written whole: the atomic write every output and checkpoint uses,
//! and the FNV-1a checksum of the binary formats (net files, checkpoints)
//! and of match fingerprints.

use std::io::Write;
use std::path::Path;

/// The 64-bit FNV-1a hash: stable across builds and platforms, unlike `std`'s hasher.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

/// Writes a file whole or not at all: a temporary file beside it (`NAME.tmp`),
/// written and synced, then renamed over it; on an error the temporary file
/// is removed. A reader never sees it torn. (The folder is not synced: a
/// rename lost to a power cut leaves the file before it.)
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let name = path.file_name().ok_or_else(|| std::io::Error::other("not a file name"))?;
    let mut tmp_name = name.to_os_string();
    tmp_name.push(".tmp");
    let tmp = path.with_file_name(tmp_name);
    let written = std::fs::File::create(&tmp).and_then(|mut f| {
        f.write_all(bytes)?;
        f.sync_all()
    });
    written.and_then(|_| std::fs::rename(&tmp, path)).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_reference_values() {
        assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
    }

    #[test]
    fn atomic_writes_replace_whole_files() {
        let scratch = tempfile::Builder::new().prefix("cubist-files-").tempdir().unwrap();
        let dir = scratch.path();
        let path = dir.join("s.json");
        write_atomically(&path, b"one").unwrap();
        write_atomically(&path, b"two, longer").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"two, longer");
        assert!(!dir.join("s.json.tmp").exists());
        assert!(write_atomically(&dir.join("no/such/dir/s.json"), b"x").is_err());
    }
}
