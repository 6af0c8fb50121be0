//! How the kept shards of a run are named and compressed: the one place that decides it, for
//! a single run and for anything that writes or finds kept shards (resume, the previous
//! output's clean-up, `--dry-run`, sharded runs).
//!
//! # Rules (docs/output-schema.md, "Kept shard names")
//! A run writes one series of shards per output format (`output.format = "same"` with inputs
//! of several formats gives several). The *sources* of a series are the input files whose
//! records it takes.
//! - **Extension**: the sources' own extension when every source has one, they are all the
//!   same and none is converted (`foo.bin`, `bar.bin` → `part-00000.bin`); otherwise the
//!   format's name (`part-00000.psv`). An own extension is the last one before `.zst`, 1 to
//!   16 ASCII letters / digits, and never the name of another format (an hcpe file named
//!   `x.psv` gives `.hcpe` shards). A converted series always takes the target's name.
//! - **Compression**: `output.compression = "zstd"` or `"none"` decides. `"auto"` (the
//!   default) compresses a series only when every source is zstd-compressed, so the shards of
//!   a plain input are plain records a trainer maps as they are (`np.fromfile`, dlshogi,
//!   nnue-pytorch).
//!
//! # Invariants
//! The result is a function of the input paths, their detections and the configuration
//! alone: a resumed run, or another process of a sharded run given the same inputs, names
//! its shards the same way.

use super::config::{Compression, Config};
use crate::codec::Format;
use crate::io::detect::Detection;
use crate::io::output::OutputOptions;
use std::path::{Path, PathBuf};

/// The longest own extension kept (longer ones are unlikely to be a format's).
const MAX_OWN_EXTENSION: usize = 16;

/// One input file as the naming rules see it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Source {
    /// Its format.
    pub(crate) format: Format,
    /// Whether it is zstd-compressed.
    pub(crate) compressed: bool,
    /// Its own extension ([`own_extension`]), if it has one.
    pub(crate) extension: Option<String>,
}

/// Everything that decides the kept shards' names and compression.
#[derive(Debug, Clone)]
pub(crate) struct KeptShards {
    sources: Vec<Source>,
    /// `output.format` (`None`: each input as itself).
    out_format: Option<Format>,
    compression: Compression,
    zstd_level: i32,
    shard_records: u64,
}

impl KeptShards {
    /// The rules for a run over `inputs` (path and detection of each input file).
    pub(crate) fn new<'a>(
        inputs: impl IntoIterator<Item = (&'a PathBuf, &'a Detection)>,
        out_format: Option<Format>,
        compression: Compression,
        zstd_level: i32,
        shard_records: u64,
    ) -> KeptShards {
        let sources = inputs
            .into_iter()
            .map(|(path, d)| Source {
                format: d.format,
                compressed: d.compressed,
                extension: own_extension(path),
            })
            .collect();
        KeptShards {
            sources,
            out_format,
            compression,
            zstd_level,
            shard_records,
        }
    }

    /// The rules of a run of `config` over `paths` with their `detections`.
    pub(crate) fn of_run(config: &Config, paths: &[PathBuf], detections: &[Detection]) -> Self {
        KeptShards::new(
            paths.iter().zip(detections),
            config.out_format,
            config.compression,
            config.zstd_level,
            config.shard_records,
        )
    }

    /// The output formats the run writes shards of, in input order, each once.
    pub(crate) fn targets(&self) -> Vec<Format> {
        let mut targets = Vec::new();
        for s in &self.sources {
            let t = self.out_format.unwrap_or(s.format);
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        targets
    }

    /// The writer options of the series of `target`: shard size, extension, compression.
    pub(crate) fn options(&self, target: Format) -> OutputOptions {
        let sources: Vec<&Source> = self
            .sources
            .iter()
            .filter(|s| self.out_format.unwrap_or(s.format) == target)
            .collect();
        let compress = match self.compression {
            Compression::Zstd => true,
            Compression::None => false,
            Compression::Auto => !sources.is_empty() && sources.iter().all(|s| s.compressed),
        };
        OutputOptions {
            zstd_level: compress.then_some(self.zstd_level),
            shard_records: self.shard_records,
            extension: series_extension(target, &sources),
        }
    }

    /// One line per series for `--dry-run`: `kept/part-NNNNN.bin (psv, uncompressed)`.
    pub(crate) fn describe(&self) -> Vec<String> {
        self.targets()
            .into_iter()
            .map(|t| {
                let o = self.options(t);
                let zst = if o.zstd_level.is_some() { ".zst" } else { "" };
                let how = match o.zstd_level {
                    Some(level) => format!("zstd level {level}"),
                    None => "uncompressed".into(),
                };
                format!("kept/part-NNNNN.{}{zst} ({t}, {how})", o.extension(t))
            })
            .collect()
    }
}

/// The extension of the series of `target` fed by `sources` (see the module rules); `None`
/// is the format's name.
fn series_extension(target: Format, sources: &[&Source]) -> Option<String> {
    let first = sources.first()?;
    let own = first.extension.as_ref()?;
    let same = sources
        .iter()
        .all(|s| s.format == target && s.extension.as_ref() == Some(own));
    let names_other =
        Format::from_extension(&own.to_ascii_lowercase()).is_some_and(|f| f != target);
    (same && !names_other && own.as_str() != target.extension()).then(|| own.clone())
}

/// The own extension of an input file: its last extension before `.zst` when it is 1 to
/// [`MAX_OWN_EXTENSION`] ASCII letters or digits (`foo.bin.zst` → `bin`).
pub(crate) fn own_extension(path: &Path) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let name = name.strip_suffix(".zst").unwrap_or(name);
    let (stem, ext) = name.rsplit_once('.')?;
    (!stem.is_empty() && is_shard_extension(ext)).then(|| ext.to_string())
}

/// Whether `ext` may end a kept shard's name: 1 to [`MAX_OWN_EXTENSION`] ASCII letters or
/// digits (every format name is one).
pub(crate) fn is_shard_extension(ext: &str) -> bool {
    (1..=MAX_OWN_EXTENSION).contains(&ext.len())
        && ext.bytes().all(|b| b.is_ascii_alphanumeric())
        && ext != "zst"
}

#[cfg(test)]
mod tests {
    use super::*;

    fn detection(format: Format, compressed: bool) -> Detection {
        Detection {
            format,
            compressed,
            file_bytes: 0,
            reasons: Vec::new(),
        }
    }

    fn rules(inputs: &[(&str, Format, bool)], out: Option<Format>, c: Compression) -> KeptShards {
        let paths: Vec<PathBuf> = inputs.iter().map(|i| PathBuf::from(i.0)).collect();
        let dets: Vec<Detection> = inputs.iter().map(|i| detection(i.1, i.2)).collect();
        KeptShards::new(paths.iter().zip(&dets), out, c, 3, 100)
    }

    fn name(k: &KeptShards, target: Format) -> String {
        let o = k.options(target);
        let zst = if o.zstd_level.is_some() { ".zst" } else { "" };
        format!("{}{zst}", o.extension(target))
    }

    #[test]
    fn own_extensions() {
        assert_eq!(own_extension(Path::new("d/a.bin")).as_deref(), Some("bin"));
        assert_eq!(
            own_extension(Path::new("a.bin.zst")).as_deref(),
            Some("bin")
        );
        assert_eq!(
            own_extension(Path::new("a.tar.psv")).as_deref(),
            Some("psv")
        );
        for none in ["a", "a.zst", ".bin", "a.b-c", "a.", "a.abcdefghijklmnopq"] {
            assert_eq!(own_extension(Path::new(none)), None, "{none}");
        }
    }

    #[test]
    fn names_and_compression_follow_the_inputs() {
        use Compression::{Auto, None as Plain, Zstd};
        use Format::{Hcpe, Psfen, Psv};
        let k = rules(&[("a.bin", Psv, false)], None, Auto);
        assert_eq!(name(&k, Psv), "bin");
        let k = rules(&[("a.bin.zst", Psv, true)], None, Auto);
        assert_eq!(name(&k, Psv), "bin.zst");
        let k = rules(&[("a.bin.zst", Psv, true)], None, Plain);
        assert_eq!(name(&k, Psv), "bin");
        let k = rules(&[("a.bin", Psv, false)], None, Zstd);
        assert_eq!(name(&k, Psv), "bin.zst");
        // Mixed compression: plain. Different or missing extensions: the format's name.
        let k = rules(
            &[("a.bin.zst", Psv, true), ("b.bin", Psv, false)],
            None,
            Auto,
        );
        assert_eq!(name(&k, Psv), "bin");
        let k = rules(&[("a.bin", Psv, false), ("b.dat", Psv, false)], None, Auto);
        assert_eq!(name(&k, Psv), "psv");
        let k = rules(&[("a.bin", Psv, false), ("b", Psv, false)], None, Auto);
        assert_eq!(name(&k, Psv), "psv");
        // Converted: the target's name, compression from the sources.
        let k = rules(&[("a.bin.zst", Psv, true)], Some(Hcpe), Auto);
        assert_eq!(name(&k, Hcpe), "hcpe.zst");
        // An extension naming another format is not kept.
        let k = rules(&[("x.psv", Hcpe, false)], None, Auto);
        assert_eq!(name(&k, Hcpe), "hcpe");
        // `same` with two formats: a series each, from its own sources.
        let k = rules(
            &[("a.bin", Psv, false), ("b.dat.zst", Psfen, true)],
            None,
            Auto,
        );
        assert_eq!(k.targets(), vec![Psv, Psfen]);
        assert_eq!(
            (name(&k, Psv), name(&k, Psfen)),
            ("bin".into(), "dat.zst".into())
        );
    }
}
