//! What the learning commands (`cubist train`, `cubist tune`, `cubist
//! convert`) share: their error type, where their lines go, the reading of
//! data files with skipped lines reported, and the checkpoint's name.

use super::data::{Sample, read_file_in_pieces};
use crate::core::VariantKind;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a learning command stopped.
#[derive(Debug, Error)]
pub enum LearnError {
    /// A setting out of its range, or settings that do not fit a checkpoint.
    #[error("{0}")]
    Settings(String),
    /// A file that could not be read or written, or whose content is not what it should be.
    #[error("{}: {message}", path.display())]
    File {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// A data file that could not be read (the message names it).
    #[error("{0}")]
    Data(String),
    /// The data holds no position of the game.
    #[error("no {0} positions in the data")]
    NoPositions(VariantKind),
}

impl LearnError {
    /// A [`LearnError::File`] of `path`.
    pub fn file(path: &Path, message: impl ToString) -> LearnError {
        LearnError::File { path: path.to_path_buf(), message: message.to_string() }
    }
}

/// Where a learning command writes: its results (`line`: stdout in the
/// binary) and its remarks (`note`: stderr).
pub trait Log {
    /// A line of the results (no newline).
    fn line(&mut self, text: &str);
    /// A remark (no newline).
    fn note(&mut self, text: &str);
}

/// The samples of the data files `paths`, in order; each file's skipped
/// lines or records are noted (the first ten, then their count).
pub fn read_data(paths: &[PathBuf], log: &mut dyn Log) -> Result<Vec<Sample>, LearnError> {
    let mut samples = Vec::new();
    read_data_in_pieces(paths, usize::MAX, log, &mut |piece| samples.extend(piece))?;
    Ok(samples)
}

/// The samples of the data files `paths`, in order, handed to `take` at
/// most `games` games at a time (see [`read_file_in_pieces`]); skipped
/// lines or records are noted as [`read_data`] notes them.
pub fn read_data_in_pieces(
    paths: &[PathBuf],
    games: usize,
    log: &mut dyn Log,
    take: &mut dyn FnMut(Vec<Sample>),
) -> Result<(), LearnError> {
    for path in paths {
        let errors = read_file_in_pieces(path, games, take).map_err(LearnError::Data)?;
        for e in errors.iter().take(10) {
            log.note(&format!("{}: {e} (skipped)", path.display()));
        }
        if errors.len() > 10 {
            log.note(&format!("{}: {} more malformed lines or records skipped", path.display(), errors.len() - 10));
        }
    }
    Ok(())
}

/// The checkpoint written beside the output `out`: its name with `.ckpt` added.
pub fn checkpoint_path(out: &Path) -> PathBuf {
    let mut name = out.as_os_str().to_owned();
    name.push(".ckpt");
    PathBuf::from(name)
}

/// Refuses an output file whose folder does not exist, before the work rather than after it.
pub fn check_out_folder(out: &Path) -> Result<(), LearnError> {
    let dir = out.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
    if dir.is_dir() {
        Ok(())
    } else {
        Err(LearnError::Settings(format!("--out {}: the folder {} does not exist", out.display(), dir.display())))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_sit_beside_their_output_and_missing_folders_are_refused() {
        assert_eq!(checkpoint_path(Path::new("nets/hdc.nnue")), PathBuf::from("nets/hdc.nnue.ckpt"));
        assert!(check_out_folder(Path::new("hdc.nnue")).is_ok());
        let err = check_out_folder(Path::new("/no/such/folder/hdc.nnue")).unwrap_err();
        assert!(err.to_string().contains("the folder /no/such/folder does not exist"), "{err}");
    }

    #[test]
    fn a_missing_data_file_is_an_error_naming_it() {
        struct Quiet;
        impl Log for Quiet {
            fn line(&mut self, _: &str) {}
            fn note(&mut self, _: &str) {}
        }
        let err = read_data(&[PathBuf::from("/no/such/data.bin")], &mut Quiet).unwrap_err();
        assert!(err.to_string().contains("/no/such/data.bin"), "{err}");
    }
}
