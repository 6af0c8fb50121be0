//! Config keys set from Python: `run(config, **overrides)` and `decide(records, ...)` turn
//! keyword arguments into dotted config keys (`filter.mate.nodes`) set on a config's TOML,
//! which the config's own parser then checks, so that a bad key or value is reported as
//! the config file's would be.

use crate::convert::bad_value;
use posfilter::pipeline::config::RawConfig;
use pyo3::prelude::*;
use std::path::{Path, PathBuf};

/// The config of TOML `text` (read from `path`) with `overrides` (dotted keys and Python
/// values) set; `ValueError` names a bad key or value.
pub fn apply(
    text: &str,
    path: &Path,
    overrides: &[(String, Bound<'_, PyAny>)],
) -> PyResult<RawConfig> {
    let mut doc: toml::Table = text
        .parse()
        .map_err(|e| bad_value(format!("{}: {e}", path.display())))?;
    for (key, value) in overrides {
        set_key(&mut doc, key, to_toml(key, value)?)?;
    }
    let text = toml::to_string(&doc).map_err(|e| bad_value(e.to_string()))?;
    RawConfig::parse(&text, path).map_err(|e| bad_value(format!("with the overrides: {e}")))
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
