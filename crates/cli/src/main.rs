//! `playground`: the engine from a terminal, for tests, benchmarks and reference checks.
//! Results are JSON on stdout; errors are one line on stderr and exit code 2.

mod bench;
mod cli;
mod depth;
mod distribution;
mod faithfulness;
mod info;
mod model;
mod probe;
mod reason;
mod simulate_serving;
mod text;

use clap::error::ErrorKind;
use clap::Parser;
use cli::{Cli, Command};
use serde_json::Value;

/// The system allocator, with the ceiling that a chat template's rendering runs under: a
/// hostile template stops the program with a sentence instead of taking the machine's memory.
#[global_allocator]
static ALLOCATOR: engine::allocator::Allocator = engine::allocator::Allocator;

fn main() {
    let cli = match cli::Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => match e.kind() {
            // Asked for: the help text or the version, on stdout, success.
            ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => e.exit(),
            // No command at all: the help text is the answer, but it is still a failed call.
            ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
                eprint!("{}", e.render());
                std::process::exit(2);
            }
            _ => fail(&cli::one_line(&e)),
        },
    };
    match run(cli) {
        Ok(json) => println!("{json}"),
        Err(msg) => fail(&msg),
    }
}

/// Runs the command; each returns the JSON it prints.
fn run(cli: Cli) -> Result<Value, String> {
    let model = cli.model.as_path();
    engine::parallel::set_threads(cli.threads);
    match cli.command {
        Command::Info => info::info(model),
        Command::Tokenize { text } => text::tokenize(model, &text),
        Command::Logits { ids, top } => text::logits(model, &ids, top),
        Command::Generate(g) => text::generate(model, &g),
        Command::Bench { rounds, batch: None, depth: false, integer_activations, decode_loop } => {
            bench::bench(model, rounds, integer_activations, decode_loop)
        }
        Command::Bench { rounds, batch: None, depth: true, .. } => bench::bench_depth(model, rounds),
        Command::Bench { rounds, batch: Some(n), .. } => bench::bench_batch(model, n, rounds),
        Command::Reference { top } => text::reference(model, top),
        Command::Reason(r) => reason::reason(model, &r),
        Command::Attention { prompt, layer, head } => probe::attention(model, &prompt, layer, head),
        Command::Lens { prompt, top } => probe::lens(model, &prompt, top),
        Command::IntegerCheck { prompt, steps } => probe::integer_check(model, &prompt, steps),
        Command::BenchPass { tokens, rounds } => bench::bench_pass(model, &tokens, rounds),
        Command::Check(c) => reason::check_reply(&c),
        Command::Distribution(d) => distribution::run(model, &d),
        Command::Faithfulness(f) => faithfulness::faithfulness(model, &f),
        Command::Depth(d) => depth::depth(model, &d),
        Command::SimulateServing(s) => simulate_serving::run(model, &s),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}
