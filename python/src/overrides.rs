//! Config keys set from Python: `run(config, **overrides)` and `decide(records, ...)` turn
//! keyword arguments into dotted config keys (`filter.mate.nodes`) set on a config's TOML,
//! which the config's own parser then checks, so that a bad key or value is reported as
//! the config file's would be.

use crate::convert::bad_value;
use posfilter::pipeline::config::{ConfigError, RawConfig};
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// The config of TOML `text` (read from `path`) with `overrides` (dotted keys and Python
/// values) set; `ValueError` names a bad key or value: for a value the config refuses, the
/// override that brings the refusal and why, not a line of the TOML written for it.
pub fn apply(
    text: &str,
    path: &Path,
    overrides: &[(String, Bound<'_, PyAny>)],
) -> PyResult<RawConfig> {
    let base: toml::Table = text
        .parse()
        .map_err(|e| bad_value(format!("{}: {e}", path.display())))?;
    let mut values = Vec::with_capacity(overrides.len());
    let mut doc = base.clone();
    for (key, value) in overrides {
        let value = to_toml(key, value)?;
        set_key(&mut doc, key, value.clone())?;
        values.push((key.as_str(), value));
    }
    parse_doc(&doc, path).map_err(|e| bad_value(blame(&base, path, &values, e)))
}

/// The Python exception for a config refused after its overrides were applied (by
/// `Config::resolve` or the decider's checks): a refused value that an override set is named
/// by that override, not by a line of the TOML written for it; anything else as
/// [`crate::run::config_error`] says.
pub fn refused(e: ConfigError, overrides: &[(String, Bound<'_, PyAny>)]) -> PyErr {
    if let ConfigError::Value { key, .. } = &e {
        // The last override of a key is the one in force.
        if let Some((k, value)) = overrides.iter().rev().find(|(k, _)| k == key) {
            if let Ok(value) = to_toml(k, value) {
                return bad_value(format!("override {k} = {value}: {}", reason(&e)));
            }
        }
    }
    crate::run::config_error(e)
}

/// `doc` parsed as a config read from `path`.
fn parse_doc(doc: &toml::Table, path: &Path) -> Result<RawConfig, ConfigError> {
    let text = toml::to_string(doc).map_err(|e| ConfigError::Parse {
        path: path.to_path_buf(),
        message: e.to_string(),
    })?;
    RawConfig::parse(&text, path)
}

/// Why a config with `values` set on `base` is refused: the first override whose setting
/// makes it so, with the reason alone (`whole`, the refusal, as a fallback: the base config
/// refused already, or only the overrides together are wrong).
fn blame(
    base: &toml::Table,
    path: &Path,
    values: &[(&str, toml::Value)],
    whole: ConfigError,
) -> String {
    if let Err(e) = parse_doc(base, path) {
        return e.to_string();
    }
    let mut doc = base.clone();
    for (key, value) in values {
        if set_key(&mut doc, key, value.clone()).is_err() {
            break;
        }
        if let Err(e) = parse_doc(&doc, path) {
            return format!("override {key} = {value}: {}", reason(&e));
        }
    }
    format!("with the overrides: {whole}")
}

/// What a config error says is wrong, without the file, line or quoted TOML.
fn reason(e: &ConfigError) -> String {
    match e {
        ConfigError::Value { key, reason, .. } => format!("`{key}`: {reason}"),
        ConfigError::Parse { message, .. } => message
            .lines()
            .map(str::trim)
            .rfind(|l| !l.is_empty() && !l.starts_with('|') && !l.contains(" | "))
            .unwrap_or(message)
            .to_string(),
        other => other.to_string(),
    }
}

/// Sets dotted `key` in `doc`, making the tables on the way.
fn set_key(doc: &mut toml::Table, key: &str, value: toml::Value) -> PyResult<()> {
    let parts: Vec<&str> = key.split('.').collect();
    if parts.iter().any(|p| p.is_empty()) {
        return Err(bad_value(format!(
            "override {key:?} is not a dotted config key"
        )));
    }
    let (last, tables) = parts.split_last().unwrap_or((&"", &[]));
    let mut table = doc;
    for part in tables {
        let entry = table
            .entry(part.to_string())
            .or_insert_with(|| toml::Value::Table(toml::Table::new()));
        table = match entry {
            toml::Value::Table(t) => t,
            _ => {
                return Err(bad_value(format!(
                    "override {key:?}: {part} is not a table"
                )))
            }
        };
    }
    table.insert(last.to_string(), value);
    Ok(())
}

/// A Python value as TOML: bool, int, float, str, path, or a list of them.
fn to_toml(key: &str, value: &Bound<'_, PyAny>) -> PyResult<toml::Value> {
    use pyo3::types::{PyBool, PyFloat, PyInt, PyList, PyString, PyTuple};
    if value.is_instance_of::<PyBool>() {
        return Ok(toml::Value::Boolean(value.extract()?));
    }
    if value.is_instance_of::<PyInt>() {
        return Ok(toml::Value::Integer(value.extract().map_err(|_| {
            bad_value(format!(
                "override {key:?}: {value} does not fit a 64-bit integer"
            ))
        })?));
    }
    if value.is_instance_of::<PyFloat>() {
        return Ok(toml::Value::Float(value.extract()?));
    }
    if value.is_instance_of::<PyString>() {
        return Ok(toml::Value::String(value.extract()?));
    }
    if let Ok(path) = value.extract::<PathBuf>() {
        return Ok(toml::Value::String(path.display().to_string()));
    }
    if value.is_instance_of::<PyList>() || value.is_instance_of::<PyTuple>() {
        let items = value
            .try_iter()?
            .map(|item| to_toml(key, &item?))
            .collect::<PyResult<Vec<_>>>()?;
        return Ok(toml::Value::Array(items));
    }
    Err(bad_value(format!(
        "override {key:?}: a {} is not a config value (bool, int, float, str or a list)",
        value.get_type().name()?
    )))
}
