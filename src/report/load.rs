//! A run's output directory as the report pages read it: report.json, and for a run whose
//! report.json predates the histograms, the mate lengths and nodes rebuilt from mates.jsonl.

use super::provenance::RunInfo;
use super::record::{Histograms, MatesVsGameResult, Sample};
use serde::Deserialize;
use serde_json::Value;
use std::io::BufRead;
use std::path::{Path, PathBuf};
use thiserror::Error;

/// Why a report page could not be made.
#[derive(Debug, Error)]
pub enum ReportError {
    /// A file could not be read or written.
    #[error("{path}: {source}")]
    Io {
        /// The file.
        path: String,
        /// The error.
        source: std::io::Error,
    },
    /// report.json (or a mates.jsonl line) is not what posfilter writes.
    #[error("{path}: {why}")]
    Format {
        /// The file (with `:line` for a JSON-lines file).
        path: String,
        /// What is wrong.
        why: String,
    },
}

/// Where a run's histograms came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HistogramSource {
    /// report.json's `histograms`.
    Report,
    /// Rebuilt from mates.jsonl (mate lengths, and nodes of the mates only).
    MatesJsonl,
    /// Neither: nothing to plot.
    None,
}

/// One run's output directory, loaded.
#[derive(Debug, Clone)]
pub struct RunData {
    /// The output directory.
    pub dir: PathBuf,
    /// report.json as written.
    pub json: Value,
    /// `histograms`, or what mates.jsonl gives for an older run.
    pub histograms: Histograms,
    /// Where `histograms` came from.
    pub histograms_from: HistogramSource,
    /// `throughput` (empty for an older run).
    pub throughput: Vec<Sample>,
    /// `mates_vs_game_result`, if the run recorded it.
    pub vs_results: Option<MatesVsGameResult>,
    /// `run`, if the run recorded it.
    pub run: Option<RunInfo>,
}

/// The fields of a mates.jsonl line the pages use.
#[derive(Deserialize)]
struct MateLine {
    kind: String,
    plies: u32,
    nodes: u64,
}

impl RunData {
    /// Reads `dir/report.json` (and `dir/mates.jsonl` when the report has no histograms).
    pub fn load(dir: &Path) -> Result<RunData, ReportError> {
        let path = dir.join("report.json");
        let bytes = std::fs::read(&path).map_err(|source| ReportError::Io {
            path: path.display().to_string(),
            source,
        })?;
        let json: Value = serde_json::from_slice(&bytes).map_err(|e| ReportError::Format {
            path: path.display().to_string(),
            why: format!("not JSON: {e}"),
        })?;
        if json
            .pointer("/records/input")
            .and_then(Value::as_u64)
            .is_none()
        {
            return Err(ReportError::Format {
                path: path.display().to_string(),
                why: "not a posfilter report.json (it has no records.input)".into(),
            });
        }
        let shown = path.display().to_string();
        let recorded: Option<Histograms> = typed(&json, "histograms", &shown)?;
        let throughput: Option<Vec<Sample>> = typed(&json, "throughput", &shown)?;
        let vs_results = typed(&json, "mates_vs_game_result", &shown)?;
        let run = typed(&json, "run", &shown)?;
        let (histograms, histograms_from) = match recorded {
            Some(h) => (h, HistogramSource::Report),
            None => match from_mates_jsonl(&dir.join("mates.jsonl"))? {
                Some(h) => (h, HistogramSource::MatesJsonl),
                None => (Histograms::default(), HistogramSource::None),
            },
        };
        Ok(RunData {
            dir: dir.to_path_buf(),
            json,
            histograms,
            histograms_from,
            throughput: throughput.unwrap_or_default(),
            vs_results,
            run,
        })
    }

    /// The value at dotted `key` (`records.dropped.mate`, `inputs.0.file`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.json.pointer(&pointer(key))
    }

    /// The number at `key`, 0 when absent.
    pub fn u(&self, key: &str) -> u64 {
        self.get(key).and_then(Value::as_u64).unwrap_or(0)
    }

    /// The string at `key`, if any.
    pub fn s(&self, key: &str) -> Option<&str> {
        self.get(key).and_then(Value::as_str)
    }

    /// The node budget per position, if the mate filter was on.
    pub fn budget(&self) -> Option<u64> {
        let on = self
            .get("config.filter.mate.enabled")
            .and_then(Value::as_bool)
            .unwrap_or(true);
        self.get("config.filter.mate.nodes")
            .and_then(Value::as_u64)
            .filter(|_| on)
    }

    /// The number of input files.
    pub fn inputs(&self) -> usize {
        self.get("inputs")
            .and_then(Value::as_array)
            .map_or(0, Vec::len)
    }

    /// The directory's name as the pages show it.
    pub fn name(&self) -> String {
        self.dir.display().to_string()
    }
}

/// The top-level `key` of `json` as a `T` (`None` when absent or null); `path` names the
/// file in errors.
fn typed<T: serde::de::DeserializeOwned>(
    json: &Value,
    key: &str,
    path: &str,
) -> Result<Option<T>, ReportError> {
    json.get(key)
        .filter(|v| !v.is_null())
        .map(|v| T::deserialize(v))
        .transpose()
        .map_err(|e| ReportError::Format {
            path: path.to_string(),
            why: format!("{key}: {e}"),
        })
}

/// The JSON pointer of dotted `key`.
pub fn pointer(key: &str) -> String {
    key.split('.').fold(String::new(), |mut p, part| {
        p.push('/');
        p.push_str(&part.replace('~', "~0").replace('/', "~1"));
        p
    })
}

/// Mate lengths and the nodes of each mate, from a mates.jsonl (`None` if there is none).
fn from_mates_jsonl(path: &Path) -> Result<Option<Histograms>, ReportError> {
    let file = match std::fs::File::open(path) {
        Ok(f) => f,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(source) => {
            return Err(ReportError::Io {
                path: path.display().to_string(),
                source,
            })
        }
    };
    let mut h = Histograms::default();
    for (i, line) in std::io::BufReader::new(file).lines().enumerate() {
        let line = line.map_err(|source| ReportError::Io {
            path: path.display().to_string(),
            source,
        })?;
        if line.trim().is_empty() {
            continue;
        }
        let m: MateLine = serde_json::from_str(&line).map_err(|e| ReportError::Format {
            path: format!("{}:{}", path.display(), i + 1),
            why: e.to_string(),
        })?;
        h.record_mate(&m.kind, m.plies);
        h.record_search(&m.kind, m.nodes, None);
    }
    Ok(Some(h))
}
