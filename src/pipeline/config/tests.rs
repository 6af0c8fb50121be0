//! Unit tests of parsing and resolving pipeline.toml.

use super::raw::key_lines;
use super::*;

fn parse(text: &str) -> Result<Config, ConfigError> {
    let path = Path::new("dir/pipeline.toml");
    let raw = RawConfig::parse(text, path)?;
    Config::resolve(raw, path, &Overrides::default())
}

#[test]
fn defaults_and_paths() {
    let c = parse("[input]\npaths = [\"a.psv\"]\n").unwrap();
    assert_eq!(c.input_paths, vec![PathBuf::from("dir/a.psv")]);
    assert_eq!(c.out_dir, PathBuf::from("dir/out"));
    assert!(c.threads >= 1);
    assert_eq!(c.filter.mate.nodes, 100_000);
}

#[test]
fn batch_size_is_automatic_unless_set() {
    let with_mate = parse("[input]\npaths = [\"a\"]\n").unwrap();
    assert_eq!(with_mate.batch_records, AUTO_BATCH_MATE);
    let without = parse("[input]\npaths = [\"a\"]\n[filter.mate]\nenabled = false\n").unwrap();
    assert_eq!(without.batch_records, AUTO_BATCH_NO_MATE);
    let set = parse("[input]\npaths = [\"a\"]\n[workers]\nbatch_records = 77\n").unwrap();
    assert_eq!(set.batch_records, 77);
}

#[test]
fn checkpoints_are_automatic_unless_set() {
    let with_mate = parse("[input]\npaths = [\"a\"]\n").unwrap();
    assert_eq!(with_mate.checkpoint_records(), AUTO_CHECKPOINT_RECORDS);
    let without = parse("[input]\npaths = [\"a\"]\n[filter.mate]\nenabled = false\n").unwrap();
    assert_eq!(without.checkpoint_records(), 0);
    for n in [0, 5000] {
        let text = format!("[input]\npaths = [\"a\"]\n[output]\ncheckpoint_records = {n}\n");
        assert_eq!(parse(&text).unwrap().checkpoint_records(), n);
    }
}

#[test]
fn key_lines_follow_tables_and_dotted_keys() {
    let text = "# comment = no\n[input]\npaths = [\"a\",\n  \"b\"]\n\n[filter]\n\
                mate.nodes = 5\n[filter.mate]\n  time_ms=3 # guard\n[[odd]]\nx = 1\n";
    let lines = key_lines(text);
    assert_eq!(lines.get("input.paths"), Some(&3));
    assert_eq!(lines.get("filter.mate.nodes"), Some(&7));
    assert_eq!(lines.get("filter.mate.time_ms"), Some(&9));
    assert_eq!(lines.get("odd.x"), Some(&11));
    assert!(!lines.keys().any(|k| k.contains('#')), "{lines:?}");
}

#[test]
fn errors_name_key_line_and_choices() {
    let e = parse("[input]\npaths = [\"a\"]\n\n[output]\nshards = 3\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("shards") && e.contains("line 5") && e.contains("shard_records"),
        "{e}"
    );
    let e = parse("[input]\npaths = [\"a\"]\n[output]\ncompression = \"gzip\"\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("gzip") && e.contains("zstd") && e.contains("line 4"),
        "{e}"
    );
    let e = parse("[input]\npaths = [\"a\"]\n[filter.declaration]\nrule = \"25\"\n")
        .unwrap_err()
        .to_string();
    assert!(e.contains("csa27") && e.contains("line 4"), "{e}");
    let e = parse("[input]\npaths = []\n").unwrap_err().to_string();
    assert!(e.contains("input.paths"), "{e}");
    let e = parse("[input]\npaths = [\"a\"]\n[output]\nzstd_level = 40\n")
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("output.zstd_level") && e.contains("1..=22"),
        "{e}"
    );
}
