//! The `posfilter` command line. Thin: parse, dispatch, print errors with their chain.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        Err(err) => {
            eprintln!("posfilter: error: {}", error_chain(&err));
            ExitCode::from(2)
        }
    }
}

/// The error and its causes joined by ": ", leaving out a cause whose text the message
/// already holds (library errors often show their source in their own text too).
fn error_chain(err: &anyhow::Error) -> String {
    let mut message = String::new();
    for cause in err.chain() {
        let text = cause.to_string();
        if message.contains(&text) {
            continue;
        }
        if !message.is_empty() {
            message.push_str(": ");
        }
        message.push_str(&text);
    }
    message
}

#[cfg(test)]
mod tests {
    use super::error_chain;

    #[test]
    fn a_cause_already_in_the_message_is_not_repeated() {
        let io = std::io::Error::new(std::io::ErrorKind::NotFound, "No such file");
        let err = anyhow::Error::new(io).context("cannot read x.toml: No such file");
        assert_eq!(error_chain(&err), "cannot read x.toml: No such file");
        let err = anyhow::anyhow!("disk full").context("writing out");
        assert_eq!(error_chain(&err), "writing out: disk full");
    }
}
