//! Shared helpers for the integration tests.

use std::path::PathBuf;

/// Path of a file under tests/data.
pub fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data")
        .join(name)
}

/// Reads a JSON-lines file under tests/data.
pub fn jsonl(name: &str) -> Vec<serde_json::Value> {
    let text = std::fs::read_to_string(data(name)).unwrap_or_else(|e| panic!("{name}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{name}: {e}: {l}")))
        .collect()
}

/// Seeded xorshift64, so that generated test cases and their failures reproduce.
pub struct Rng(pub u64);

impl Rng {
    /// The next 64 random bits.
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (> 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// Says on the test run's own stderr, past the test harness's output capture, that the
/// current test checked nothing because `why` (an oracle is not installed): the line then
/// stands in `cargo test`'s output beside the test's `ok`, not only under `--nocapture`.
pub fn skipped(why: &str) {
    use std::io::Write;
    let test = std::thread::current()
        .name()
        .unwrap_or("a test")
        .to_string();
    let line = format!("SKIPPED {test}: {why}\n");
    let _ = std::io::stderr().write_all(line.as_bytes());
}

/// Path of the built `posfilter` binary, or of the one `POSFILTER_TEST_BIN` names (to run
/// the tests against another build, such as the one before a fix).
#[allow(dead_code)]
pub fn bin() -> PathBuf {
    match std::env::var_os("POSFILTER_TEST_BIN") {
        Some(path) => PathBuf::from(path),
        None => PathBuf::from(env!("CARGO_BIN_EXE_posfilter")),
    }
}

/// A temporary directory removed on drop.
#[allow(dead_code)]
pub struct TempDir(pub PathBuf);

#[allow(dead_code)]
impl TempDir {
    /// A fresh directory under the system temp dir, unique per test name and process.
    pub fn new(name: &str) -> TempDir {
        let dir =
            std::env::temp_dir().join(format!("posfilter-test-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }

    /// A path inside the directory.
    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Runs the binary with `args`; returns (success, stdout, stderr).
#[allow(dead_code)]
pub fn run_bin(args: &[&str]) -> (bool, String, String) {
    let out = std::process::Command::new(bin())
        .args(args)
        .output()
        .unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `python3 ARGS…` and returns its stdout; a failure fails the test with its stderr.
#[allow(dead_code)]
pub fn python<S: AsRef<std::ffi::OsStr>>(args: impl IntoIterator<Item = S>) -> String {
    let out = std::process::Command::new("python3")
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// Runs `python3 ARGS…` (an oracle script printing one JSON object a line) and returns the
/// objects.
#[allow(dead_code)]
pub fn python_json_lines<S: AsRef<std::ffi::OsStr>>(
    args: impl IntoIterator<Item = S>,
) -> Vec<serde_json::Value> {
    python(args)
        .lines()
        .map(|l| serde_json::from_str(l).unwrap_or_else(|e| panic!("{e}: {l}")))
        .collect()
}
