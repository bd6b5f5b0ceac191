//! Property tests (proptest) of the readers and writers of text from
//! outside: the 3D-FEN parser and printer, move text and the game-record
//! reader. Each one round-trips what the program writes (random legal
//! positions and games of both games, haberkorn on 3 to 8 layers with
//! several setup layers and both options) and refuses, never panics on,
//! arbitrary or mutated text. The results-JSON reader's properties are unit
//! tests in `src/arena/merge.rs` (its types are crate-private).
//!
//! Case counts are kept small so that the file takes seconds in
//! `cargo test --release`; `PROPTEST_CASES=10000` runs a longer hunt.

use crate::common::variant;
use cubist::core::notation::parse_move_text;
use cubist::core::{Move, Position, Variant};
use cubist::record::{GameRecord, GameResult, Mark, MoveNote, Termination, parse_records};
use proptest::prelude::*;
use proptest::sample::select;
use rand::SeedableRng;
use rand::rngs::StdRng;
use rand::seq::IndexedRandom;

/// Few cases, so that the file takes seconds; failures are not saved to a
/// file: each one found becomes a named regression test below.
fn config() -> ProptestConfig {
    ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() }
}

/// A random game: the start position of `variant` and up to `plies` random legal moves from it.
fn playout(variant: Variant, seed: u64, plies: usize) -> (Position, Vec<Move>) {
    playout_from(Position::start(variant), seed, plies)
}

/// Up to `plies` random legal moves from `pos`, and the position they reach.
fn playout_from(mut pos: Position, seed: u64, plies: usize) -> (Position, Vec<Move>) {
    let mut rng = StdRng::seed_from_u64(seed);
    let mut moves = Vec::new();
    for _ in 0..plies {
        if pos.game_state().is_over() {
            break;
        }
        let Some(&m) = pos.legal_moves().choose(&mut rng) else { break };
        pos.make(m);
        moves.push(m);
    }
    (pos, moves)
}

/// A legal position of either game, reached by a random playout.
fn position() -> impl Strategy<Value = Position> {
    (variant(), any::<u64>(), 0usize..80).prop_map(|(v, seed, plies)| playout(v, seed, plies).0)
}

/// The characters 3D-FEN and move text are made of, with a few strangers.
const FEN_CHARS: &[char] = &[
    'p', 'n', 'b', 'r', 'q', 'k', 'd', 'P', 'N', 'B', 'R', 'Q', 'K', 'D', 'x', 'X', '0', '1', '2', '3', '4', '5', '6',
    '7', '8', '9', '/', '|', ' ', '-', '–', ',', ':', 'w', 'a', 'c', 'e', 'f', 'g', 'h', 'I', 'V', 'ü', '\t', '\0',
];

/// Text from `chars`, up to `len` characters.
fn text_of(chars: &'static [char], len: usize) -> impl Strategy<Value = String> {
    prop::collection::vec(select(chars), 0..len).prop_map(|cs| cs.into_iter().collect())
}

/// One edit of a text: a character replaced, removed or inserted, a range
/// cut out or doubled, or the text cut short (positions taken modulo the length).
#[derive(Clone, Debug)]
enum Edit {
    Replace(usize, char),
    Remove(usize),
    Insert(usize, char),
    Cut(usize, usize),
    Double(usize, usize),
    Truncate(usize),
}

fn edit() -> impl Strategy<Value = Edit> {
    let c = || prop_oneof![select(FEN_CHARS), any::<char>()];
    prop_oneof![
        (any::<usize>(), c()).prop_map(|(i, c)| Edit::Replace(i, c)),
        any::<usize>().prop_map(Edit::Remove),
        (any::<usize>(), c()).prop_map(|(i, c)| Edit::Insert(i, c)),
        (any::<usize>(), 0usize..40).prop_map(|(i, n)| Edit::Cut(i, n)),
        (any::<usize>(), 0usize..40).prop_map(|(i, n)| Edit::Double(i, n)),
        any::<usize>().prop_map(Edit::Truncate),
    ]
}

/// `text` with `edits` applied, character-wise (so the result is still a string).
fn mutate(text: &str, edits: &[Edit]) -> String {
    let mut cs: Vec<char> = text.chars().collect();
    for e in edits {
        let n = cs.len();
        let at = |i: usize| if n == 0 { 0 } else { i % (n + 1) };
        match *e {
            Edit::Replace(i, c) if n > 0 => cs[i % n] = c,
            Edit::Remove(i) if n > 0 => {
                cs.remove(i % n);
            }
            Edit::Insert(i, c) => cs.insert(at(i), c),
            Edit::Cut(i, len) => {
                let start = at(i);
                cs.drain(start..(start + len).min(n));
            }
            Edit::Double(i, len) => {
                let start = at(i);
                let piece: Vec<char> = cs[start..(start + len).min(n)].to_vec();
                cs.splice(start..start, piece);
            }
            Edit::Truncate(i) => cs.truncate(at(i)),
            _ => {}
        }
    }
    cs.into_iter().collect()
}

/// Whatever the parser accepted prints to a FEN that reads back to the same
/// position and prints the same again.
fn accepted_fen_is_stable(pos: &Position) -> Result<(), TestCaseError> {
    let printed = pos.fen();
    let again = Position::from_fen(&printed, *pos.variant());
    prop_assert!(again.is_ok(), "{printed} was printed but is refused: {:?}", again.err());
    let again = again.unwrap();
    prop_assert_eq!(&again, pos);
    prop_assert_eq!(again.fen(), printed);
    Ok(())
}

proptest! {
    #![proptest_config(config())]

    /// A position printed to 3D-FEN reads back equal (its history aside) and prints the same string again.
    #[test]
    fn fen_round_trips(pos in position()) {
        let fen = pos.fen();
        let back = Position::from_fen(&fen, *pos.variant());
        prop_assert!(back.is_ok(), "{fen}: {:?}", back.err());
        let back = back.unwrap();
        let mut played = pos.clone();
        played.clear_history();
        prop_assert_eq!(&back, &played);
        prop_assert_eq!(back.fen(), fen);
    }

    /// A valid FEN with edits is refused or read; what is read prints stably. Never a panic.
    #[test]
    fn mutated_fens_are_refused_or_read_never_a_panic(
        pos in position(),
        edits in prop::collection::vec(edit(), 1..6),
        other in variant(),
    ) {
        let text = mutate(&pos.fen(), &edits);
        for v in [*pos.variant(), other] {
            if let Ok(p) = Position::from_fen(&text, v) {
                accepted_fen_is_stable(&p)?;
            }
        }
    }

    /// Arbitrary text, FEN-like or not, is refused or read; never a panic.
    #[test]
    fn arbitrary_text_is_never_a_panic_for_the_fen_parser(
        fen_like in text_of(FEN_CHARS, 300),
        any_text in any::<String>(),
        v in variant(),
    ) {
        for text in [&fen_like, &any_text] {
            if let Ok(p) = Position::from_fen(text, v) {
                accepted_fen_is_stable(&p)?;
            }
        }
    }

    /// Every legal move of a position, printed, reads back as the same move,
    /// with a hyphen or an en dash; its text splits into its squares.
    #[test]
    fn every_legal_move_round_trips(pos in position()) {
        let layers = pos.variant().layers;
        for m in pos.legal_moves() {
            let text = m.to_string();
            prop_assert_eq!(pos.parse_move(&text), Ok(m), "{}", text);
            prop_assert_eq!(pos.parse_move(&text.replace('-', "–")), Ok(m), "{}", text);
            prop_assert_eq!(parse_move_text(&text, layers), Ok((m.from(), m.to(), m.promotion_kind())));
        }
    }

    /// Arbitrary and mutated move text is refused or read as a legal move,
    /// and `play` changes nothing when it refuses. Never a panic.
    #[test]
    fn arbitrary_move_text_is_never_a_panic(
        pos in position(),
        pick in any::<prop::sample::Index>(),
        edits in prop::collection::vec(edit(), 1..4),
        move_like in text_of(FEN_CHARS, 24),
        any_text in any::<String>(),
    ) {
        let legal = pos.legal_moves();
        let mutated = match legal.is_empty() {
            true => String::new(),
            false => mutate(&legal[pick.index(legal.len())].to_string(), &edits),
        };
        for text in [&mutated, &move_like, &any_text] {
            let _ = parse_move_text(text, pos.variant().layers);
            let mut p = pos.clone();
            match p.play(text) {
                Ok(m) => prop_assert!(legal.contains(&m)),
                Err(_) => prop_assert_eq!(&p, &pos),
            }
        }
    }
}

/// Printable text for tags and comments, quotes, backslashes and brackets included.
const TAG_CHARS: &[char] =
    &['a', 'Z', '0', '9', ' ', '"', '\\', '[', ']', '.', '-', '+', '/', '*', '=', ':', ';', '%', 'é', '–'];

/// A comment as the reader gives it back: no braces, no surrounding space, not empty.
fn comment() -> impl Strategy<Value = String> {
    const CHARS: &[char] = &['a', '0', ' ', '+', '-', '/', '.', 'M', 's', '"', '\\', '[', ']', '(', ')', '{', '}'];
    (select(&CHARS[..9]), text_of(CHARS, 30)).prop_map(|(first, rest)| {
        let text: String = format!("{first}{rest}").replace('}', "");
        text.trim().to_string()
    })
}

/// A move's comment: mostly one, sometimes none (written as nothing, read back as empty).
fn move_comment() -> impl Strategy<Value = String> {
    prop_oneof![1 => Just(String::new()), 4 => comment()]
}

/// A random record: a random game of either game with random tags, per-move comments or none, and a referee comment or none.
fn record() -> impl Strategy<Value = GameRecord> {
    (
        (variant(), any::<u64>(), 0usize..60),
        prop::collection::vec(text_of(TAG_CHARS, 20), 7),
        select(&[GameResult::WhiteWins, GameResult::BlackWins, GameResult::Draw, GameResult::Unfinished][..]),
        select(&Termination::ALL[..]),
        any::<bool>(),
        prop::collection::vec(move_comment(), 60),
        prop_oneof![Just(String::new()), comment()],
        (any::<bool>(), prop::collection::vec(move_note(), 60), prop::collection::vec(text_of(TAG_CHARS, 12), 0..3)),
    )
        .prop_map(|((variant, seed, plies), tags, result, termination, commented, comments, comment, extra)| {
            let (noted, notes, extra_values) = extra;
            // Some games start from the position after a few moves, Black to move or not.
            let start = playout(variant, seed ^ 0x5eed, (seed % 4) as usize).0;
            let moves: Vec<String> = playout_from(start.clone(), seed, plies).1.iter().map(|m| m.to_string()).collect();
            GameRecord {
                event: tags[0].clone(),
                site: tags[1].clone(),
                date: tags[2].clone(),
                round: tags[3].clone(),
                white: tags[4].clone(),
                black: tags[5].clone(),
                result,
                variant,
                fen: start.fen(),
                time_control: tags[6].clone(),
                termination,
                // One comment per move or none at all: all empty is none.
                move_comments: match commented && comments[..moves.len()].iter().any(|c| !c.is_empty()) {
                    true => comments[..moves.len()].to_vec(),
                    false => Vec::new(),
                },
                // One note per move or none at all: all empty is none.
                notes: match noted && notes[..moves.len()].iter().any(|n| !n.is_empty()) {
                    true => notes[..moves.len()].to_vec(),
                    false => Vec::new(),
                },
                moves,
                comment,
                extra_tags: ["Annotator", "WhiteLoss", "Opening"]
                    .iter()
                    .zip(extra_values)
                    .map(|(name, value)| (name.to_string(), value))
                    .collect(),
            }
        })
}

/// An analysis's note on a move: a mark or none, a variation or none.
fn move_note() -> impl Strategy<Value = MoveNote> {
    const CHARS: &[char] = &['a', '0', ' ', '.', '-', 'I', 'V', '#', '%', '[', ']'];
    (prop::option::of(select(&Mark::ALL[..])), prop_oneof![Just(String::new()), text_of(CHARS, 24)])
        .prop_map(|(mark, variation)| MoveNote { mark, variation: variation.trim().to_string() })
}

/// The text `GameRecord::write` gives for `records`.
fn written(records: &[GameRecord]) -> String {
    let mut out = Vec::new();
    for r in records {
        r.write(&mut out).expect("writing to memory");
    }
    String::from_utf8(out).expect("records are UTF-8")
}

proptest! {
    #![proptest_config(config())]

    /// Records written one after another read back equal, in order.
    #[test]
    fn records_round_trip(records in prop::collection::vec(record(), 1..4)) {
        let text = written(&records);
        let back = parse_records(&text);
        prop_assert_eq!(back, Ok(records), "{}", text);
    }

    /// Records with edits, cut short or spliced, are refused or read; never a panic.
    #[test]
    fn mutated_records_are_refused_or_read_never_a_panic(
        records in prop::collection::vec(record(), 1..3),
        edits in prop::collection::vec(edit(), 1..8),
    ) {
        let text = mutate(&written(&records), &edits);
        if let Ok(back) = parse_records(&text) {
            // What is read writes and reads back the same.
            prop_assert_eq!(parse_records(&written(&back)), Ok(back));
        }
    }

    /// Arbitrary text, record-like or not, is refused or read; never a panic.
    #[test]
    fn arbitrary_text_is_never_a_panic_for_the_record_reader(
        lines in prop::collection::vec(
            prop_oneof![
                text_of(TAG_CHARS, 60),
                text_of(FEN_CHARS, 60),
                text_of(TAG_CHARS, 20).prop_map(|v| format!("[FEN \"{v}\"]")),
                select(&["[Variant \"haberkorn\"]", "[Layers \"9\"]", "[PlyCount \"18446744073709551616\"]", "{", "}", ""][..])
                    .prop_map(str::to_string),
            ],
            0..20,
        ),
        any_text in any::<String>(),
    ) {
        let _ = parse_records(&lines.join("\n"));
        let _ = parse_records(&any_text);
    }
}

/// Found by `fen_round_trips`: a position that lost a castling right kept that
/// right's rule inside, so it was not `==` to the same position read from its
/// FEN (which never had the rule).
#[test]
fn a_lost_castling_right_leaves_no_difference() {
    let mut pos = Position::start(Variant::hdc());
    for m in ["g1-IVh3-IV", "a7-IVa6-IV", "h1-IVg1-IV"] {
        pos.play(m).unwrap();
    }
    assert_ne!(pos.castling_rights(), Position::start(Variant::hdc()).castling_rights());
    pos.clear_history();
    let back = Position::from_fen(&pos.fen(), Variant::hdc()).unwrap();
    assert_eq!(back, pos, "{}", pos.fen());
}

/// Found by `records_round_trip`: with no per-move comments, the referee's
/// comment after the last move was read back as that move's comment (the GUI's
/// unfinished games lost their clocks that way).
#[test]
fn a_referee_comment_after_an_uncommented_move_stays_the_referee_s() {
    let start = Position::start(Variant::hdc());
    let record = GameRecord {
        event: "Cubist GUI".into(),
        site: "Cubist GUI".into(),
        date: "2026.12.02".into(),
        round: "1".into(),
        white: "Human".into(),
        black: "cubist".into(),
        result: GameResult::Unfinished,
        variant: Variant::hdc(),
        fen: start.fen(),
        time_control: "60+1".into(),
        termination: Termination::Unterminated,
        moves: vec!["h2-IIh4-II".into()],
        move_comments: vec![],
        comment: "clocks 59000 60000".into(),
        notes: vec![],
        extra_tags: vec![],
    };
    let text = written(std::slice::from_ref(&record));
    assert!(text.contains("1. h2-IIh4-II {} {clocks 59000 60000} *"), "{text}");
    assert_eq!(parse_records(&text), Ok(vec![record]));
}
