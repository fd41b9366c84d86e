//! `playground`: the engine from a terminal, for tests, benchmarks and reference checks.
//! Results are JSON on stdout; errors are one line on stderr and a non-zero exit.

mod args;
mod commands;
mod probe;

fn main() {
    let argv: Vec<String> = std::env::args().skip(1).collect();
    match commands::run(&argv) {
        Ok(json) => println!("{json}"),
        Err(msg) => {
            eprintln!("error: {msg}");
            std::process::exit(2);
        }
    }
}
