//! The games folder's files, whatever the folder holds: a record is opened
//! without following a symbolic link and only when it is a regular file (a
//! link, a FIFO or a device planted there is refused, never read or waited
//! on), read up to [`MAX_RECORD_BYTES`], and written through a temporary
//! file that is created anew (never opened through a link) and renamed.

use std::fs::{File, OpenOptions};
use std::io::{self, Read, Write};
use std::path::Path;

/// Largest record file read from the games folder (as large as an upload).
pub const MAX_RECORD_BYTES: u64 = 4 << 20;

/// The prefix of the GUI's own record files (`gui-<unix time>-<game>.pgn`).
pub const GUI_PREFIX: &str = "gui-";

fn refused(path: &Path, why: &str) -> io::Error {
    let name = path.file_name().map_or_else(String::new, |n| n.to_string_lossy().into_owned());
    io::Error::new(io::ErrorKind::InvalidInput, format!("{name} {why}"))
}

/// Whether `path` itself (not what a link names) is a regular file.
pub fn is_regular(path: &Path) -> bool {
    std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_file())
}

/// Opens `path` for reading when it is a regular file: a link is not
/// followed and a FIFO is not waited on (both are refused).
pub fn open_regular(path: &Path) -> io::Result<File> {
    if !is_regular(path) {
        return Err(refused(path, "is not a regular file"));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // The check above races with the folder changing: these flags make
        // the open itself refuse a link and return at once on a FIFO.
        options.custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK);
    }
    let file = options.open(path).map_err(|e| match e.raw_os_error() {
        #[cfg(unix)]
        Some(libc::ELOOP) => refused(path, "is not a regular file"),
        _ => e,
    })?;
    if !file.metadata()?.is_file() {
        return Err(refused(path, "is not a regular file"));
    }
    Ok(file)
}

/// A record file's text: a regular file of at most [`MAX_RECORD_BYTES`], UTF-8.
pub fn read_record(path: &Path) -> io::Result<String> {
    let file = open_regular(path)?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORD_BYTES + 1).read_to_end(&mut bytes)?;
    if bytes.len() as u64 > MAX_RECORD_BYTES {
        return Err(refused(path, &format!("is larger than {} MiB", MAX_RECORD_BYTES >> 20)));
    }
    String::from_utf8(bytes).map_err(|_| refused(path, "is not UTF-8 text"))
}

/// Writes `bytes` to `path` through `path.pgn.tmp`, created anew (whatever
/// stood at that name, a link included, is removed first, never written
/// through), flushed to disk, then renamed over `path` (which replaces a link
/// there rather than writing to what it names).
pub fn write_record(path: &Path, bytes: &[u8]) -> io::Result<()> {
    let tmp = path.with_extension("pgn.tmp");
    match std::fs::remove_file(&tmp) {
        Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let written = options.open(&tmp).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let renamed = written.and_then(|()| std::fs::rename(&tmp, path));
    if renamed.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    renamed
}

/// How many of the GUI's own record files (`gui-….pgn`) the folder holds.
pub fn count_gui_records(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| {
                let name = e.file_name();
                let name = name.to_string_lossy();
                name.starts_with(GUI_PREFIX) && name.ends_with(".pgn")
            })
            .count()
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A fresh directory under the temporary directory, removed with its files when dropped.
    fn scratch(name: &str) -> tempfile::TempDir {
        tempfile::Builder::new().prefix(&format!("cubist-files-{name}-")).tempdir().unwrap()
    }

    #[test]
    fn records_are_written_anew_and_read_back_bounded() {
        let scratch = scratch("write");
        let dir = scratch.path();
        let path = dir.join("gui-1-1.pgn");
        write_record(&path, b"one").unwrap();
        write_record(&path, b"two").unwrap();
        assert_eq!(read_record(&path).unwrap(), "two");
        assert!(!dir.join("gui-1-1.pgn.tmp").exists());
        assert_eq!(count_gui_records(dir), 1);
        std::fs::write(dir.join("big.pgn"), vec![b'x'; MAX_RECORD_BYTES as usize + 1]).unwrap();
        assert!(read_record(&dir.join("big.pgn")).unwrap_err().to_string().contains("larger than"));
        assert!(read_record(&dir.join("missing.pgn")).is_err());
    }

    #[cfg(unix)]
    #[test]
    fn links_are_neither_read_nor_written_through() {
        let scratch = scratch("links");
        let dir = scratch.path();
        let outside = dir.join("outside.txt");
        std::fs::write(&outside, "precious").unwrap();
        std::os::unix::fs::symlink(&outside, dir.join("link.pgn")).unwrap();
        let err = read_record(&dir.join("link.pgn")).unwrap_err().to_string();
        assert!(err.contains("not a regular file") && !err.contains("precious"), "{err}");
        std::os::unix::fs::symlink(&outside, dir.join("gui-2-2.pgn.tmp")).unwrap();
        write_record(&dir.join("gui-2-2.pgn"), b"record").unwrap();
        assert_eq!(std::fs::read_to_string(&outside).unwrap(), "precious");
        assert_eq!(read_record(&dir.join("gui-2-2.pgn")).unwrap(), "record");
    }
}
