//! The UCI engine process: one thread reads stdin and feeds a channel; the
//! loop here takes one line at a time and dispatches it through
//! [`COMMANDS`], so `isready`, `stop`, `ponderhit` and `quit` are answered
//! while a search runs on the engine's thread. The dialect is documented in
//! `protocol.md`.
//!
//! Input is read as bytes and decoded lossily (invalid UTF-8 becomes U+FFFD);
//! lines longer than [`MAX_LINE_BYTES`] are refused whole; end of input acts
//! as `quit`. Protocol output goes to stdout only ([`fmt::Output`]); logging
//! (`RUST_LOG`) goes to stderr.

pub(crate) mod call;
pub(crate) mod command;
pub(crate) mod echo;
pub(crate) mod fmt;
pub(crate) mod options;
pub(crate) mod session;

pub use command::move_list;
pub use fmt::Output;

use call::{Call, Flow, Handled};
use command::CommandError;
use session::Session;
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, ErrorKind, Read};
use std::sync::mpsc::{self, RecvTimeoutError, Sender};
use std::time::Duration;

/// Longest input line accepted, line end included (4 MiB): longer lines are dropped with an error.
pub const MAX_LINE_BYTES: usize = 4 << 20;

/// A command: its name, how it is written, what it does, and its handler.
pub struct CommandSpec {
    /// The first token of the line, matched exactly.
    pub name: &'static str,
    /// How it is written (for `help` and error messages).
    pub usage: &'static str,
    /// What it does, in one line.
    pub about: &'static str,
    /// The handler.
    pub run: fn(&mut Session, &Call) -> Handled,
}

/// Every command the engine knows; adding one is one entry here plus its handler.
pub static COMMANDS: [CommandSpec; 15] = [
    CommandSpec { name: "uci", usage: "uci", about: "identify, list the options, answer uciok", run: Session::uci },
    CommandSpec {
        name: "isready",
        usage: "isready",
        about: "answer readyok (at once, also while searching)",
        run: Session::isready,
    },
    CommandSpec {
        name: "setoption",
        usage: "setoption name <name> [value <value>]",
        about: "set an option (uci lists them)",
        run: Session::setoption,
    },
    CommandSpec {
        name: "ucinewgame",
        usage: "ucinewgame",
        about: "a new game follows: clear the hash and the game history",
        run: Session::ucinewgame,
    },
    CommandSpec {
        name: "position",
        usage: "position startpos|fen <3D-FEN> [moves <m1> <m2> ...]",
        about: "set the position (all or nothing)",
        run: Session::position_cmd,
    },
    CommandSpec {
        name: "go",
        usage: "go [wtime|btime|winc|binc|movetime <ms>] [movestogo|depth|mate <n>] [nodes <n>] [infinite] [ponder] \
                [searchmoves <m1> ...] | go perft <depth>",
        about: "search the position and answer bestmove, or count its move tree (perft)",
        run: Session::go,
    },
    CommandSpec {
        name: "stop",
        usage: "stop",
        about: "end the search (bestmove follows) or the perft",
        run: Session::stop,
    },
    CommandSpec {
        name: "ponderhit",
        usage: "ponderhit",
        about: "the expected move was played: the ponder search goes on under the clock",
        run: Session::ponderhit,
    },
    CommandSpec {
        name: "debug",
        usage: "debug on|off",
        about: "explain what the engine does in info strings",
        run: Session::debug_mode,
    },
    CommandSpec { name: "quit", usage: "quit", about: "stop any search and exit", run: Session::quit },
    CommandSpec {
        name: "d",
        usage: "d",
        about: "show the position: every layer, FEN, key, checkers",
        run: Session::display,
    },
    CommandSpec { name: "eval", usage: "eval", about: "show the static evaluation, term by term", run: Session::eval },
    CommandSpec {
        name: "bench",
        usage: "bench [hash=1..65536] [threads=1..1024] [depth=1..100] (or the numbers in that order, as Stockfish's)",
        about: "search the fixed bench positions: speed benchmark and node-count signature",
        run: Session::bench,
    },
    CommandSpec { name: "help", usage: "help", about: "list the commands", run: help },
    // Accepted silently, as the UCI specification asks engines without copy protection to do.
    CommandSpec {
        name: "register",
        usage: "register later|name <n> code <c>",
        about: "accepted and ignored",
        run: ignore,
    },
];

fn help(session: &mut Session, _call: &Call) -> Handled {
    let width = COMMANDS.iter().map(|c| c.name.len()).max().unwrap_or(0);
    let mut text = format!("{} speaks UCI with 3D moves (see protocol.md). Commands:", fmt::ENGINE_NAME);
    for c in &COMMANDS {
        text.push_str(&format!("\n  {:width$}  {}\n  {:width$}    {}", c.name, c.about, "", c.usage));
    }
    session.out().send(&text);
    Ok(Flow::Continue)
}

fn ignore(_session: &mut Session, _call: &Call) -> Handled {
    Ok(Flow::Continue)
}

/// Runs one line through the command table; errors become `info string error: …`.
pub fn dispatch(session: &mut Session, line: &str) -> Flow {
    let line = line.trim();
    log::debug!("<< {}", fmt::cut(line, 2000));
    let Some(name) = line.split_ascii_whitespace().next() else {
        return Flow::Continue;
    };
    let result = match COMMANDS.iter().find(|c| c.name == name) {
        Some(spec) => {
            // The trimmed line starts with its first token.
            let args = line[name.len()..].trim();
            (spec.run)(session, &Call { name: spec.name, usage: spec.usage, line, args })
        }
        None => Err(CommandError::Unknown(echo::shown(name))),
    };
    match result {
        Ok(flow) => flow,
        Err(e) => {
            session.out().error(&e.to_string());
            Flow::Continue
        }
    }
}

/// What the reader thread hands the loop.
enum Input {
    /// A line without its end-of-line, decoded lossily.
    Line(String),
    /// A line longer than [`MAX_LINE_BYTES`], dropped; its length.
    TooLong(usize),
    /// End of input (or a read error).
    End,
}

/// Reads one line of at most `max` bytes into `buf` (the rest of a longer
/// line is consumed and dropped); returns the line's full length, or `None`
/// at end of input.
fn read_line_capped(r: &mut impl BufRead, buf: &mut Vec<u8>, max: usize) -> std::io::Result<Option<usize>> {
    buf.clear();
    let mut total = 0;
    loop {
        let chunk = match r.fill_buf() {
            Ok(c) => c,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if chunk.is_empty() {
            return Ok((total > 0).then_some(total));
        }
        let (take, done) = match chunk.iter().position(|&b| b == b'\n') {
            Some(i) => (i + 1, true),
            None => (chunk.len(), false),
        };
        let room = max.saturating_sub(buf.len());
        buf.extend_from_slice(&chunk[..take.min(room)]);
        total += take;
        r.consume(take);
        if done {
            return Ok(Some(total));
        }
    }
}

fn read_input(input: impl Read, tx: Sender<Input>) {
    let mut reader = BufReader::new(input);
    let mut buf = Vec::new();
    loop {
        let msg = match read_line_capped(&mut reader, &mut buf, MAX_LINE_BYTES) {
            Ok(Some(n)) if n > MAX_LINE_BYTES => Input::TooLong(n),
            Ok(Some(_)) => Input::Line(String::from_utf8_lossy(&buf).into_owned()),
            Ok(None) => Input::End,
            Err(e) => {
                log::error!("reading input: {e}");
                Input::End
            }
        };
        let end = matches!(msg, Input::End);
        if tx.send(msg).is_err() || end {
            return;
        }
    }
}

/// Whether a line from the reader is a `stop` command.
fn is_stop(msg: &Input) -> bool {
    matches!(msg, Input::Line(line) if line.split_ascii_whitespace().next() == Some("stop"))
}

/// How often the loop looks whether a perft has finished while it holds commands back.
const PERFT_POLL: Duration = Duration::from_millis(10);

/// Runs the UCI loop on `input` until `quit` or end of input, writing to
/// `out`; a search still running is stopped and its `bestmove` printed.
///
/// While a search runs, every command is handled at once. While a perft
/// counts, commands wait until it has printed its total (it runs in the
/// foreground, as in Stockfish), except `stop`, which ends it at once, even
/// when other commands wait: it is the way out of a long perft. Such a
/// `stop` also keeps its place among the waiting commands, so a search or
/// perft started by one of them is stopped too, as the order of the input
/// says.
pub fn run(input: impl Read + Send + 'static, out: Output) {
    let (tx, rx) = mpsc::channel();
    // The reader may stay blocked on stdin after `quit`; the process exits anyway.
    std::thread::Builder::new()
        .name("uci-input".into())
        .spawn(move || read_input(input, tx))
        .expect("the OS can start the input thread");
    let mut session = Session::new(out);
    let mut held: VecDeque<Input> = VecDeque::new();
    let mut input_open = true;
    loop {
        let msg = if session.perft_running() {
            if let Some(i) = held.iter().position(is_stop) {
                // A perft started from the held commands, with a `stop` waiting behind it.
                held.remove(i).unwrap_or(Input::End)
            } else if !input_open {
                // No more input can come, so no `stop` either: let the perft finish.
                session.wait_perft();
                continue;
            } else {
                match rx.recv_timeout(PERFT_POLL) {
                    Ok(msg) if is_stop(&msg) => {
                        if !held.is_empty() {
                            held.push_back(Input::Line("stop".to_string()));
                        }
                        msg
                    }
                    Ok(msg) => {
                        held.push_back(msg);
                        continue;
                    }
                    Err(RecvTimeoutError::Timeout) => continue,
                    Err(RecvTimeoutError::Disconnected) => {
                        input_open = false;
                        continue;
                    }
                }
            }
        } else if let Some(msg) = held.pop_front() {
            msg
        } else {
            rx.recv().unwrap_or(Input::End)
        };
        let flow = match msg {
            Input::Line(line) => dispatch(&mut session, &line),
            Input::TooLong(n) => {
                session.out().error(&format!("line of {n} bytes ignored (the limit is {MAX_LINE_BYTES})"));
                Flow::Continue
            }
            Input::End => Flow::Quit,
        };
        if flow == Flow::Quit {
            break;
        }
    }
    session.shutdown();
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Cursor;

    #[test]
    fn capped_reads_split_lines_and_drop_the_excess() {
        let mut r = Cursor::new(b"ab\ncdefgh\n\nlast".to_vec());
        let mut buf = Vec::new();
        assert_eq!(read_line_capped(&mut r, &mut buf, 4).unwrap(), Some(3));
        assert_eq!(buf, b"ab\n");
        assert_eq!(read_line_capped(&mut r, &mut buf, 4).unwrap(), Some(7));
        assert_eq!(buf, b"cdef");
        assert_eq!(read_line_capped(&mut r, &mut buf, 4).unwrap(), Some(1));
        assert_eq!(read_line_capped(&mut r, &mut buf, 4).unwrap(), Some(4));
        assert_eq!(buf, b"last");
        assert_eq!(read_line_capped(&mut r, &mut buf, 4).unwrap(), None);
    }

    #[test]
    fn command_names_are_unique() {
        for (i, c) in COMMANDS.iter().enumerate() {
            assert!(COMMANDS[i + 1..].iter().all(|d| d.name != c.name), "{}", c.name);
        }
    }
}
