//! `posfilter init`: a pipeline.toml that shows every key at its default, with a comment on
//! what it does.
//!
//! # Invariants
//! - The values are taken from [`RawConfig::default`] when the text is made, never written
//!   here: the template cannot drift from the code. Only the comments live here.
//! - Every key of `RawConfig` is in the template (a key without a default value, such as
//!   `output.checkpoint_records` or `input.max_rejected`, as a commented-out line), and the template parses back to
//!   `RawConfig::default()`; the unit tests check both.

use super::RawConfig;

/// The mark of a line in a config that deliberately shows a value other than the default.
pub const NOT_DEFAULT: &str = "not the default";

/// One table of the template: its name, what it is, and its keys with their comments.
struct Table {
    name: &'static str,
    about: &'static str,
    keys: &'static [(&'static str, &'static str)],
}

/// The tables in the order the template writes them.
const TABLES: &[Table] = &[
    Table {
        name: "input",
        about: "what to read",
        keys: &[
            (
                "paths",
                "files or globs, relative to this file, read in this order (required); any may \
                 be zstd-compressed",
            ),
            (
                "format",
                "auto | sfen | usi | psfen | psv | hcp | hcpe | hcpe3 | pack | sbinpack; auto \
                 looks at the extension, the zstd magic, text vs binary, the record size and \
                 a decode probe",
            ),
            (
                "max_rejected",
                "a completed run that rejected more records than this exits with status 1; \
                 unset = more than 10 % of the input (a wrong format); a file not readable \
                 to the end always gives status 1",
            ),
        ],
    },
    Table {
        name: "output",
        about: "what to write: kept/, mates.*, audit.jsonl, rejected.jsonl, report.json, \
                manifest.json",
        keys: &[
            ("dir", "the output directory, relative to this file"),
            (
                "format",
                "same (as each input) | sfen | usi | psfen | psv | hcp | hcpe; a game \
                 format (hcpe3, pack, sbinpack) is written only as itself (same)",
            ),
            (
                "synthetic_fields",
                "allow sfen / usi / psfen / hcp to be written as psv / hcpe, with score 0, \
                 no move and a draw in every record (refused otherwise)",
            ),
            (
                "keep_moveless_hcpe",
                "write hcpe records without a move (checkmated or move-less positions); by \
                 default dropped as no_move: dlshogi trains its policy on move 0 and reads a \
                 file that ends in one as hcpe3",
            ),
            (
                "shard_records",
                "records per kept shard (kept/part-00000.<ext>[.zst]; <ext> is the inputs' \
                 own extension when they share one and are not converted, else the format's); \
                 0 = one file, for a trainer that reads only its first (nnue-pytorch)",
            ),
            (
                "compression",
                "auto (zstd if the inputs were .zst, else plain) | zstd | none",
            ),
            ("zstd_level", "1..=22"),
            (
                "audit",
                "audit.jsonl: every record not kept, with its reason",
            ),
            (
                "checkpoint_records",
                "a checkpoint every this many input records, from which `run --resume` goes \
                 on; 0 = none; unset = 1000000 with the mate filter, none without",
            ),
        ],
    },
    Table {
        name: "workers",
        about: "threads and memory",
        keys: &[
            ("threads", "0 = all cores; `--threads N` overrides"),
            ("table_mb", "df-pn table per worker thread, MiB"),
            (
                "batch_records",
                "records per batch (psv: whole games); 0 = auto: 256 with the mate filter, 8192 \
                 without it",
            ),
        ],
    },
    Table {
        name: "filter",
        about: "the per-record stages",
        keys: &[(
            "move_field",
            "psv / hcpe move fields that are not a legal move: keep (counted) | clear (zeroed) \
             | reject",
        )],
    },
    Table {
        name: "filter.mate",
        about: "terminal / mate / mated (df-pn)",
        keys: &[
            ("enabled", "run the stage"),
            ("nodes", "node budget per position; out of budget = unknown"),
            (
                "and_root",
                "positions in check: search from the AND node, drop if mated",
            ),
            ("max_plies", "longest mate reported; 0 = no limit"),
            (
                "shorten",
                "after a proof, look for a shorter mate with up to this many times the nodes \
                 the proof took; 0 = off",
            ),
            (
                "time_ms",
                "wall-time guard per position (a hit is unknown); 0 = off",
            ),
            (
                "cache_mb",
                "verdicts shared by the workers, MiB (a position met again is not searched \
                 again); 0 = off",
            ),
            (
                "table_scope",
                "position | batch (keep each worker's table across a batch; needs cache_mb = \
                 0)",
            ),
            (
                "unknown",
                "keep | drop | tag: what becomes of a position the budget leaves undecided",
            ),
        ],
    },
    Table {
        name: "filter.repetition",
        about: "history: USI move lists, or game order in psv",
        keys: &[
            ("enabled", "run the stage"),
            (
                "drop",
                "exact (same board, side and hands) | inferior (same board and side, the side \
                 to move holds strictly less)",
            ),
        ],
    },
    Table {
        name: "filter.declaration",
        about: "entering-king declaration win for the side to move",
        keys: &[("enabled", "run the stage"), ("rule", "csa27 | 24 | off")],
    },
    Table {
        name: "filter.entering_king",
        about: "the open-path scan of the kings",
        keys: &[
            ("enabled", "run the scan"),
            (
                "open_path",
                "off | tag (counted in report.json, written in the audit) | drop",
            ),
        ],
    },
    Table {
        name: "filter.dedup",
        about: "in the ordered commit: never depends on the thread count",
        keys: &[
            ("enabled", "drop positions already kept"),
            (
                "mirror",
                "a position and its left-right mirror count as one",
            ),
            (
                "reference",
                "existing pools whose positions count as already kept",
            ),
        ],
    },
    Table {
        name: "mates",
        about: "the harvested mates",
        keys: &[
            ("enabled", "write mates.jsonl and mates.<format>"),
            (
                "format",
                "the binary mates file: sfen | psfen | psv | hcp | hcpe",
            ),
        ],
    },
];

/// The defaults as a TOML tree.
fn defaults() -> toml::Table {
    toml::Table::try_from(RawConfig::default()).unwrap_or_default()
}

/// The default of dotted `key` (`filter.mate.nodes`); `None` for a key without one.
pub fn default_value(key: &str) -> Option<toml::Value> {
    let mut node = toml::Value::Table(defaults());
    for part in key.split('.') {
        node = node.as_table()?.get(part)?.clone();
    }
    Some(node)
}

/// The commented pipeline.toml of the defaults (`posfilter init`).
pub fn default_toml() -> String {
    let mut text = String::from(
        "# posfilter pipeline (`posfilter run pipeline.toml`), written by `posfilter init`.\n\
         #\n\
         # Every value below is the default: a key left out means the same. Unknown keys are\n\
         # errors. Mark a line whose value you change with `# not the default`.\n",
    );
    for table in TABLES {
        text.push_str(&format!("\n[{}]  # {}\n", table.name, table.about));
        for (key, about) in table.keys {
            let dotted = format!("{}.{key}", table.name);
            match default_value(&dotted) {
                Some(value) => text.push_str(&format!("{key} = {value}  # {about}\n")),
                None => text.push_str(&format!("# {key} =  # {about}\n")),
            }
        }
    }
    text
}

/// The keys of `config_text` (a pipeline.toml) whose value differs from the default without
/// the line saying so (`# not the default`), or that say so but hold the default: each with
/// its line number and what is wrong. Only single-line `key = value` lines are checked.
pub fn undeclared_differences(config_text: &str) -> Vec<String> {
    let mut wrong = Vec::new();
    let mut table = String::new();
    for (i, line) in config_text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(header) = trimmed.strip_prefix('[') {
            table = header.split(']').next().unwrap_or("").trim().to_string();
            continue;
        }
        if trimmed.starts_with('#') || !trimmed.contains('=') {
            continue;
        }
        let Ok(parsed) = trimmed.parse::<toml::Table>() else {
            continue;
        };
        for (key, value) in parsed {
            let dotted = format!("{table}.{key}");
            let same = default_value(&dotted).as_ref() == Some(&value);
            let marked = line.contains(NOT_DEFAULT);
            if !same && !marked {
                wrong.push(format!(
                    "line {}: {dotted} = {value} is not the default ({}) and is not marked `# \
                     {NOT_DEFAULT}`",
                    i + 1,
                    default_value(&dotted).map_or("none".to_string(), |v| v.to_string())
                ));
            } else if same && marked {
                wrong.push(format!(
                    "line {}: {dotted} = {value} is the default but marked `# {NOT_DEFAULT}`",
                    i + 1
                ));
            }
        }
    }
    wrong
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeSet;

    /// Every leaf key of a TOML tree, dotted.
    fn leaves(prefix: &str, table: &toml::Table, out: &mut BTreeSet<String>) {
        for (k, v) in table {
            let key = if prefix.is_empty() {
                k.clone()
            } else {
                format!("{prefix}.{k}")
            };
            match v {
                toml::Value::Table(t) => leaves(&key, t, out),
                _ => {
                    out.insert(key);
                }
            }
        }
    }

    #[test]
    fn the_template_parses_back_to_the_defaults() {
        let text = default_toml();
        let raw = RawConfig::parse(&text, std::path::Path::new("init.toml")).unwrap();
        let back = serde_json::to_value(&raw).unwrap();
        assert_eq!(back, serde_json::to_value(RawConfig::default()).unwrap());
        assert!(undeclared_differences(&text).is_empty());
    }

    /// Every key `RawConfig` serialises is in the template (and only those, plus the
    /// optional `output.checkpoint_records` and `input.max_rejected`), so a new key cannot be left out of `init`.
    #[test]
    fn the_template_has_every_key() {
        let mut all = BTreeSet::new();
        leaves("", &defaults(), &mut all);
        all.insert("output.checkpoint_records".into());
        all.insert("input.max_rejected".into());
        let listed: BTreeSet<String> = TABLES
            .iter()
            .flat_map(|t| t.keys.iter().map(move |(k, _)| format!("{}.{k}", t.name)))
            .collect();
        assert_eq!(listed, all);
    }

    /// The repository's pipeline.toml shows the defaults except where a line says it does
    /// not.
    #[test]
    fn the_repository_config_marks_what_is_not_the_default() {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/pipeline.toml");
        let text = std::fs::read_to_string(path).unwrap();
        let wrong = undeclared_differences(&text);
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        // And the check does catch a drifted value.
        let drifted = text.replace("table_mb = 64", "table_mb = 65");
        assert_ne!(
            drifted, text,
            "pipeline.toml has no `table_mb = 64` line any more"
        );
        assert_eq!(undeclared_differences(&drifted).len(), 1);
    }
}
