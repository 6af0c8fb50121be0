//! The native part of the `posfilter` Python package (`posfilter._native`): the library's
//! solver and pipeline behind a few functions that take and give plain Python and numpy
//! objects. The public API, its documentation and the numpy dtype handling live in
//! `posfilter/__init__.py`; these functions are its private back end.
//!
//! # Invariants
//! - The GIL is released while Rust works, and a long call checks Python's signals every
//!   100 ms ([`interrupt`]): Ctrl-C raises `KeyboardInterrupt` within about a second, after
//!   the work has stopped.
//! - Bad input raises `ValueError` naming the record (or position) index and the reason;
//!   the library never panics on input, and a panic would become a `RuntimeError`.

mod convert;
mod decide;
mod interrupt;
mod overrides;
mod run;
mod solve;

use pyo3::prelude::*;

/// The extension module.
#[pymodule]
fn _native(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(solve::mate, m)?)?;
    m.add_function(wrap_pyfunction!(solve::mate_many_text, m)?)?;
    m.add_function(wrap_pyfunction!(solve::mate_many_records, m)?)?;
    m.add_function(wrap_pyfunction!(run::run, m)?)?;
    m.add_class::<decide::PyDecider>()?;
    m.add_function(wrap_pyfunction!(decide::decision_names, m)?)?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
