//! The `posfilter` command line. Thin: parse, dispatch, print errors with their chain.

mod cli;

use std::process::ExitCode;

fn main() -> ExitCode {
    match cli::run() {
        Ok(code) => code,
        // A reader that stopped early (`posfilter inspect --dump FILE | head`) is not a
        // failure: stop quietly, as other command-line tools do.
        Err(err) if stdout_closed(&err) => ExitCode::SUCCESS,
        Err(err) => {
            eprintln!("posfilter: error: {}", error_chain(&err));
            ExitCode::from(2)
        }
    }
}

/// Whether the error is a write to a stdout whose reader has gone (a broken pipe).
fn stdout_closed(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|e| e.kind() == std::io::ErrorKind::BrokenPipe)
    })
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
