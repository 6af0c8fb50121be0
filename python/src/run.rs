//! `posfilter.run`: the pipeline of `posfilter run CONFIG`, with the config's keys
//! overridable from Python, progress reported to a callback, and Ctrl-C stopping it.

use crate::convert::{bad_value, json_to_py};
use crate::interrupt::interruptible;
use crate::overrides;
use posfilter::pipeline::config::{Config, ConfigError, Overrides, RawConfig};
use posfilter::pipeline::RunControl;
use posfilter::pipeline::{self, PipelineError};
use pyo3::exceptions::{PyFileNotFoundError, PyOSError, PyRuntimeError};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// Runs the pipeline of `config_path` with `overrides` (dotted config keys and their
/// values) applied to its TOML; `progress` is called with the counts (a dict) every 100 ms
/// while it runs and once at the end. Returns the report, as report.json holds it.
#[pyfunction]
#[pyo3(signature = (config_path, overrides, threads, out, resume, progress))]
pub fn run<'py>(
    py: Python<'py>,
    config_path: PathBuf,
    overrides: Vec<(String, Bound<'py, PyAny>)>,
    threads: Option<usize>,
    out: Option<PathBuf>,
    resume: bool,
    progress: Option<Bound<'py, PyAny>>,
) -> PyResult<Bound<'py, PyAny>> {
    let raw = load(&config_path, &overrides)?;
    let flags = Overrides {
        threads,
        out_dir: out,
        quiet: true,
        log_every: Some(0.0),
        resume,
    };
    let mut config = Config::resolve(raw, &config_path, &flags)
        .map_err(|e| overrides::refused(e, &overrides))?;
    let control = Arc::new(RunControl::new());
    config.set_control(control.clone());
    let report_progress = |py: Python<'_>| -> PyResult<()> {
        match &progress {
            Some(f) => {
                let counts = serde_json::to_value(control.progress()).unwrap_or_default();
                f.call1((json_to_py(py, &counts)?,)).map(|_| ())
            }
            None => Ok(()),
        }
    };
    let stop = || control.stop();
    let report = interruptible(py, stop, report_progress, || pipeline::run(&config))?;
    let report = report.map_err(|e| pipeline_error(&config_path, e))?;
    report_progress(py)?;
    json_to_py(py, &serde_json::to_value(&report).unwrap_or_default())
}

/// The config of `path` with `overrides` applied (see [`overrides`]).
fn load(path: &Path, overrides: &[(String, Bound<'_, PyAny>)]) -> PyResult<RawConfig> {
    if overrides.is_empty() {
        return RawConfig::load(path).map_err(config_error);
    }
    let text = std::fs::read_to_string(path).map_err(|source| {
        config_error(ConfigError::Read {
            path: path.to_path_buf(),
            source,
        })
    })?;
    overrides::apply(&text, path, overrides)
}

/// The Python exception for a config that cannot be used: `FileNotFoundError` or
/// `OSError` when it cannot be read, else `ValueError`.
pub fn config_error(e: ConfigError) -> PyErr {
    match &e {
        ConfigError::Read { source, .. } if source.kind() == std::io::ErrorKind::NotFound => {
            PyFileNotFoundError::new_err(e.to_string())
        }
        ConfigError::Read { .. } => PyOSError::new_err(e.to_string()),
        _ => bad_value(e.to_string()),
    }
}

/// The Python exception for a failed run.
fn pipeline_error(config_path: &Path, e: PipelineError) -> PyErr {
    let message = format!("run of {} failed: {e}", config_path.display());
    match e {
        PipelineError::Input(_) | PipelineError::Output { .. } => PyOSError::new_err(message),
        PipelineError::Memory(_) | PipelineError::ReadsOwnOutput { .. } => bad_value(message),
        PipelineError::Resume { .. } => bad_value(message),
        _ => PyRuntimeError::new_err(message),
    }
}
