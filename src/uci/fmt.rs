//! Writing the engine's lines: the one place that decides which output goes
//! through `vampirc-uci` and which through Cubist's own formatter.
//!
//! - vampirc-uci writes the square-free standard messages: `id`, `option`,
//!   `uciok`, `readyok`.
//! - Cubist writes everything that carries 3D moves: `info … pv …` and
//!   `bestmove …` (from [`Report`]s of the search), and the text of the
//!   extensions `d`, `eval` and `go perft`.
//!
//! [`Output`] is where every line goes: stdout, locked per write and flushed,
//! so lines from the search thread and the protocol thread never interleave.

use super::options::SPECS;
use crate::core::square::ROMAN;
use crate::core::{Color, Position, Square, Variant, VariantKind};
use crate::search::{Bound, Info, Report, Score};
use std::fmt::Write as _;
use std::io::Write;
use std::sync::{Arc, Mutex};
use vampirc_uci::{Serializable, UciMessage};

/// The engine's name as `id name` gives it.
pub const ENGINE_NAME: &str = concat!("Cubist ", env!("CARGO_PKG_VERSION"));
/// The engine's author as `id author` gives it.
pub const ENGINE_AUTHOR: &str = "the Cubist developers";

/// Longest word of an error message sent whole: longer words are echoed
/// input (a FEN field, a move, a value) and are cut; the explanation never is.
const MAX_ERROR_WORD_CHARS: usize = 48;

/// Where protocol output goes: a shared writer, locked for each write and
/// flushed after it. Cloning shares the writer.
#[derive(Clone)]
pub struct Output {
    sink: Arc<Mutex<dyn Write + Send>>,
}

impl Output {
    /// Output to the process's stdout.
    pub fn stdout() -> Output {
        Output { sink: Arc::new(Mutex::new(std::io::stdout())) }
    }

    /// Output to any writer (tests use a buffer).
    pub fn to_writer(w: impl Write + Send + 'static) -> Output {
        Output { sink: Arc::new(Mutex::new(w)) }
    }

    /// Writes `text` (one or more lines, without the final newline) in one
    /// locked write and flushes. A closed stdout (the GUI went away) is
    /// ignored here; the reader then sees end of input and the loop quits.
    pub fn send(&self, text: &str) {
        for line in text.lines() {
            log::debug!(">> {line}");
        }
        let mut sink = match self.sink.lock() {
            Ok(s) => s,
            Err(poisoned) => poisoned.into_inner(),
        };
        let _ = writeln!(sink, "{text}");
        let _ = sink.flush();
    }

    /// Sends `info string error: <message>` on one line: every word longer
    /// than `MAX_ERROR_WORD_CHARS` (echoed input) is cut with `…`, the
    /// explanation around it is kept whole.
    pub fn error(&self, message: &str) {
        self.send(&format!("info string error: {}", shorten_echoes(message)));
    }

    /// Sends `info string <message>`, one `info string` line per line of the message.
    pub fn info_string(&self, message: &str) {
        let text: Vec<String> = message.lines().map(|l| format!("info string {l}")).collect();
        if !text.is_empty() {
            self.send(&text.join("\n"));
        }
    }
}

/// `go` limits as the `go` command writes them (`depth 5 movetime 100 …`; `none` when unlimited).
pub fn limits_text(l: &crate::search::Limits) -> String {
    let ms = |d: &Option<std::time::Duration>| d.map(|d| d.as_millis().to_string());
    let mut parts: Vec<String> = Vec::new();
    let timed =
        [("wtime", &l.wtime), ("btime", &l.btime), ("winc", &l.winc), ("binc", &l.binc), ("movetime", &l.movetime)];
    for (name, value) in timed {
        if let Some(v) = ms(value) {
            parts.push(format!("{name} {v}"));
        }
    }
    let counts = [
        ("movestogo", l.movestogo.map(u64::from)),
        ("depth", l.depth.map(u64::from)),
        ("nodes", l.nodes),
        ("mate", l.mate.map(u64::from)),
    ];
    for (name, value) in counts {
        if let Some(v) = value {
            parts.push(format!("{name} {v}"));
        }
    }
    if l.infinite {
        parts.push("infinite".into());
    }
    if l.ponder {
        parts.push("ponder".into());
    }
    if parts.is_empty() { "none".into() } else { parts.join(" ") }
}

/// The search settings with the names of their UCI options.
pub fn settings_text(s: &crate::search::Settings) -> String {
    let strategy = crate::search::Strategy::NAMES
        .iter()
        .find(|n| crate::search::Strategy::from_name(n) == Some(s.strategy))
        .copied()
        .unwrap_or("search");
    format!(
        "Hash {} Threads {} MultiPV {} Move Overhead {} Strategy {strategy} Skill Level {}",
        s.hash_mb, s.threads, s.multipv, s.move_overhead_ms, s.skill_level
    )
}

/// `message` on one line with every word longer than [`MAX_ERROR_WORD_CHARS`] cut.
pub fn shorten_echoes(message: &str) -> String {
    let words: Vec<String> = message.split_whitespace().map(|w| cut(w, MAX_ERROR_WORD_CHARS)).collect();
    words.join(" ")
}

/// `text` cut after `max` characters, with `…` where it was cut.
pub fn cut(text: &str, max: usize) -> String {
    match text.char_indices().nth(max) {
        Some((i, _)) => format!("{}…", &text[..i]),
        None => text.to_string(),
    }
}

/// The reply to `uci`: `id` lines, every option, `uciok` (written by vampirc-uci).
pub fn uci_reply() -> String {
    let mut lines =
        vec![UciMessage::id_name(ENGINE_NAME).serialize(), UciMessage::id_author(ENGINE_AUTHOR).serialize()];
    lines.extend(SPECS.iter().map(|s| UciMessage::Option(s.config()).serialize()));
    lines.extend(super::options::tune_configs().into_iter().map(|c| UciMessage::Option(c).serialize()));
    lines.push(UciMessage::UciOk.serialize());
    lines.join("\n")
}

/// The reply to `isready` (written by vampirc-uci).
pub fn readyok() -> String {
    UciMessage::ReadyOk.serialize()
}

/// The protocol line of a search report: `info …`, `info string …` or `bestmove …`.
pub fn report(r: &Report) -> String {
    match r {
        Report::Info(info) => info_line(info),
        Report::Message(m) => {
            let lines: Vec<String> = m.lines().map(|l| format!("info string {l}")).collect();
            lines.join("\n")
        }
        Report::BestMove { best, ponder } => match (best, ponder) {
            (None, _) => "bestmove (none)".to_string(),
            (Some(b), Some(p)) => format!("bestmove {b} ponder {p}"),
            (Some(b), None) => format!("bestmove {b}"),
        },
    }
}

/// `info depth … seldepth … multipv … score … nodes … nps … hashfull … tbhits … time … pv …`
/// (Stockfish's order; `pv` left out when empty).
pub fn info_line(i: &Info) -> String {
    let mut s = format!("info depth {} seldepth {} multipv {} score ", i.depth, i.seldepth, i.multipv);
    match i.score {
        Score::Cp(cp) => write!(s, "cp {cp}"),
        Score::Mate(n) => write!(s, "mate {n}"),
    }
    .ok();
    match i.bound {
        Bound::Exact => {}
        Bound::Lower => s.push_str(" lowerbound"),
        Bound::Upper => s.push_str(" upperbound"),
    }
    write!(s, " nodes {} nps {} hashfull {} tbhits {} time {}", i.nodes, i.nps, i.hashfull, i.tbhits, i.time_ms).ok();
    if !i.pv.is_empty() {
        s.push_str(" pv");
        for m in &i.pv {
            write!(s, " {m}").ok();
        }
    }
    s
}

/// The name of a side as `d` and `eval` write it.
pub fn side_name(c: Color) -> &'static str {
    match c {
        Color::White => "white",
        Color::Black => "black",
    }
}

/// The text of `d`: every layer as an 8×8 diagram, the top layer first (`.`
/// empty, FEN letters for pieces), then `Fen:`, `Key:`, `Side to move:`,
/// `Checkers:` and `Variant:`.
pub fn diagram(pos: &Position) -> String {
    let mut s = String::new();
    for z in (0..pos.variant().layers).rev() {
        writeln!(s, "Layer {}", ROMAN[z as usize]).ok();
        for y in (0..8).rev() {
            write!(s, "  {} ", y + 1).ok();
            let row: Vec<String> =
                (0..8).map(|x| pos.piece_at(Square::new(x, y, z)).map_or('.', |p| p.letter()).to_string()).collect();
            writeln!(s, "{}", row.join(" ")).ok();
        }
        writeln!(s, "    a b c d e f g h").ok();
        writeln!(s).ok();
    }
    let checkers: Vec<String> = pos.checkers().into_iter().map(|sq| sq.to_string()).collect();
    writeln!(s, "Fen: {}", pos.fen()).ok();
    writeln!(s, "Key: {:016X}", pos.key()).ok();
    writeln!(s, "Side to move: {}", side_name(pos.side_to_move())).ok();
    writeln!(s, "Checkers: {}", if checkers.is_empty() { "-".to_string() } else { checkers.join(" ") }).ok();
    write!(s, "Variant: {}", variant_text(pos.variant())).ok();
    s
}

/// The variant as `d` names it: `hdc`, or `haberkorn (<n> layers, en passant
/// on|off, castling on|off)`. Setup layers are left out: once pieces stand
/// on the board, the FEN shows them.
pub fn variant_text(v: &Variant) -> String {
    let on = |b: bool| if b { "on" } else { "off" };
    match v.kind {
        VariantKind::Hdc => VariantKind::Hdc.to_string(),
        VariantKind::Haberkorn => {
            format!("haberkorn ({} layers, en passant {}, castling {})", v.layers, on(v.en_passant), on(v.castling))
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::core::Move;

    fn sq(text: &str) -> Square {
        Square::parse(text, 8).unwrap()
    }

    #[test]
    fn info_lines_follow_stockfish_order() {
        let mut info = Info {
            depth: 3,
            seldepth: 5,
            multipv: 1,
            score: Score::Cp(-12),
            bound: Bound::Lower,
            nodes: 1000,
            nps: 2000,
            hashfull: 7,
            tbhits: 3,
            time_ms: 500,
            pv: vec![Move::new(sq("e2-IV"), sq("e4-IV")), Move::new(sq("e7-IV"), sq("e5-IV"))],
        };
        assert_eq!(
            info_line(&info),
            "info depth 3 seldepth 5 multipv 1 score cp -12 lowerbound nodes 1000 nps 2000 hashfull 7 tbhits 3 time 500 \
             pv e2-IVe4-IV e7-IVe5-IV"
        );
        info.score = Score::Mate(-2);
        info.bound = Bound::Exact;
        info.pv.clear();
        assert_eq!(
            info_line(&info),
            "info depth 3 seldepth 5 multipv 1 score mate -2 nodes 1000 nps 2000 hashfull 7 tbhits 3 time 500"
        );
    }

    #[test]
    fn bestmove_lines() {
        let m = Move::new(sq("e2-IV"), sq("e4-IV"));
        let p = Move::new(sq("e7-IV"), sq("e5-IV"));
        assert_eq!(report(&Report::BestMove { best: None, ponder: None }), "bestmove (none)");
        assert_eq!(report(&Report::BestMove { best: Some(m), ponder: None }), "bestmove e2-IVe4-IV");
        assert_eq!(
            report(&Report::BestMove { best: Some(m), ponder: Some(p) }),
            "bestmove e2-IVe4-IV ponder e7-IVe5-IV"
        );
        assert_eq!(report(&Report::Message("a\nb".into())), "info string a\ninfo string b");
    }

    #[test]
    fn uci_reply_lists_every_option() {
        let text = uci_reply();
        assert!(text.starts_with("id name Cubist "));
        assert!(text.contains("option name Clear Hash type button\n"));
        assert!(text.contains("option name UCI_Variant type combo default hdc var hdc var haberkorn\n"));
        assert!(text.contains("option name HaberkornLayers type spin default 8 min 3 max 8\n"));
        assert!(text.ends_with("\nuciok"));
        assert_eq!(text.lines().filter(|l| l.starts_with("option name ")).count(), SPECS.len());
    }

    #[test]
    fn diagram_shows_every_layer_top_first() {
        let pos = Position::start(Variant::haberkorn_with(3, 1, 3, false, false).unwrap());
        let d = diagram(&pos);
        let labels: Vec<&str> = d.lines().filter(|l| l.starts_with("Layer ")).collect();
        assert_eq!(labels, ["Layer III", "Layer II", "Layer I"]);
        assert!(d.contains("  8 r n b q k b n r\n"));
        assert!(d.contains("  1 R N B Q K B N R\n"));
        assert!(d.contains("\nSide to move: white\nCheckers: -\n"));
        assert!(d.contains(&format!("Fen: {}\n", pos.fen())));
        assert!(d.lines().any(|l| l.starts_with("Key: ") && l.len() == 5 + 16));
    }

    #[test]
    fn errors_are_cut() {
        assert_eq!(cut("abcdef", 3), "abc…");
        assert_eq!(cut("abc", 3), "abc");
    }

    /// Issue 12: the explanation was cut in the middle; now only long echoed words are.
    #[test]
    fn only_echoed_words_are_shortened() {
        let long = "e2-iv".repeat(100);
        let message =
            format!("position: move 1 of 1: malformed square '{long}' (expected e.g. e2-IV); position unchanged");
        let shown = shorten_echoes(&message);
        assert!(shown.ends_with("(expected e.g. e2-IV); position unchanged"), "{shown}");
        assert!(shown.chars().count() < 150, "{shown}");
        let explanation = "option Hash: 99999999999 is out of range 1..65536; unchanged ".repeat(20);
        assert_eq!(shorten_echoes(&explanation), explanation.trim_end());
    }

    #[test]
    fn limits_and_settings_read_as_uci() {
        let l = crate::search::Limits {
            movetime: Some(std::time::Duration::from_millis(100)),
            depth: Some(5),
            ..Default::default()
        };
        assert_eq!(limits_text(&l), "movetime 100 depth 5");
        assert_eq!(limits_text(&Default::default()), "none");
        assert_eq!(
            settings_text(&crate::search::Settings::default()),
            "Hash 16 Threads 1 MultiPV 1 Move Overhead 10 Strategy search Skill Level 20"
        );
    }
}
