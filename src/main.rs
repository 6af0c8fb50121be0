//! The `posfilter` command line. Thin: parse, dispatch, print errors with their chain.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("posfilter: error: {err:#}");
            ExitCode::from(2)
        }
    }
}
