//! The `cubist` binary: checks that the processor can run this build, then
//! runs the UCI loop by default (or `cubist uci`) or one of the subcommands
//! of `cli.rs`'s `Command` (perft, match, merge, bench, gui (with the cargo
//! feature `gui`), datagen, tune, convert, train, spsa, book, analyse), each
//! parsed there and run here through one library driver, its output printed
//! and its error reported.

// No function longer than 120 lines (clippy.toml; docs/design.md).
#![warn(clippy::too_many_lines)]

mod cli;

use clap::{ArgMatches, CommandFactory, FromArgMatches};
use cli::{Cli, Command, MatchArgs, MergeArgs, PerftArgs};
use cubist::arena::config::{
    EngineSpec, OpeningsSpec, OutputFormat, parse_log, parse_output, parse_pgnout, parse_report, parse_sprt,
};
use cubist::arena::merge::{merge_records, merge_results, write_records, write_summary};
use cubist::arena::shard::Shard;
use cubist::arena::{ArenaError, Expected, MatchConfig, resume_match, run_match_until};
use cubist::core::{Position, Variant, VariantKind};
use cubist::learn::driver::{Log, read_data};
use std::io::{ErrorKind, Write};
use std::process::ExitCode;
use std::sync::Arc;
use std::sync::atomic::AtomicBool;
use std::time::Instant;

/// The machine's cores (1 when unknown): the default of `--threads` options.
fn cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Writes `text` to stdout and flushes. A closed stdout (`cubist perft 3 |
/// head`) ends the program quietly with success, as the reader has all it
/// wanted; any other write error ends it with a message.
fn emit(text: &str) {
    let mut out = std::io::stdout().lock();
    if let Err(e) = out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        if e.kind() == ErrorKind::BrokenPipe {
            std::process::exit(0);
        }
        let _ = writeln!(std::io::stderr(), "error: cannot write to stdout: {e}");
        std::process::exit(1);
    }
}

/// Writes a line to stderr; a closed stderr is ignored.
fn note(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}

/// The endgame tables of the folder `dir` (none without it), each file
/// left out warned of on stderr; `label` (`"--tb: "` or empty) leads the
/// error and the warnings.
fn load_tables(dir: Option<&std::path::Path>, label: &str) -> Result<cubist::tb::Tablebases, String> {
    let loaded = cubist::tb::Tablebases::load_dir(dir).map_err(|e| format!("{label}{e}"))?;
    for refused in &loaded.refused {
        note(&format!("warning: {label}left out {refused}"));
    }
    Ok(loaded.tablebases)
}

/// The values of each occurrence of a repeatable option, kept apart.
fn occurrences(matches: &ArgMatches, id: &str) -> Vec<Vec<String>> {
    matches
        .get_occurrences::<String>(id)
        .map(|occ| occ.map(|values| values.cloned().collect()).collect())
        .unwrap_or_default()
}

/// The match configuration the options describe.
fn match_config(args: &MatchArgs, matches: &ArgMatches) -> Result<MatchConfig, String> {
    let each: Vec<String> = args.each.clone();
    let engines = occurrences(matches, "engine")
        .iter()
        .map(|own| EngineSpec::parse_runnable(&each, own))
        .collect::<Result<Vec<_>, _>>();
    let seed = args.seed.unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_nanos() as u64)
    });
    let e = |e: cubist::arena::config::ConfigError| e.to_string();
    let shard = match &args.shard {
        Some(text) => {
            let shard: Shard = text.parse().map_err(|e: cubist::arena::shard::ShardError| format!("--shard: {e}"))?;
            if args.seed.is_none() {
                return Err("--shard needs --seed: every shard must play the openings and random plies of the same \
                            seed"
                    .into());
            }
            shard
        }
        None => Shard::whole(),
    };
    let output = args.output.as_deref().map(parse_output).transpose().map_err(e)?.unwrap_or_default();
    let cutechess = output == OutputFormat::Cutechess;
    Ok(MatchConfig {
        event: args.event.clone(),
        site: args.site.clone(),
        noswap: args.noswap,
        wait: std::time::Duration::from_millis(args.wait),
        output,
        score_interval: args.scoreinterval.unwrap_or(u32::from(cutechess)),
        rating_interval: args.ratinginterval.unwrap_or(if cutechess { 10 } else { 0 }),
        penta_report: args.report.as_deref().map(parse_report).transpose().map_err(e)?.unwrap_or(!cutechess),
        quiet: false,
        engines: engines.map_err(e)?,
        gauntlet: args.gauntlet,
        variant: args.variant.variant(args.constellations)?,
        openings: args.openings.as_deref().map(OpeningsSpec::parse).transpose().map_err(e)?,
        random_plies: args.random_plies,
        constellations: args.constellations,
        repeat: !args.no_repeat,
        rounds: args.rounds,
        games: args.games,
        concurrency: args.concurrency,
        seed,
        adjudication: args.adjudication.adjudication().map_err(e)?,
        sprt: args.sprt.as_deref().map(parse_sprt).transpose().map_err(e)?,
        pgnout: args.pgnout.as_deref().map(parse_pgnout).transpose().map_err(e)?,
        results_json: args.results_json.clone(),
        log: args.log.as_deref().map(parse_log).transpose().map_err(e)?,
        state: args.state.clone(),
        shard,
    })
}

/// A flag that SIGINT and SIGTERM set: the match stops its engines, keeps its
/// state and ends. A second signal ends the program at once (status 130).
fn interrupt_flag() -> Result<Arc<AtomicBool>, String> {
    use signal_hook::consts::{SIGINT, SIGTERM};
    let flag = Arc::new(AtomicBool::new(false));
    for signal in [SIGINT, SIGTERM] {
        let registered = signal_hook::flag::register_conditional_shutdown(signal, 130, Arc::clone(&flag))
            .and_then(|_| signal_hook::flag::register(signal, Arc::clone(&flag)));
        registered.map_err(|e| format!("cannot catch SIGINT and SIGTERM: {e}"))?;
    }
    Ok(flag)
}

/// `cubist match`: a fresh match, or with `--resume` the rest of an interrupted
/// one (a full command line given with it must describe the same match).
/// Interrupted, it ends with status 130 and the line that says how to resume.
fn run_match_command(args: &MatchArgs, matches: &ArgMatches) -> Result<(), String> {
    let interrupt = interrupt_flag()?;
    let result = match &args.resume {
        Some(state) => {
            let expected = if args.engine.is_empty() {
                None
            } else {
                Some(Expected { config: match_config(args, matches)?, seed_given: args.seed.is_some() })
            };
            resume_match(state, expected, &interrupt)
        }
        None => run_match_until(match_config(args, matches)?, &interrupt),
    };
    match result {
        Ok(summary) => {
            emit(&summary.table());
            Ok(())
        }
        Err(e @ ArenaError::Interrupted { .. }) => {
            note(&format!("error: {e}"));
            std::process::exit(130)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `cubist spsa`: works on the run in `--state` until every iteration is
/// claimed; one line per iteration, the current values at the end.
fn run_spsa_command(args: &cli::SpsaCli) -> Result<(), String> {
    use cubist::spsa::{SpsaConfig, SpsaState, cubist_params, parse_params, run_spsa};
    let variant = args.variant.variant(args.constellations)?;
    let params = match &args.params {
        Some(file) => {
            let text = std::fs::read_to_string(file).map_err(|e| format!("cannot read '{}': {e}", file.display()))?;
            parse_params(&text).map_err(|e| e.to_string())?
        }
        None => cubist_params(&variant),
    };
    if args.print_params {
        let state = SpsaState::load(&args.state).map_err(|e| e.to_string())?;
        let now = state.map_or(params, |s| s.params_now());
        emit(&now.iter().map(|p| p.line() + "\n").collect::<String>());
        return Ok(());
    }
    let e = |e: cubist::arena::config::ConfigError| e.to_string();
    // The built-in book by default where the game has one; `--openings none` plays from the start.
    let openings = match args.openings.as_deref() {
        Some([none]) if none == "none" => None,
        Some(tokens) => Some(OpeningsSpec::parse(tokens).map_err(e)?),
        None if args.constellations => None,
        None => cubist::book::builtin(variant.kind, variant.layers).map(|_| OpeningsSpec::builtin()),
    };
    let random_plies = args.random_plies.unwrap_or(if openings.is_some() { 0 } else { 4 });
    let config = SpsaConfig {
        engine: EngineSpec::parse_runnable(&[], &args.engine).map_err(e)?,
        variant,
        params,
        iterations: args.iterations,
        pairs: args.pairs,
        openings,
        random_plies,
        constellations: args.constellations,
        adjudication: args.adjudication.adjudication().map_err(e)?,
        seed: args.seed,
    };
    let concurrency = args.concurrency.map_or_else(cores, usize::from);
    let interrupt = interrupt_flag()?;
    let mut report = |r: &cubist::spsa::IterationReport| {
        let s = &r.state;
        emit(&format!(
            "iteration {} of {}: plus {}-{}-{} minus; {} done, {} games (+{} ={} -{})\n",
            r.k,
            s.config.iterations,
            r.wdl[0],
            r.wdl[1],
            r.wdl[2],
            s.done,
            s.wins + s.draws + s.losses,
            s.wins,
            s.draws,
            s.losses
        ));
    };
    let end = run_spsa(&args.state, &config, concurrency, &interrupt, &mut report);
    match end {
        Ok(Some(state)) => {
            emit(&format!("{} of {} iterations done; values now:\n", state.done, state.config.iterations));
            emit(&state.params_now().iter().map(|p| p.line() + "\n").collect::<String>());
            Ok(())
        }
        Ok(None) => Ok(()),
        Err(cubist::spsa::SpsaError::Match(ArenaError::Interrupted { .. })) => {
            note("interrupted: the iteration in progress is given back; run the same command to go on");
            std::process::exit(130)
        }
        Err(e) => Err(e.to_string()),
    }
}

/// `cubist merge`: the merged table, and the merged JSON and records when asked for.
fn run_merge(args: &MergeArgs) -> Result<(), String> {
    let summary = merge_results(&args.results).map_err(|e| e.to_string())?;
    if let Some(out) = &args.pgnout {
        let records = merge_records(&summary, &args.pgn).map_err(|e| e.to_string())?;
        write_records(out, &records).map_err(|e| e.to_string())?;
    }
    if let Some(out) = &args.results_json {
        write_summary(out, &summary).map_err(|e| e.to_string())?;
    }
    emit(&summary.table());
    Ok(())
}

fn run_perft(args: &PerftArgs) -> Result<(), String> {
    let variant = args.variant.variant(false)?;
    let mut pos = match &args.fen {
        Some(fen) => Position::from_fen(fen, variant).map_err(|e| format!("bad FEN: {e}"))?,
        None => Position::start(variant),
    };
    let start = Instant::now();
    let total = if args.divide && args.depth > 0 {
        let mut total = 0;
        for (m, n) in cubist::perft::divide(&mut pos, args.depth) {
            emit(&format!("{m}: {n}\n"));
            total += n;
        }
        emit("\n");
        total
    } else {
        cubist::perft::perft(&mut pos, args.depth)
    };
    let elapsed = start.elapsed();
    emit(&format!("Nodes searched: {total}\n"));
    let secs = elapsed.as_secs_f64();
    // The position's own variant: a FEN brings its layer count.
    let played = pos.variant();
    note(&format!(
        "{} perft({}) in {:.3} s, {:.0} nodes/second",
        if played.kind == VariantKind::Hdc { played.kind.to_string() } else { played.to_string() },
        args.depth,
        secs,
        total as f64 / secs.max(1e-9)
    ));
    Ok(())
}

fn run_analyse(args: &cli::AnalyseCli) -> Result<(), String> {
    use cubist::analysis::{AnalyseConfig, run};
    let mut limits = cubist::Limits {
        nodes: args.nodes,
        depth: args.depth,
        movetime: args.movetime.map(std::time::Duration::from_millis),
        ..cubist::Limits::default()
    };
    if limits.nodes.is_none() && limits.depth.is_none() && limits.movetime.is_none() {
        limits.nodes = Some(100_000);
    }
    let mut said = Vec::new();
    said.extend(limits.nodes.map(|n| format!("nodes={n}")));
    said.extend(limits.depth.map(|d| format!("depth={d}")));
    said.extend(args.movetime.map(|t| format!("movetime={t}")));
    let cfg = AnalyseConfig {
        input: args.input.clone(),
        out: args.out.clone(),
        limits,
        threads: args.threads.map_or_else(cores, usize::from),
        hash_mb: args.hash as usize,
        annotator: format!("Cubist {} analyse {}", env!("CARGO_PKG_VERSION"), said.join(" ")),
        tablebases: load_tables(args.tb.as_deref(), "--tb: ")?,
    };
    let summary = run(&cfg, std::io::IsTerminal::is_terminal(&std::io::stderr())).map_err(|e| e.to_string())?;
    for (n, why) in &summary.skipped {
        note(&format!("skipped game {n}: {why}"));
    }
    let [w, b] = &summary.sides;
    note(&format!(
        "{} games analysed ({} found done), {} positions in {:.1} s ({:.1} positions/s) into {}",
        summary.games,
        summary.resumed,
        summary.positions,
        summary.seconds,
        summary.positions as f64 / summary.seconds.max(1e-3),
        args.out.display()
    ));
    for (side, s) in [("White", w), ("Black", b)] {
        note(&format!("{side}: average loss {:.0} cp over {} moves, {}", s.average_loss(), s.moves, s.marks_text()));
    }
    Ok(())
}

fn run_book(args: &cli::BookCli) -> Result<(), String> {
    use cubist::book::{BookConfig, make, render};
    let cfg = BookConfig {
        kind: args.variant,
        layers: if args.variant == VariantKind::Haberkorn { args.layers } else { 8 },
        count: args.count as usize,
        plies: args.plies,
        depth: args.depth,
        window: args.window,
        seed: args.seed,
        threads: args.threads.map_or_else(cores, usize::from),
        max_tries: args.max_tries,
    };
    let started = std::time::Instant::now();
    let book = make(&cfg, std::io::IsTerminal::is_terminal(&std::io::stderr()))?;
    let text = render(&cfg, &book);
    if args.out.as_os_str() == "-" {
        emit(&text);
    } else {
        cubist::files::write_atomically(&args.out, text.as_bytes())
            .map_err(|e| format!("{}: {e}", args.out.display()))?;
    }
    note(&format!(
        "{} positions of {} candidates ({} unbalanced, {} repeats) in {:.1} s",
        book.fens.len(),
        book.tried,
        book.unbalanced,
        book.duplicates,
        started.elapsed().as_secs_f64()
    ));
    if book.fens.len() < cfg.count {
        return Err(format!(
            "only {} of {} positions within --max-tries {}",
            book.fens.len(),
            cfg.count,
            cfg.max_tries
        ));
    }
    Ok(())
}

fn run_datagen(args: &cli::DatagenCli) -> Result<(), String> {
    use cubist::learn::data::Format;
    use cubist::learn::datagen::DatagenConfig;
    let shard = match &args.shard {
        None => Shard::whole(),
        Some(spec) => spec.parse::<Shard>().map_err(|e| e.to_string())?,
    };
    let mut cfg = DatagenConfig {
        games: args.games,
        nodes: args.nodes,
        game: args.variant,
        random_plies: args.random_plies,
        seed: args.seed,
        threads: args.threads as usize,
        hash_mb: args.hash as usize,
        max_plies: args.max_plies,
        shard,
        format: args.format.unwrap_or_else(|| Format::of_path(&args.out)),
        done: Default::default(),
    };
    let name = args.out.display();
    let (file, resumed) = cubist::learn::datagen::open_output(&mut cfg, &args.out)?;
    if resumed > 0 {
        note(&format!("{name}: resuming after {resumed} games already written"));
    }
    let mut out = std::io::BufWriter::new(file);
    let start = Instant::now();
    let done = cubist::learn::datagen::run(&cfg, &mut out, true)?;
    let secs = start.elapsed().as_secs_f64();
    note(&format!(
        "{} games, {} positions in {secs:.1} s ({:.0} positions/s, {:.0} nodes/s) written to {name}",
        done.games,
        done.positions,
        done.positions as f64 / secs.max(1e-9),
        done.nodes as f64 / secs.max(1e-9),
    ));
    Ok(())
}

/// The console as a learning command's [`Log`]: results to stdout, remarks to stderr.
struct Console;

impl Log for Console {
    fn line(&mut self, text: &str) {
        emit(&format!("{text}\n"));
    }

    fn note(&mut self, text: &str) {
        note(text);
    }
}

fn run_convert(args: &cli::ConvertCli) -> Result<(), String> {
    use cubist::learn::data::{Format, write_binary, write_text};
    let samples = read_data(std::slice::from_ref(&args.input), &mut Console).map_err(|e| e.to_string())?;
    let format = args.format.unwrap_or_else(|| Format::of_path(&args.output));
    let file = std::fs::File::create(&args.output).map_err(|e| format!("{}: {e}", args.output.display()))?;
    let mut out = std::io::BufWriter::new(file);
    match format {
        Format::Text => write_text(&mut out, &samples),
        Format::Binary => write_binary(&mut out, &samples),
    }
    .and_then(|_| std::io::Write::flush(&mut out))
    .map_err(|e| format!("{}: {e}", args.output.display()))?;
    note(&format!("{} positions written to {} ({format:?})", samples.len(), args.output.display()));
    Ok(())
}

/// `cubist tb generate`: each ending solved and summed up on stdout; the
/// endings a promotion leads to are read from the `--out` folder, where each
/// table made joins them.
fn run_tb_generate(args: &cli::TbGenerateCli) -> Result<(), String> {
    use cubist::tb::{Material, Table};
    let kind = args.variant;
    let layers = if kind == VariantKind::Hdc { 8 } else { args.layers };
    let materials = if args.material.is_empty() {
        Material::all(kind, 3)
    } else {
        args.material
            .iter()
            .map(|m| Material::parse(m, kind))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| e.to_string())?
    };
    // A folder still to be made holds no tables yet.
    let mut known = load_tables(args.out.as_deref().filter(|dir| dir.is_dir()), "")?;
    for material in &materials {
        let start = std::time::Instant::now();
        let outside = |p: &Position| known.probe(p);
        let table = Table::generate(kind, layers, material, &outside).map_err(|e| format!("{material}: {e}"))?;
        let stats = table.stats();
        emit(&format!("{} {material} on {layers} layers ({:.1} s)\n", kind.name(), start.elapsed().as_secs_f64()));
        emit(&format!("{stats}\n"));
        if args.verify {
            let start = std::time::Instant::now();
            let every = args.verify_every as usize;
            let checked = table.verify(every, &outside).map_err(|e| format!("{material}: the table is wrong: {e}"))?;
            let which = if every == 1 {
                format!("each of the {checked} legal positions agrees with its moves")
            } else {
                format!("each of {checked} legal positions (every {every}th kept one) agrees with its moves")
            };
            emit(&format!("verified: {which} ({:.1} s)\n", start.elapsed().as_secs_f64()));
        }
        if let Some(dir) = &args.out {
            let path = table.save(dir).map_err(|e| e.to_string())?;
            emit(&format!("written to {}\n", path.display()));
        }
        emit("\n");
        known.insert(table);
    }
    Ok(())
}

/// `cubist tb probe`: a position's value and each legal move's, from the table files in `--path`.
fn run_tb_probe(args: &cli::TbProbeCli) -> Result<(), String> {
    use cubist::tb::{Material, Table, Value};
    let pos = Position::from_fen(&args.fen, Variant::standard(args.variant)).map_err(|e| format!("bad FEN: {e}"))?;
    let (kind, layers) = (pos.variant().kind, pos.variant().layers);
    let material = Material::of_position(&pos).map_err(|e| e.to_string())?;
    let tables = load_tables(Some(&args.path), "")?;
    let (Some(value), Some(moves)) = (tables.probe(&pos), tables.move_values(&pos)) else {
        return Err(format!(
            "{}: no table for {material} in {} (looked for {} or {})",
            args.fen,
            args.path.display(),
            Table::file_name(kind, layers, &material),
            Table::file_name(kind, layers, &material.swapped())
        ));
    };
    emit(&format!("{material}: {value}\n"));
    let mut rows: Vec<(u16, String, Value)> =
        moves.into_iter().map(|(m, v)| (v.mover_rank(), m.to_string(), v)).collect();
    rows.sort_by(|a, b| (a.0, &a.1).cmp(&(b.0, &b.1)));
    for (_, text, v) in rows {
        let after = match v {
            Value::Mate(d) if d % 2 == 0 => format!("wins: mate in {}", d / 2 + 1),
            Value::Mate(d) => format!("loses: mated in {}", d.div_ceil(2)),
            Value::Draw => "draws".to_string(),
            Value::Illegal => "?".to_string(),
        };
        emit(&format!("{text:>16}  {after}\n"));
    }
    Ok(())
}

/// Sizes rayon's global pool, which the learning commands compute on.
fn learning_threads(threads: Option<u16>) -> Result<(), String> {
    match threads {
        Some(t) => rayon::ThreadPoolBuilder::new().num_threads(t as usize).build_global().map_err(|e| e.to_string()),
        None => Ok(()),
    }
}

fn run_bench(args: &[String]) -> Result<(), String> {
    let words: Vec<&str> = args.iter().map(String::as_str).collect();
    let b = cubist::bench::BenchArgs::parse(&words)?;
    cubist::bench::try_run(b.depth, b.threads, b.hash_mb, &cubist::Settings::default().networks, &mut Emitter)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// stdout as a writer for streamed output, through [`emit`] (a closed stdout ends the program quietly).
struct Emitter;

impl Write for Emitter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        emit(&String::from_utf8_lossy(buf));
        Ok(buf.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

fn main() -> ExitCode {
    let missing = cubist::cpu::missing_features();
    if !missing.is_empty() {
        note(&format!(
            "error: this build of cubist uses {} and this processor lacks it; rebuild it for plain x86-64 \
             with  RUSTFLAGS=\"-C target-cpu=x86-64\" cargo build --release",
            missing.join(", ")
        ));
        return ExitCode::FAILURE;
    }
    let args = match cli::normalise_args(std::env::args()) {
        Ok(args) => args,
        Err(e) => {
            note(&format!("error: {e}"));
            return ExitCode::FAILURE;
        }
    };
    // A negative number is read as a value, so that `--nodes -5` is refused
    // by the option's own parser ("invalid value '-5' for '--nodes'"), not
    // with clap's tip to write `-- -5`, which does not work for an option.
    let matches = Cli::command().mut_subcommands(|c| c.allow_negative_numbers(true)).get_matches_from(args);
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(cli) => cli,
        Err(e) => e.exit(),
    };
    let result = match &cli.command {
        Some(Command::Perft(args)) => run_perft(args),
        Some(Command::Match(args)) => {
            // RUST_LOG=trace shows every line between the runner and the engines on stderr.
            let _ = env_logger::Builder::from_default_env().target(env_logger::Target::Stderr).try_init();
            match matches.subcommand_matches("match") {
                Some(m) => run_match_command(args, m),
                None => Err("internal: no match arguments".to_string()),
            }
        }
        Some(Command::Merge(args)) => run_merge(args),
        #[cfg(feature = "gui")]
        Some(Command::Gui(args)) => cubist::gui::run(&args.options()).map_err(|e| e.to_string()),
        Some(Command::Bench(args)) => run_bench(&args.args),
        Some(Command::Datagen(args)) => run_datagen(args),
        Some(Command::Tune(args)) => learning_threads(args.threads).and_then(|()| {
            cubist::learn::tune::run(&args.job(std::env::args().collect()), &mut Console).map_err(|e| e.to_string())
        }),
        Some(Command::Convert(args)) => run_convert(args),
        Some(Command::Train(args)) => learning_threads(args.threads)
            .and_then(|()| cubist::learn::train::run(&args.job(), &mut Console).map(|_| ()).map_err(|e| e.to_string())),
        Some(Command::Spsa(args)) => {
            let _ = env_logger::Builder::from_default_env().target(env_logger::Target::Stderr).try_init();
            run_spsa_command(args)
        }
        Some(Command::Book(args)) => run_book(args),
        Some(Command::Analyse(args)) => run_analyse(args),
        Some(Command::Tb(args)) => match &args.command {
            cli::TbCommand::Generate(g) => learning_threads(g.threads).and_then(|()| run_tb_generate(g)),
            cli::TbCommand::Probe(p) => run_tb_probe(p),
        },
        Some(Command::Uci) | None => {
            // Logging goes to stderr only (RUST_LOG=debug shows every line in and out).
            let _ = env_logger::Builder::from_default_env().target(env_logger::Target::Stderr).try_init();
            cubist::uci::run(std::io::stdin(), cubist::uci::Output::stdout());
            Ok(())
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            note(&format!("error: {e}"));
            ExitCode::FAILURE
        }
    }
}
