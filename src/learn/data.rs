//! Training data: a position with the search's score and the game's result
//! ([`Sample`]), and the two files that hold them.
//!
//! - **Text**, one sample a line: `GAME ; FEN ; SCORE ; RESULT` (`#` lines
//!   are a header). Easy to read and grep; about 400 bytes a position in hdc.
//! - **Binary**, one record a game: the game's start position once, then
//!   every ply as its move and the score of the position before it (5 bytes
//!   a ply), so a position costs a few bytes. Layout (little-endian):
//!
//!   ```text
//!   file   := MAGIC header record*
//!   header := u32 length, then that many bytes of UTF-8 text (the run's settings)
//!   record := u32 length, then `length` bytes of:
//!             u64 game index, u8 result (0 Black won, 1 draw, 2 White won),
//!             u8 game (0 hdc, 1 haberkorn), u8 layers, u8 White's setup layer,
//!             u8 Black's setup layer (1-based), u8 flags (1 en passant, 2 castling),
//!             u16 FEN length, the start position's 3D-FEN (ASCII),
//!             u32 plies, then per ply: u24 move (`Move::bits`), i16 score
//!   ```
//!
//!   The score is the search's, in centipawns from White's point of view,
//!   of the position before the ply's move; [`NO_SCORE`] marks a position
//!   that is not a sample (in check, a tactical best move, a mate or a
//!   decided score). A record whose length runs past the end of the file
//!   (a run killed while writing) is reported and ignored with everything
//!   after it; every complete record before it is read.

use crate::core::{Move, Position, Variant, VariantKind};
use std::fmt;
use std::io::{self, Write};
use std::path::Path;
use thiserror::Error;

/// The first eight bytes of a binary data file (format version 1).
pub const MAGIC: [u8; 8] = *b"CUBDATA1";

/// The score stored for a ply whose position is not a sample.
pub const NO_SCORE: i16 = i16::MIN;

/// One training position: a position, the search's score and the game's result.
#[derive(Clone, Debug, PartialEq)]
pub struct Sample {
    /// The position (its variant tells the game and the layer count).
    pub position: Position,
    /// The search's score, centipawns from White's point of view.
    pub score: i32,
    /// The game's result for White: 1, 0.5 or 0.
    pub result: f32,
}

impl fmt::Display for Sample {
    /// `GAME ; FEN ; SCORE ; RESULT`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let game = self.position.variant().kind;
        write!(f, "{game} ; {} ; {} ; {}", self.position.fen(), self.score, self.result)
    }
}

/// A data line or record that cannot be read.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
#[error("{where_} {at}: {reason}")]
pub struct DataError {
    /// `line` (text) or `record` (binary).
    pub where_: &'static str,
    /// Its line number (from 1) or record number (from 1).
    pub at: usize,
    /// What is wrong with it.
    pub reason: String,
}

/// Reads one data line (not a header or blank line).
pub fn parse_sample(text: &str) -> Result<Sample, String> {
    let fields: Vec<&str> = text.split(';').map(str::trim).collect();
    let [game, fen, score, result] = fields[..] else {
        return Err(format!("expected 4 fields 'GAME ; FEN ; SCORE ; RESULT', found {}", fields.len()));
    };
    let layers = fen.split_whitespace().next().map_or(0, |board| board.split('|').count());
    let variant = match game.parse::<VariantKind>() {
        Ok(VariantKind::Hdc) => Variant::hdc(),
        Ok(VariantKind::Haberkorn) => {
            let layers = u8::try_from(layers).map_err(|_| format!("{layers} layers"))?;
            Variant::haberkorn().with_layers(layers).map_err(|e| e.to_string())?
        }
        Err(_) => return Err(format!("unknown game '{game}' (hdc or haberkorn)")),
    };
    let position = Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?;
    let score: i32 = score.parse().map_err(|_| format!("bad score '{score}'"))?;
    let result = match result {
        "1" => 1.0,
        "0.5" => 0.5,
        "0" => 0.0,
        _ => return Err(format!("bad result '{result}' (1, 0.5 or 0)")),
    };
    Ok(Sample { position, score, result })
}

/// Reads a text data set: the samples, and an error (with its line number)
/// for each malformed line, which is skipped.
pub fn read_samples(text: &str) -> (Vec<Sample>, Vec<DataError>) {
    let (mut samples, mut errors) = (Vec::new(), Vec::new());
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        match parse_sample(line) {
            Ok(s) => samples.push(s),
            Err(reason) => errors.push(DataError { where_: "line", at: i + 1, reason }),
        }
    }
    (samples, errors)
}

/// One self-play game as the binary format holds it.
#[derive(Clone, Debug, PartialEq)]
pub struct GameData {
    /// The game's index in its run (what `--seed` and the index reproduce).
    pub index: u64,
    /// The position the game's recorded plies start from.
    pub start: Position,
    /// Every ply: the move played and the score of the position before it
    /// (centipawns, White's view), `None` when that position is not a sample.
    pub plies: Vec<(Move, Option<i16>)>,
    /// The result for White: 1, 0.5 or 0.
    pub result: f32,
}

impl GameData {
    /// The samples of the game: each scored position with the game's result.
    pub fn samples(&self) -> Vec<Sample> {
        let mut pos = self.start.clone();
        let mut out = Vec::new();
        for &(m, score) in &self.plies {
            if let Some(score) = score {
                out.push(Sample { position: pos.clone(), score: i32::from(score), result: self.result });
            }
            if m.is_none() {
                break;
            }
            pos.make(m);
        }
        out
    }

    /// Appends the game's binary record (length first) to `out`.
    pub fn encode(&self, out: &mut Vec<u8>) {
        let v = self.start.variant();
        let fen = self.start.fen();
        let mut body = Vec::with_capacity(32 + fen.len() + 5 * self.plies.len());
        body.extend_from_slice(&self.index.to_le_bytes());
        body.push(result_code(self.result));
        body.push(v.kind.byte());
        body.extend_from_slice(&[v.layers, v.white_layer + 1, v.black_layer + 1]);
        body.push(u8::from(v.en_passant) | u8::from(v.castling) << 1);
        body.extend_from_slice(&(fen.len() as u16).to_le_bytes());
        body.extend_from_slice(fen.as_bytes());
        body.extend_from_slice(&(self.plies.len() as u32).to_le_bytes());
        for &(m, score) in &self.plies {
            body.extend_from_slice(&m.bits().to_le_bytes()[..3]);
            body.extend_from_slice(&score.unwrap_or(NO_SCORE).to_le_bytes());
        }
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
    }
}

/// The result byte of a result for White.
fn result_code(result: f32) -> u8 {
    if result > 0.75 {
        2
    } else if result < 0.25 {
        0
    } else {
        1
    }
}

/// Reads fields off a record's bytes, refusing to run past their end.
struct Fields<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Fields<'a> {
    fn take(&mut self, n: usize) -> Result<&'a [u8], String> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.bytes.len()).ok_or("the record ends early")?;
        let s = &self.bytes[self.at..end];
        self.at = end;
        Ok(s)
    }

    fn u8(&mut self) -> Result<u8, String> {
        Ok(self.take(1)?[0])
    }

    fn u16(&mut self) -> Result<u16, String> {
        let b = self.take(2)?;
        Ok(u16::from_le_bytes([b[0], b[1]]))
    }

    fn u32(&mut self) -> Result<u32, String> {
        let b = self.take(4)?;
        Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self) -> Result<u64, String> {
        let b = self.take(8)?;
        Ok(u64::from_le_bytes(b.try_into().map_err(|_| "the record ends early")?))
    }
}

/// Decodes one record's bytes (after its length), checking every move.
pub fn decode_game(bytes: &[u8]) -> Result<GameData, String> {
    let mut f = Fields { bytes, at: 0 };
    let index = f.u64()?;
    let result = match f.u8()? {
        0 => 0.0,
        1 => 0.5,
        2 => 1.0,
        r => return Err(format!("bad result byte {r}")),
    };
    let (kind, layers, white, black, flags) = (f.u8()?, f.u8()?, f.u8()?, f.u8()?, f.u8()?);
    let variant = match VariantKind::from_byte(kind).ok_or_else(|| format!("bad game byte {kind}"))? {
        VariantKind::Hdc => Variant::hdc(),
        VariantKind::Haberkorn => {
            Variant::haberkorn_from(layers, Some(white), Some(black), flags & 1 != 0, flags & 2 != 0)
                .map_err(|e| e.to_string())?
        }
    };
    let fen_len = usize::from(f.u16()?);
    let fen = std::str::from_utf8(f.take(fen_len)?).map_err(|_| "the FEN is not text".to_string())?;
    let start = Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?;
    let n = f.u32()? as usize;
    if n > (bytes.len() - f.at) / 5 {
        return Err(format!("{n} plies do not fit the record"));
    }
    let mut pos = start.clone();
    let mut plies = Vec::with_capacity(n);
    for i in 0..n {
        let b = f.take(3)?;
        let m = Move::from_bits(u32::from_le_bytes([b[0], b[1], b[2], 0]));
        let score = f.u16()? as i16;
        let score = (score != NO_SCORE).then_some(score);
        if !m.is_none() {
            if !pos.legal_moves().contains(&m) {
                return Err(format!("ply {}: {m} is not legal in {}", i + 1, pos.fen()));
            }
            pos.make(m);
        } else if i + 1 != n {
            return Err(format!("ply {}: no move before the end", i + 1));
        }
        plies.push((m, score));
    }
    if f.at != bytes.len() {
        return Err(format!("{} bytes after the last ply", bytes.len() - f.at));
    }
    Ok(GameData { index, start, plies, result })
}

/// What a binary file held: its header, its games, an error for each record
/// that could not be decoded (skipped), and whether the file ends in a torn record.
#[derive(Debug, Default)]
pub struct GameFile {
    /// The header text (the settings of the run that wrote the file).
    pub header: String,
    /// The byte offset just after the last whole record (where appending resumes).
    pub end: usize,
    /// The games, in file order.
    pub games: Vec<GameData>,
    /// Records that could not be decoded.
    pub errors: Vec<DataError>,
    /// The byte offset of a final record cut short, if any (everything
    /// before it is whole).
    pub torn_at: Option<usize>,
}

/// The start of a binary file: [`MAGIC`] and the header.
pub fn file_start(header: &str) -> Vec<u8> {
    let mut out = MAGIC.to_vec();
    out.extend_from_slice(&(header.len() as u32).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out
}

/// Reads a binary data file's bytes (starting with [`MAGIC`]).
pub fn read_games(bytes: &[u8]) -> Result<GameFile, String> {
    let Some(rest) = bytes.strip_prefix(&MAGIC[..]) else {
        return Err("not a Cubist binary data file (no CUBDATA1 magic)".into());
    };
    let len = rest.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize);
    let Some(text) = len.and_then(|n| rest.get(4..4 + n)) else {
        return Err("the binary data file's header is cut short".into());
    };
    let header = String::from_utf8(text.to_vec()).map_err(|_| "the binary data file's header is not text")?;
    let mut rest = &rest[4 + text.len()..];
    let mut file = GameFile { header, end: bytes.len() - rest.len(), ..GameFile::default() };
    let mut record = 0;
    while !rest.is_empty() {
        record += 1;
        let offset = bytes.len() - rest.len();
        let Some(len) = rest.get(..4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]) as usize) else {
            file.torn_at = Some(offset);
            break;
        };
        let Some(body) = rest.get(4..4 + len) else {
            file.torn_at = Some(offset);
            break;
        };
        match decode_game(body) {
            Ok(g) => file.games.push(g),
            Err(reason) => file.errors.push(DataError { where_: "record", at: record, reason }),
        }
        rest = &rest[4 + len..];
        file.end = bytes.len() - rest.len();
    }
    Ok(file)
}

/// The format of a data file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// `GAME ; FEN ; SCORE ; RESULT` lines.
    Text,
    /// Game records (see the module documentation).
    Binary,
}

impl Format {
    /// The format a path's name suggests: text for `.txt`, binary otherwise.
    pub fn of_path(path: &Path) -> Format {
        match path.extension().and_then(|e| e.to_str()) {
            Some("txt") => Format::Text,
            _ => Format::Binary,
        }
    }
}

/// Reads a data file of either format (told apart by [`MAGIC`]): its
/// samples, and the errors of the lines or records that were skipped.
pub fn read_file(path: &Path) -> Result<(Vec<Sample>, Vec<DataError>), String> {
    let mut samples = Vec::new();
    let errors = read_file_in_pieces(path, usize::MAX, &mut |piece| samples.extend(piece))?;
    Ok((samples, errors))
}

/// Reads a data file of either format as [`read_file`] does, but hands its
/// samples to `take` a piece at a time, at most `games` games' worth (a
/// text file in one piece), so that only one piece's positions are held at
/// once (a position takes kilobytes, its record a few bytes a ply); returns
/// the errors of the lines or records that were skipped.
pub fn read_file_in_pieces(
    path: &Path,
    games: usize,
    take: &mut dyn FnMut(Vec<Sample>),
) -> Result<Vec<DataError>, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    if bytes.starts_with(&MAGIC) {
        let file = read_games(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
        drop(bytes);
        let mut errors = file.errors;
        if let Some(at) = file.torn_at {
            errors.push(DataError {
                where_: "record",
                at: file.games.len() + errors.len() + 1,
                reason: format!("cut short at byte {at} (an interrupted run): ignored"),
            });
        }
        for piece in file.games.chunks(games.max(1)) {
            take(piece.iter().flat_map(GameData::samples).collect());
        }
        Ok(errors)
    } else {
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{}: neither text nor Cubist binary data", path.display()))?;
        let (samples, errors) = read_samples(&text);
        take(samples);
        Ok(errors)
    }
}

/// Writes samples as text lines.
pub fn write_text(out: &mut impl Write, samples: &[Sample]) -> io::Result<()> {
    for s in samples {
        writeln!(out, "{s}")?;
    }
    Ok(())
}

/// Writes samples in the binary format, each as a game of one unplayed ply
/// (the text format keeps no moves), numbered from 0.
pub fn write_binary(out: &mut impl Write, samples: &[Sample]) -> io::Result<()> {
    out.write_all(&file_start("converted from text"))?;
    let mut buf = Vec::new();
    for (i, s) in samples.iter().enumerate() {
        // i16::MIN is NO_SCORE: the scale stops one short of it.
        let score = s.score.clamp(i32::from(NO_SCORE) + 1, i32::from(i16::MAX)) as i16;
        let game = GameData {
            index: i as u64,
            start: s.position.clone(),
            plies: vec![(Move::NONE, Some(score))],
            result: s.result,
        };
        buf.clear();
        game.encode(&mut buf);
        out.write_all(&buf)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sample(variant: Variant, score: i32, result: f32) -> Sample {
        Sample { position: Position::start(variant), score, result }
    }

    #[test]
    fn malformed_lines_are_reported_with_their_number_and_skipped() {
        let good = sample(Variant::hdc(), 35, 0.5).to_string();
        let text = format!(
            "# header\n{good}\nhdc ; nonsense ; 1 ; 1\n\nchess ; x ; 1 ; 1\n{good}\nhdc ; {} ; 1\n",
            Position::start(Variant::hdc()).fen()
        );
        let (samples, errors) = read_samples(&text);
        assert_eq!(samples.len(), 2);
        let lines: Vec<usize> = errors.iter().map(|e| e.at).collect();
        assert_eq!(lines, [3, 5, 7]);
        assert!(errors[0].to_string().starts_with("line 3: bad FEN"), "{}", errors[0]);
        assert!(errors[2].reason.contains("expected 4 fields"));
        let bad_result = good.replace("; 0.5", "; 2");
        assert!(parse_sample(&bad_result).unwrap_err().contains("bad result"));
    }

    #[test]
    fn the_haberkorn_layer_count_comes_from_the_fen() {
        let v = Variant::haberkorn_with(3, 1, 3, false, false).unwrap();
        let s = sample(v, -12, 0.0);
        assert_eq!(parse_sample(&s.to_string()).unwrap().position.variant().layers, 3);
    }

    #[test]
    fn text_converts_to_binary_and_back() {
        let v = Variant::haberkorn_with(5, 2, 4, true, false).unwrap();
        let samples = vec![sample(Variant::hdc(), 35, 0.5), sample(v, -40_000, 0.0), sample(v, 120, 1.0)];
        let mut bin = Vec::new();
        write_binary(&mut bin, &samples).unwrap();
        let file = read_games(&bin).unwrap();
        let back: Vec<Sample> = file.games.iter().flat_map(GameData::samples).collect();
        assert_eq!(back.len(), 3);
        // Scores beyond 16 bits are clamped; the rest is kept exactly.
        assert_eq!(back[1].score, -32_767);
        assert_eq!(*back[1].position.variant(), v);
        let mut text = Vec::new();
        write_text(&mut text, &back).unwrap();
        let (again, errors) = read_samples(&String::from_utf8(text).unwrap());
        assert!(errors.is_empty());
        // The text format keeps the position and the layer count; the setup layers and options stay in binary only.
        let view = |s: &Sample| (s.position.fen(), s.position.variant().layers, s.score, s.result);
        assert_eq!(again.iter().map(view).collect::<Vec<_>>(), back.iter().map(view).collect::<Vec<_>>());
        assert_eq!((again[0].score, again[2].result), (35, 1.0));
    }

    #[test]
    fn a_torn_or_corrupt_record_is_reported_and_the_rest_is_read() {
        let samples = vec![sample(Variant::hdc(), 1, 0.5), sample(Variant::hdc(), 2, 1.0)];
        let mut bin = Vec::new();
        write_binary(&mut bin, &samples).unwrap();
        // Cut inside the second record.
        let torn = &bin[..bin.len() - 3];
        let file = read_games(torn).unwrap();
        assert_eq!(file.games.len(), 1);
        assert!(file.torn_at.is_some());
        assert_eq!(file.header, "converted from text");
        // Appending resumes where the first whole records end.
        assert_eq!(file.torn_at, Some(file.end));
        assert!(read_games(&MAGIC).is_err() && read_games(&file_start("x")[..10]).is_err());
        // An illegal move inside a whole record is refused, the record skipped.
        let mut bad = Vec::new();
        let game = GameData {
            index: 9,
            start: Position::start(Variant::hdc()),
            plies: vec![(Move::from_bits(1 | 2 << 9), Some(5)), (Move::NONE, Some(6))],
            result: 0.5,
        };
        game.encode(&mut bad);
        let start = file_start("converted from text");
        let mut file = start.clone();
        file.extend_from_slice(&bad);
        file.extend_from_slice(&bin[start.len()..]);
        let read = read_games(&file).unwrap();
        assert_eq!(read.games.len(), 2);
        assert_eq!(read.errors.len(), 1);
        assert!(read.errors[0].to_string().starts_with("record 1: ply 1"), "{}", read.errors[0]);
        assert!(read_games(b"not data").is_err());
        // Arbitrary bytes after the magic never panic.
        for n in 0..64u8 {
            let junk: Vec<u8> = MAGIC.iter().copied().chain((0..n).map(|i| i.wrapping_mul(37) ^ n)).collect();
            let _ = read_games(&junk);
        }
    }
}
