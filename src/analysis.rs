//! Game analysis (`cubist analyse`, the GUI's replay): every position of a
//! record searched, each move's drop in winning chances marked as lichess
//! marks it (`?!`, `?`, `??`), the better line given as a variation, an
//! `[%eval …]` comment on every move and a summary per side.
//!
//! Winning chances are `2 / (1 + exp(-k·cp)) − 1` (from −1, lost, to +1,
//! won) of the mover's score; `k` is fitted per game to Cubist's own games
//! (see [`chance_slope`]). A move is an inaccuracy from a drop of 0.1, a
//! mistake from 0.2 and a blunder from 0.3, lichess's thresholds on the same
//! scale; the engine's own choice is never marked. The average loss is in
//! centipawns with scores capped at [`loss_cap`], mates at the cap.

use crate::core::{Color, GameState, Position, VariantKind};
use crate::record::{GameRecord, Mark, MoveNote, read_records};
use crate::search::{Engine, Limits, Score, Settings};
use crate::tb::{Tablebases, Value};
use indicatif::{ProgressBar, ProgressStyle};
use rayon::prelude::*;
use std::io::Write;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// The slope `k` of the winning-chance curve of a game: the logistic
/// `P(White scores) = 1 / (1 + exp(-k·cp))` fitted by cross-entropy to the
/// results of 300,000 positions per game of Cubist's self-play at 2,000
/// nodes a move (`scripts/fit_chances.py`, docs/analysis.md). A score of
/// 614 cp in hdc and 456 cp in haberkorn is worth 75%.
pub fn chance_slope(kind: VariantKind) -> f64 {
    match kind {
        VariantKind::Hdc => 0.001789,
        VariantKind::Haberkorn => 0.002409,
    }
}

/// The winning chances of a score of `cp` centipawns in game `kind`, from −1 to 1.
pub fn winning_chances(kind: VariantKind, cp: f64) -> f64 {
    2.0 / (1.0 + (-chance_slope(kind) * cp).exp()) - 1.0
}

/// The largest centipawn loss a move is charged in the average (and a
/// mate's worth): lichess's 1000 in haberkorn, whose material is valued like
/// chess's; 2.5 times that in hdc, whose pieces are worth about 2.5 times as
/// much (as the search's `lost_margin`).
pub fn loss_cap(kind: VariantKind) -> i32 {
    match kind {
        VariantKind::Hdc => 2500,
        VariantKind::Haberkorn => 1000,
    }
}

/// The drops in winning chances from which a move is an inaccuracy, a mistake or a blunder.
pub const THRESHOLDS: [(Mark, f64); 3] = [(Mark::Blunder, 0.3), (Mark::Mistake, 0.2), (Mark::Inaccuracy, 0.1)];

/// The mark a drop in winning chances earns, if any.
pub fn mark_of(drop: f64) -> Option<Mark> {
    THRESHOLDS.iter().find(|(_, t)| drop >= *t).map(|(m, _)| *m)
}

/// What a position is worth to the side to move, searched or decided by the rules.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Verdict {
    /// A search's score and principal variation (in move text, best move first).
    Searched {
        /// The score from the side to move.
        score: Score,
        /// The principal variation; may be empty.
        pv: Vec<String>,
    },
    /// The side to move is checkmated.
    Mated,
    /// No legal move, no check: a draw.
    Stalemate,
    /// The endgame tables' value (the fifty-move rule applied) and their best move.
    Tablebase {
        /// The value for the side to move.
        value: Value,
        /// The quickest win, a drawing move, or the longest defence.
        best: Option<String>,
    },
}

impl Verdict {
    /// Winning chances of the side to move, from −1 to 1.
    pub fn chances(&self, kind: VariantKind) -> f64 {
        match self {
            Verdict::Searched { score: Score::Cp(cp), .. } => winning_chances(kind, *cp as f64),
            Verdict::Searched { score: Score::Mate(n), .. } => {
                if *n > 0 {
                    1.0
                } else {
                    -1.0
                }
            }
            Verdict::Mated => -1.0,
            Verdict::Stalemate => 0.0,
            Verdict::Tablebase { value, .. } => table_sign(*value) as f64,
        }
    }

    /// Centipawns for the side to move, capped at `loss_cap` (a mate at the cap).
    pub fn capped_cp(&self, kind: VariantKind) -> i32 {
        let cap = loss_cap(kind);
        match self {
            Verdict::Searched { score: Score::Cp(cp), .. } => (*cp).clamp(-cap, cap),
            Verdict::Searched { score: Score::Mate(n), .. } => {
                if *n > 0 {
                    cap
                } else {
                    -cap
                }
            }
            Verdict::Mated => -cap,
            Verdict::Stalemate => 0,
            Verdict::Tablebase { value, .. } => table_sign(*value) * cap,
        }
    }

    /// The best move, if a search found one.
    pub fn best(&self) -> Option<&str> {
        match self {
            Verdict::Searched { pv, .. } => pv.first().map(String::as_str),
            Verdict::Tablebase { best, .. } => best.as_deref(),
            _ => None,
        }
    }

    /// The `[%eval …]` value from White's view (`side` is to move): pawns
    /// with two decimals, `#N` when White mates in N, `#-N` when Black does;
    /// none for a mated position (the game is over).
    pub fn eval_text(&self, side: Color) -> Option<String> {
        let sign = if side == Color::White { 1 } else { -1 };
        match self {
            Verdict::Searched { score: Score::Cp(cp), .. } => Some(format!("{:.2}", (sign * cp) as f64 / 100.0)),
            Verdict::Searched { score: Score::Mate(n), .. } => Some(format!("#{}", sign * n)),
            Verdict::Mated => None,
            Verdict::Stalemate => Some("0.00".into()),
            Verdict::Tablebase { value: Value::Mate(d), .. } => {
                let moves = i32::from(d.div_ceil(2));
                Some(format!("#{}", if d % 2 == 1 { sign * moves } else { -sign * moves }))
            }
            Verdict::Tablebase { .. } => Some("0.00".into()),
        }
    }

    /// What the endgame tables say, as the GUI and the annotations show it
    /// (`tablebase: White mates in 5`, `tablebase: draw`); none for a searched position.
    pub fn tablebase_text(&self, side: Color) -> Option<String> {
        let Verdict::Tablebase { value, .. } = self else { return None };
        Some(match *value {
            Value::Mate(d) => {
                let winner = if d % 2 == 1 { side } else { !side };
                format!("tablebase: {winner:?} mates in {}", d.div_ceil(2))
            }
            Value::Draw | Value::Illegal => "tablebase: draw".to_string(),
        })
    }
}

/// +1 for a table win of the side to move, −1 for a loss, 0 for a draw.
fn table_sign(value: Value) -> i32 {
    match value {
        Value::Mate(d) if d % 2 == 1 => 1,
        Value::Mate(_) => -1,
        Value::Draw | Value::Illegal => 0,
    }
}

/// A position's value as an `[%eval …]` comment gives it, from White's view.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Eval {
    /// Pawns, White ahead when positive.
    Pawns(f64),
    /// Mate in this many moves: positive when White mates, negative when Black does.
    Mate(i32),
}

impl Eval {
    /// White's winning chances in the game `kind`, from −1 to 1 (a mate is ±1).
    pub fn chances(self, kind: VariantKind) -> f64 {
        match self {
            Eval::Pawns(p) => winning_chances(kind, p * 100.0),
            Eval::Mate(n) => f64::from(n.signum()),
        }
    }
}

/// The value of the first `[%eval …]` in a move comment (`[%eval -1.25]`,
/// `[%eval #3]`, `[%eval #-2]`; a `,depth` after the value is ignored), if any.
pub fn eval_of_comment(comment: &str) -> Option<Eval> {
    let start = comment.find("[%eval")?;
    let rest = &comment[start + "[%eval".len()..];
    if !rest.starts_with(char::is_whitespace) {
        return None;
    }
    let value = rest[..rest.find(']')?].split(',').next()?.trim();
    match value.strip_prefix('#') {
        Some(n) => n.parse::<i32>().ok().filter(|n| *n != 0).map(Eval::Mate),
        None => value.parse::<f64>().ok().filter(|p| p.is_finite()).map(Eval::Pawns),
    }
}

/// The endgame tables' verdict an analysis wrote into a move comment
/// (`tablebase: White mates in 5`, `tablebase: draw`), if any.
pub fn tablebase_of_comment(comment: &str) -> Option<String> {
    let start = comment.find("tablebase: ")?;
    let words: Vec<&str> = comment[start..].split_whitespace().collect();
    match words.as_slice() {
        ["tablebase:", "draw", ..] => Some("tablebase: draw".to_string()),
        ["tablebase:", side @ ("White" | "Black"), "mates", "in", n, ..] if n.parse::<u32>().is_ok() => {
            Some(format!("tablebase: {side} mates in {n}"))
        }
        _ => None,
    }
}

/// One move's analysis.
#[derive(Clone, Debug, PartialEq)]
pub struct MoveAnalysis {
    /// The position after the move: its `[%eval …]` value (White's view), if any.
    pub eval: Option<String>,
    /// The position after the move as the endgame tables judge it, where they hold it.
    pub tablebase: Option<String>,
    /// The drop in the mover's winning chances (0 when the move was the engine's choice).
    pub drop: f64,
    /// The mover's loss in capped centipawns (0 for the engine's choice).
    pub cp_loss: i32,
    /// The mark the drop earns.
    pub mark: Option<Mark>,
    /// For a marked move, the better line: its move text with move numbers.
    pub better: Option<String>,
}

/// What one side did over a game.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SideSummary {
    /// Moves played.
    pub moves: usize,
    /// Capped centipawns lost, summed over the moves.
    pub cp_loss: i64,
    /// Inaccuracies, mistakes and blunders, in the order of [`Mark::ALL`].
    pub marks: [usize; 3],
}

impl SideSummary {
    /// The average loss per move in centipawns (0 without moves).
    pub fn average_loss(&self) -> f64 {
        if self.moves == 0 { 0.0 } else { self.cp_loss as f64 / self.moves as f64 }
    }

    /// Adds another summary's moves, loss and marks to this one.
    pub fn add(&mut self, other: &SideSummary) {
        self.moves += other.moves;
        self.cp_loss += other.cp_loss;
        for (m, n) in self.marks.iter_mut().zip(other.marks) {
            *m += n;
        }
    }

    /// As the record's tag writes it: `inaccuracies 2, mistakes 1, blunders 0`.
    pub fn marks_text(&self) -> String {
        format!("inaccuracies {}, mistakes {}, blunders {}", self.marks[0], self.marks[1], self.marks[2])
    }
}

/// A game's analysis: one entry per move, and each side's summary (White, Black).
#[derive(Clone, Debug, PartialEq)]
pub struct GameAnalysis {
    /// One per move of the record.
    pub moves: Vec<MoveAnalysis>,
    /// White's and Black's summaries.
    pub sides: [SideSummary; 2],
}

/// The positions of a record: the start and the one after each move, with
/// their history (for the repetition rule).
pub fn positions(rec: &GameRecord) -> Result<Vec<Position>, String> {
    let mut pos = Position::from_fen(&rec.fen, rec.variant).map_err(|e| format!("FEN: {e}"))?;
    let mut out = vec![pos.clone()];
    for (i, m) in rec.moves.iter().enumerate() {
        pos.play(m).map_err(|e| format!("move {} '{m}': {e}", i + 1))?;
        out.push(pos.clone());
    }
    Ok(out)
}

/// The words of a line starting at `pos`, each move with its number where
/// PGN wants one (`12... a`, `b`, `13. c`).
fn numbered_line(pos: &Position, line: &[String]) -> Vec<String> {
    let mut number = pos.fullmove_number();
    let mut white = pos.side_to_move() == Color::White;
    let mut words = Vec::new();
    for (i, m) in line.iter().enumerate() {
        if white {
            words.push(format!("{number}. {m}"));
        } else if i == 0 {
            words.push(format!("{number}... {m}"));
        } else {
            words.push(m.clone());
        }
        if !white {
            number += 1;
        }
        white = !white;
    }
    words
}

/// Plies of the better line a variation shows.
pub const VARIATION_PLIES: usize = 6;

/// Judges every move of a game from the verdicts on its positions
/// (`verdicts[i]` on `positions[i]`, one more than the moves).
pub fn judge(rec: &GameRecord, positions: &[Position], verdicts: &[Verdict]) -> GameAnalysis {
    let kind = rec.variant.kind;
    let mut sides: [SideSummary; 2] = Default::default();
    let mut moves = Vec::with_capacity(rec.moves.len());
    for (i, played) in rec.moves.iter().enumerate() {
        let (before, after) = (&verdicts[i], &verdicts[i + 1]);
        let side = positions[i].side_to_move();
        let engine_choice = before.best() == Some(played.as_str());
        let (drop, cp_loss) = if engine_choice {
            (0.0, 0)
        } else {
            let drop = before.chances(kind) + after.chances(kind);
            (drop.max(0.0), (before.capped_cp(kind) + after.capped_cp(kind)).max(0))
        };
        let mark = mark_of(drop);
        let line = match before {
            Verdict::Searched { pv, .. } => &pv[..pv.len().min(VARIATION_PLIES)],
            Verdict::Tablebase { best: Some(b), .. } => std::slice::from_ref(b),
            _ => &[],
        };
        let better = match mark {
            Some(_) if !line.is_empty() => {
                // The better move with the eval it keeps, then the rest of its line.
                let mut words = numbered_line(&positions[i], line);
                words.insert(1, format!("{{[%eval {}]}}", before.eval_text(side).unwrap_or_default()));
                Some(words.join(" "))
            }
            _ => None,
        };
        let s = &mut sides[side.index()];
        s.moves += 1;
        s.cp_loss += cp_loss as i64;
        if let Some(m) = mark {
            s.marks[m as usize] += 1;
        }
        moves.push(MoveAnalysis {
            eval: after.eval_text(positions[i + 1].side_to_move()),
            tablebase: after.tablebase_text(positions[i + 1].side_to_move()),
            drop,
            cp_loss,
            mark,
            better,
        });
    }
    GameAnalysis { moves, sides }
}

/// Removes an earlier analysis's `[%eval …]` from a move comment.
fn without_eval(comment: &str) -> String {
    match comment.find("[%eval") {
        Some(start) => {
            let end = comment[start..].find(']').map_or(comment.len(), |e| start + e + 1);
            format!("{} {}", comment[..start].trim(), comment[end..].trim()).trim().to_string()
        }
        None => comment.trim().to_string(),
    }
}

/// Writes an analysis into a record: `[%eval …]` first in each move's
/// comment (before what the mover said), the marks and variations as
/// notes, and the tags `Annotator`, `WhiteAverageLoss`, `BlackAverageLoss`,
/// `WhiteMarks` and `BlackMarks` (replacing an earlier analysis's).
pub fn annotate(rec: &mut GameRecord, analysis: &GameAnalysis, annotator: &str) {
    let n = rec.moves.len();
    rec.move_comments.resize(n, String::new());
    rec.notes = vec![MoveNote::default(); n];
    for (i, a) in analysis.moves.iter().enumerate() {
        let mut rest = without_eval(&rec.move_comments[i]);
        if let Some(tb) = &a.tablebase
            && !rest.contains(tb.as_str())
        {
            rest = format!("{tb} {rest}").trim_end().to_string();
        }
        rec.move_comments[i] = match &a.eval {
            Some(e) if rest.is_empty() => format!("[%eval {e}]"),
            Some(e) => format!("[%eval {e}] {rest}"),
            None => rest,
        };
        rec.notes[i] = MoveNote { mark: a.mark, variation: a.better.clone().unwrap_or_default() };
    }
    if rec.move_comments.iter().all(String::is_empty) {
        rec.move_comments.clear();
    }
    if rec.notes.iter().all(MoveNote::is_empty) {
        rec.notes.clear();
    }
    const TAGS: [&str; 5] = ["Annotator", "WhiteAverageLoss", "BlackAverageLoss", "WhiteMarks", "BlackMarks"];
    rec.extra_tags.retain(|(k, _)| !TAGS.contains(&k.as_str()));
    let [w, b] = &analysis.sides;
    rec.extra_tags.extend([
        ("Annotator".to_string(), annotator.to_string()),
        ("WhiteAverageLoss".to_string(), format!("{:.0}", w.average_loss())),
        ("BlackAverageLoss".to_string(), format!("{:.0}", b.average_loss())),
        ("WhiteMarks".to_string(), w.marks_text()),
        ("BlackMarks".to_string(), b.marks_text()),
    ]);
}

/// The verdict on one position: the rules' when the game is over there,
/// the endgame tables' where they hold it, else a search of `limits` from
/// a cleared engine (so that a verdict does not depend on what the engine
/// searched before).
pub fn verdict(engine: &mut Engine, pos: &Position, limits: &Limits, tables: &Tablebases) -> Verdict {
    match pos.game_state() {
        GameState::Checkmate => return Verdict::Mated,
        GameState::Stalemate => return Verdict::Stalemate,
        _ => {}
    }
    if let Some(v) = table_verdict(pos, tables) {
        return v;
    }
    engine.clear();
    let end = engine.search_line(pos, limits.clone());
    let mut pv: Vec<String> = end.pv.iter().map(|m| m.to_string()).collect();
    // The best move leads the line even where the last exact report had another.
    if let Some(b) = end.best.map(|m| m.to_string())
        && pv.first() != Some(&b)
    {
        pv = vec![b];
    }
    Verdict::Searched { score: end.score.unwrap_or(Score::Cp(0)), pv }
}

/// The tables' verdict on `pos` (the fifty-move rule applied), with the
/// best move by them: the quickest win, a draw, else the longest defence.
fn table_verdict(pos: &Position, tables: &Tablebases) -> Option<Verdict> {
    let value = tables.probe_at_clock(pos)?;
    let mut child = pos.clone();
    let best = pos
        .legal_moves()
        .iter()
        .filter_map(|&m| {
            let undo = child.make(m);
            let after = tables.probe_at_clock(&child);
            child.unmake(m, &undo);
            Some((after?.mover_rank(), m.to_string()))
        })
        .min()
        .map(|(_, m)| m);
    Some(Verdict::Tablebase { value, best })
}

/// Searches every position of `positions` on the rayon pool, one engine of
/// one thread and `hash_mb` per worker (searching with `tables` too, and
/// judging positions they hold by them); `done` is called after each.
pub fn verdicts(
    positions: &[Position],
    limits: &Limits,
    hash_mb: usize,
    tables: &Tablebases,
    done: &(dyn Fn() + Sync),
) -> Vec<Verdict> {
    let settings = Settings { hash_mb, threads: 1, tablebases: tables.clone(), ..Settings::default() };
    positions
        .par_iter()
        .map_init(
            || Engine::new(settings.clone()),
            |engine, pos| {
                let v = verdict(engine, pos, limits, tables);
                done();
                v
            },
        )
        .collect()
}

/// Analyses one record on the current rayon pool and annotates it.
pub fn analyse_record(
    rec: &mut GameRecord,
    limits: &Limits,
    hash_mb: usize,
    tables: &Tablebases,
    annotator: &str,
    done: &(dyn Fn() + Sync),
) -> Result<GameAnalysis, String> {
    let positions = positions(rec)?;
    let verdicts = verdicts(&positions, limits, hash_mb, tables, done);
    let analysis = judge(rec, &positions, &verdicts);
    annotate(rec, &analysis, annotator);
    Ok(analysis)
}

/// What `cubist analyse` is asked to do.
#[derive(Clone, Debug)]
pub struct AnalyseConfig {
    /// The records to analyse.
    pub input: PathBuf,
    /// Where the annotated records go; resumed when it holds the first ones already.
    pub out: PathBuf,
    /// The search of each position (nodes, depth or move time).
    pub limits: Limits,
    /// Worker threads (each searches one position at a time).
    pub threads: usize,
    /// Hash per worker, in MiB.
    pub hash_mb: usize,
    /// The `Annotator` tag written into each record.
    pub annotator: String,
    /// The endgame tables searched with and judged by (`--tb`; none by default).
    pub tablebases: Tablebases,
}

/// What a run did.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AnalyseSummary {
    /// Games analysed by this run.
    pub games: usize,
    /// Games found analysed already in the output (a resumed run).
    pub resumed: usize,
    /// Bad records skipped: their number in the input and why.
    pub skipped: Vec<(usize, String)>,
    /// Positions searched by this run.
    pub positions: u64,
    /// Seconds this run took.
    pub seconds: f64,
    /// Each side's summary over this run's games (White, Black).
    pub sides: [SideSummary; 2],
}

/// Why `cubist analyse` could not run.
#[derive(Debug, Error)]
pub enum AnalyseError {
    /// A file could not be read or written.
    #[error("{0}: {1}")]
    Io(String, std::io::Error),
    /// The output holds records that are not the input's first ones.
    #[error(
        "{0} holds records that are not an analysis of {1}'s first games (game {2} differs); remove it to start anew"
    )]
    NotResumable(String, String, usize),
    /// The input holds no record that can be read.
    #[error("{0}: no game record could be read")]
    NoGames(String),
    /// Threads or hash of zero.
    #[error("--threads and --hash must be at least 1")]
    Zero,
}

/// Reads the records, analyses each good one in order (its positions in
/// parallel on `threads` workers), and appends each to the output as soon
/// as it is done (flushed), so that an interrupted run keeps its finished
/// games and a second run with the same output goes on after them. Bad
/// records are reported by their number and skipped.
pub fn run(cfg: &AnalyseConfig, progress: bool) -> Result<AnalyseSummary, AnalyseError> {
    if cfg.threads == 0 || cfg.hash_mb == 0 {
        return Err(AnalyseError::Zero);
    }
    let started = std::time::Instant::now();
    let name = |p: &Path| p.display().to_string();
    let text = std::fs::read_to_string(&cfg.input).map_err(|e| AnalyseError::Io(name(&cfg.input), e))?;
    let mut summary = AnalyseSummary::default();
    let mut games = Vec::new();
    for (i, r) in read_records(&text).into_iter().enumerate() {
        match r {
            Ok(rec) => games.push(rec),
            Err(e) => summary.skipped.push((i + 1, e.to_string())),
        }
    }
    if games.is_empty() {
        return Err(AnalyseError::NoGames(name(&cfg.input)));
    }
    // Games analysed already: the output's records, which must be the input's first ones.
    let done = match std::fs::read_to_string(&cfg.out) {
        Ok(old) => {
            let old: Vec<GameRecord> = read_records(&old).into_iter().map_while(Result::ok).collect();
            if let Some(k) = old.iter().zip(&games).position(|(a, g)| a.fen != g.fen || a.moves != g.moves) {
                return Err(AnalyseError::NotResumable(name(&cfg.out), name(&cfg.input), k + 1));
            }
            old.len().min(games.len())
        }
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => 0,
        Err(e) => return Err(AnalyseError::Io(name(&cfg.out), e)),
    };
    summary.resumed = done;
    let mut out = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&cfg.out)
        .map_err(|e| AnalyseError::Io(name(&cfg.out), e))?;
    let todo = &mut games[done..];
    let total: u64 = todo.iter().map(|g| g.moves.len() as u64 + 1).sum();
    let bar = if progress { ProgressBar::new(total) } else { ProgressBar::hidden() };
    bar.set_style(
        ProgressStyle::with_template("{elapsed_precise} [{bar:30}] {pos}/{len} positions, {per_sec}, {msg}")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(cfg.threads)
        .build()
        .map_err(|e| AnalyseError::Io("the worker threads".into(), std::io::Error::other(e)))?;
    let count = todo.len();
    for (g, rec) in todo.iter_mut().enumerate() {
        bar.set_message(format!("game {}/{count}", g + 1));
        let analysis = pool
            .install(|| analyse_record(rec, &cfg.limits, cfg.hash_mb, &cfg.tablebases, &cfg.annotator, &|| bar.inc(1)));
        // The records were replayed when read: their positions are legal.
        let Ok(analysis) = analysis else { continue };
        let mut bytes = Vec::new();
        rec.write(&mut bytes)
            .and_then(|()| out.write_all(&bytes))
            .and_then(|()| out.flush())
            .map_err(|e| AnalyseError::Io(name(&cfg.out), e))?;
        summary.games += 1;
        summary.positions += rec.moves.len() as u64 + 1;
        for (s, a) in summary.sides.iter_mut().zip(&analysis.sides) {
            s.add(a);
        }
    }
    bar.finish_and_clear();
    summary.seconds = started.elapsed().as_secs_f64();
    Ok(summary)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Variant;
    use crate::record::{GameResult, Termination, parse_records};

    fn record(moves: &[&str]) -> GameRecord {
        let variant = Variant::haberkorn_with(8, 2, 7, true, true).unwrap();
        GameRecord {
            event: "t".into(),
            site: "s".into(),
            date: "2026.12.04".into(),
            round: "1".into(),
            white: "a".into(),
            black: "b".into(),
            result: GameResult::Unfinished,
            variant,
            fen: variant.start_fen(),
            time_control: "-".into(),
            termination: Termination::Unterminated,
            moves: moves.iter().map(|m| m.to_string()).collect(),
            move_comments: Vec::new(),
            comment: String::new(),
            notes: Vec::new(),
            extra_tags: Vec::new(),
        }
    }

    fn searched(cp: i32, pv: &[&str]) -> Verdict {
        Verdict::Searched { score: Score::Cp(cp), pv: pv.iter().map(|m| m.to_string()).collect() }
    }

    #[test]
    fn evals_are_read_back_from_comments() {
        assert_eq!(eval_of_comment("[%eval -1.25]"), Some(Eval::Pawns(-1.25)));
        assert_eq!(eval_of_comment("[%eval 0.00] +0.10/5 0.1s"), Some(Eval::Pawns(0.0)));
        assert_eq!(eval_of_comment("said [%eval 20.00]"), Some(Eval::Pawns(20.0)));
        assert_eq!(eval_of_comment("[%eval #3]"), Some(Eval::Mate(3)));
        assert_eq!(eval_of_comment("[%eval #-2]"), Some(Eval::Mate(-2)));
        assert_eq!(eval_of_comment("[%eval 0.31,18]"), Some(Eval::Pawns(0.31)));
        for none in
            ["", "+0.10/5 0.1s", "[%eval]", "[%eval x]", "[%eval 1.0", "[%evaluation 1]", "[%eval #0]", "[%eval NaN]"]
        {
            assert_eq!(eval_of_comment(none), None, "{none}");
        }
        // What `annotate` writes reads back.
        for (v, side) in [
            (searched(-125, &[]), Color::White),
            (Verdict::Searched { score: Score::Mate(-2), pv: vec![] }, Color::Black),
        ] {
            let text = v.eval_text(side).unwrap();
            let e = eval_of_comment(&format!("[%eval {text}]")).unwrap();
            assert!(e == Eval::Pawns(-1.25) || e == Eval::Mate(2), "{text}");
        }
        let kind = VariantKind::Hdc;
        assert_eq!(Eval::Pawns(0.0).chances(kind), 0.0);
        assert!((Eval::Pawns(6.14).chances(kind) - 0.5).abs() < 0.01);
        assert_eq!((Eval::Mate(3).chances(kind), Eval::Mate(-1).chances(kind)), (1.0, -1.0));
    }

    #[test]
    fn table_verdicts_read_as_evals_and_comments() {
        let win = Verdict::Tablebase { value: Value::Mate(9), best: Some("a1-Ia2-I".into()) };
        let loss = Verdict::Tablebase { value: Value::Mate(4), best: None };
        let draw = Verdict::Tablebase { value: Value::Draw, best: None };
        assert_eq!(win.eval_text(Color::White).as_deref(), Some("#5"));
        assert_eq!(win.eval_text(Color::Black).as_deref(), Some("#-5"));
        assert_eq!(loss.eval_text(Color::White).as_deref(), Some("#-2"));
        assert_eq!(draw.eval_text(Color::Black).as_deref(), Some("0.00"));
        assert_eq!((win.chances(VariantKind::Hdc), loss.chances(VariantKind::Hdc)), (1.0, -1.0));
        assert_eq!(win.best(), Some("a1-Ia2-I"));
        let text = win.tablebase_text(Color::Black).unwrap();
        assert_eq!(text, "tablebase: Black mates in 5");
        assert_eq!(loss.tablebase_text(Color::White).as_deref(), Some("tablebase: Black mates in 2"));
        assert_eq!(searched(10, &[]).tablebase_text(Color::White), None);
        // Read back from a comment, with the mover's words after it.
        let comment = format!("[%eval #-5] {text} +M5/3 0.01s");
        assert_eq!(tablebase_of_comment(&comment), Some(text));
        assert_eq!(tablebase_of_comment("[%eval 0.00] tablebase: draw"), Some("tablebase: draw".into()));
        assert_eq!(tablebase_of_comment("[%eval 0.10]"), None);
    }

    #[test]
    fn marks_follow_lichess_thresholds() {
        assert_eq!(mark_of(0.0), None);
        assert_eq!(mark_of(0.099), None);
        assert_eq!(mark_of(0.1), Some(Mark::Inaccuracy));
        assert_eq!(mark_of(0.25), Some(Mark::Mistake));
        assert_eq!(mark_of(0.3), Some(Mark::Blunder));
        assert_eq!(mark_of(2.0), Some(Mark::Blunder));
    }

    #[test]
    fn chances_are_odd_bounded_and_mates_are_certain() {
        for kind in [VariantKind::Hdc, VariantKind::Haberkorn] {
            let c = |cp| searched(cp, &[]).chances(kind);
            assert_eq!(c(0), 0.0);
            assert!((c(300) + c(-300)).abs() < 1e-12);
            assert!(c(100) > 0.0 && c(100) < c(500) && c(100_000) <= 1.0);
            assert_eq!(Verdict::Searched { score: Score::Mate(3), pv: vec![] }.chances(kind), 1.0);
            assert_eq!(Verdict::Searched { score: Score::Mate(-2), pv: vec![] }.chances(kind), -1.0);
            assert_eq!(Verdict::Mated.chances(kind), -1.0);
            assert_eq!(Verdict::Stalemate.chances(kind), 0.0);
        }
        // The fitted 75% point of each game.
        let p = |kind, cp: f64| 1.0 / (1.0 + (-chance_slope(kind) * cp).exp());
        assert!((p(VariantKind::Hdc, 614.0) - 0.75).abs() < 0.01);
        assert!((p(VariantKind::Haberkorn, 456.0) - 0.75).abs() < 0.01);
    }

    #[test]
    fn evals_are_from_whites_view() {
        assert_eq!(searched(35, &[]).eval_text(Color::White).as_deref(), Some("0.35"));
        assert_eq!(searched(35, &[]).eval_text(Color::Black).as_deref(), Some("-0.35"));
        let mate = Verdict::Searched { score: Score::Mate(2), pv: vec![] };
        assert_eq!(mate.eval_text(Color::Black).as_deref(), Some("#-2"));
        assert_eq!(mate.eval_text(Color::White).as_deref(), Some("#2"));
        assert_eq!(Verdict::Mated.eval_text(Color::White), None);
    }

    #[test]
    fn a_drop_is_marked_with_the_better_line_and_counted() {
        let rec = record(&["e2-IIe4-II", "e7-VIIe5-VII", "d2-IId3-II"]);
        let positions = positions(&rec).unwrap();
        let verdicts = vec![
            // White's first move is the engine's: not marked whatever the scores say.
            searched(20, &["e2-IIe4-II", "e7-VIIe5-VII"]),
            searched(600, &["d7-VIId5-VII"]),
            // Black's move dropped from -600 (its view) to... White now +2000.
            searched(2000, &["f1-IIc4-II"]),
            searched(-1500, &[]),
        ];
        let a = judge(&rec, &positions, &verdicts);
        assert_eq!(a.moves[0].mark, None);
        assert_eq!((a.moves[0].drop, a.moves[0].cp_loss), (0.0, 0));
        assert_eq!(a.moves[0].eval.as_deref(), Some("-6.00"));
        // Black: 600 (its view) before, -2000 after: a blunder, capped loss 1000 + 600.
        assert_eq!(a.moves[1].mark, Some(Mark::Blunder));
        assert_eq!(a.moves[1].cp_loss, 1000 + 600);
        assert_eq!(a.moves[1].better.as_deref(), Some("1... d7-VIId5-VII {[%eval -6.00]}"));
        // White: +2000 before, -1500 (White's view +1500) after: a small drop.
        let third = &a.moves[2];
        assert!(third.drop > 0.0 && third.drop < 0.1, "{third:?}");
        assert_eq!(third.cp_loss, 0, "both capped at 1000");
        assert_eq!(a.sides[1].marks, [0, 0, 1]);
        assert_eq!((a.sides[0].moves, a.sides[1].moves), (2, 1));
        assert_eq!(a.sides[1].average_loss(), 1600.0);
    }

    #[test]
    fn an_annotated_record_reads_back_and_annotates_again_the_same() {
        let mut rec = record(&["e2-IIe4-II", "e7-VIIe5-VII", "d2-IId3-II"]);
        rec.move_comments = vec!["+0.10/5 0.1s".into(), String::new(), "+0.20/6 0.1s".into()];
        let positions = positions(&rec).unwrap();
        let verdicts = vec![
            searched(20, &["e2-IIe4-II"]),
            searched(600, &["d7-VIId5-VII", "d2-IId4-II"]),
            searched(2000, &[]),
            searched(-1500, &[]),
        ];
        let a = judge(&rec, &positions, &verdicts);
        annotate(&mut rec, &a, "Cubist analyse nodes=1");
        assert_eq!(rec.move_comments[0], "[%eval -6.00] +0.10/5 0.1s");
        assert_eq!(rec.move_comments[1], "[%eval 20.00]");
        assert_eq!(rec.extra_tag("BlackMarks"), Some("inaccuracies 0, mistakes 0, blunders 1"));
        let mut text = Vec::new();
        rec.write(&mut text).unwrap();
        let text = String::from_utf8(text).unwrap();
        let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
        assert!(
            flat.contains("e7-VIIe5-VII?? {[%eval 20.00]} (1... d7-VIId5-VII {[%eval -6.00]} 2. d2-IId4-II)"),
            "{text}"
        );
        let back = parse_records(&text).unwrap().remove(0);
        assert_eq!(back, rec);
        let mut again = back.clone();
        annotate(&mut again, &a, "Cubist analyse nodes=1");
        assert_eq!(again, rec, "a second analysis replaces the first");
    }

    #[test]
    fn a_searched_game_is_annotated_the_same_each_time() {
        // A short game searched for real at a few nodes.
        let mut rec = record(&["e2-IIe4-II", "e7-VIIe5-VII"]);
        let limits = Limits { nodes: Some(300), ..Limits::default() };
        let a = analyse_record(&mut rec, &limits, 1, &Tablebases::default(), "t", &|| {}).unwrap();
        assert_eq!(a.moves.len(), 2);
        assert!(a.moves.iter().all(|m| m.eval.is_some()));
        assert_eq!(rec.move_comments.len(), 2);
        // The same limits give the same verdicts: each search starts from a cleared engine.
        let mut again = record(&["e2-IIe4-II", "e7-VIIe5-VII"]);
        analyse_record(&mut again, &limits, 1, &Tablebases::default(), "t", &|| {}).unwrap();
        assert_eq!(again, rec);
        let mut engine = Engine::new(Settings { hash_mb: 1, ..Settings::default() });
        let start = positions(&record(&[])).unwrap().remove(0);
        assert!(matches!(verdict(&mut engine, &start, &limits, &Tablebases::default()), Verdict::Searched { .. }));
    }
}
