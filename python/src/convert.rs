//! Conversions at the Python boundary: errors, thread counts, JSON values, record buffers.

use numpy::{PyReadonlyArray1, PyUntypedArrayMethods};
use posfilter::codec::Format;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use pyo3::IntoPyObjectExt;

/// A `ValueError` with `message`.
pub fn bad_value(message: String) -> PyErr {
    PyValueError::new_err(message)
}

/// `threads`, or every core for 0.
pub fn threads(threads: usize) -> usize {
    match threads {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
}

/// A JSON value as Python objects (dict, list, str, int, float, bool, None).
pub fn json_to_py<'py>(py: Python<'py>, value: &serde_json::Value) -> PyResult<Bound<'py, PyAny>> {
    use serde_json::Value;
    match value {
        Value::Null => Ok(py.None().into_bound(py)),
        Value::Bool(b) => b.into_bound_py_any(py),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => u.into_bound_py_any(py),
            (None, Some(i)) => i.into_bound_py_any(py),
            _ => n.as_f64().unwrap_or(f64::NAN).into_bound_py_any(py),
        },
        Value::String(s) => s.into_bound_py_any(py),
        Value::Array(items) => {
            let items = items
                .iter()
                .map(|v| json_to_py(py, v))
                .collect::<PyResult<Vec<_>>>()?;
            Ok(PyList::new(py, items)?.into_any())
        }
        Value::Object(map) => {
            let dict = PyDict::new(py);
            for (k, v) in map {
                dict.set_item(k, json_to_py(py, v)?)?;
            }
            Ok(dict.into_any())
        }
    }
}

/// The binary format named `name` and the records' bytes: `data` must be contiguous and a
/// whole number of that format's records (the Python layer makes it so, from the dtype).
pub fn records<'a>(data: &'a PyReadonlyArray1<'_, u8>, name: &str) -> PyResult<(Format, &'a [u8])> {
    let format: Format = name.parse().map_err(|e| bad_value(format!("{e}")))?;
    let Some(width) = format.record_size() else {
        return Err(bad_value(format!(
            "{format} is a text format; pass its lines as a list of str"
        )));
    };
    let bytes = data
        .as_slice()
        .map_err(|_| bad_value("the records must be contiguous".into()))?;
    if bytes.len() % width != 0 || data.ndim() != 1 {
        return Err(bad_value(format!(
            "{} bytes are not a whole number of {width}-byte {format} records",
            bytes.len()
        )));
    }
    Ok((format, bytes))
}
