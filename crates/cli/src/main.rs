//! `playground`: the engine from a terminal, for tests, benchmarks and reference checks.
//! Results are JSON on stdout; errors are one line on stderr and exit code 2.

mod check;
mod cli;
mod commands;
mod distribution;
mod probe;

use clap::error::ErrorKind;
use clap::Parser;

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
    match commands::run(cli) {
        Ok(json) => println!("{json}"),
        Err(msg) => fail(&msg),
    }
}

fn fail(msg: &str) -> ! {
    eprintln!("error: {msg}");
    std::process::exit(2);
}
