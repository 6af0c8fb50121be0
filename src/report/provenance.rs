//! What ran on what: report.json's `run` block (timestamps, command line, host, version,
//! git revision) and each input's size, modification time and fingerprint.
//!
//! # The input fingerprint
//! A CRC-32 (IEEE, as zlib's `crc32` and the `crc32` tool compute it) of the whole file when
//! it is at most [`SAMPLE_BYTES`] × 3 long, else of three samples of [`SAMPLE_BYTES`] read
//! from its start, middle and end. Inputs run to hundreds of GB and there may be thousands
//! of shards: a whole-file CRC would read every input a second time (or tie a checksum
//! into the mmap'd reading of compressed and resumed runs), while three samples cost three
//! short reads per file. With the size and modification time beside it, it tells whether
//! two runs read the same file; it does not prove that a file is unchanged in between its
//! samples. `hashed_bytes` says which it is: equal to `bytes`, it is the file's own CRC-32.

use serde::{Deserialize, Serialize};
use std::io::{Read, Seek, SeekFrom};
use std::path::Path;
use std::time::SystemTime;

/// Bytes read at each of the three places of a large file's fingerprint.
pub const SAMPLE_BYTES: u64 = 64 << 10;

/// The `run` block of report.json: who ran what, when, where.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct RunInfo {
    /// When the run (its first part, for a resumed run) started: UTC, RFC 3339.
    pub started: String,
    /// When it finished: UTC, RFC 3339.
    pub finished: String,
    /// The command line, one string per argument, as the process got it.
    pub command_line: Vec<String>,
    /// The machine's host name, if it has one.
    pub host: Option<String>,
    /// posfilter's version (Cargo.toml).
    pub version: String,
    /// The git commit posfilter was built from (40 hex digits, `-dirty` appended when the
    /// checkout had uncommitted changes); `None` for a build outside a git checkout.
    pub git_revision: Option<String>,
    /// Operating system (`linux`, `macos`, `windows`).
    pub os: String,
    /// CPU architecture (`x86_64`, `aarch64`).
    pub arch: String,
}

impl RunInfo {
    /// The run block of a run that started at `started` (UTC, RFC 3339) and finishes now.
    pub fn now(started: &str) -> RunInfo {
        RunInfo {
            started: started.to_string(),
            finished: rfc3339(SystemTime::now()),
            command_line: std::env::args_os()
                .map(|a| a.to_string_lossy().into_owned())
                .collect(),
            host: host_name(),
            version: env!("CARGO_PKG_VERSION").to_string(),
            git_revision: option_env!("POSFILTER_GIT_REVISION").map(str::to_string),
            os: std::env::consts::OS.to_string(),
            arch: std::env::consts::ARCH.to_string(),
        }
    }
}

/// An input file's identity: size, modification time and fingerprint (see the module doc);
/// flattened into each of report.json's `inputs`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct FileIdentity {
    /// Size on disk in bytes.
    pub bytes: u64,
    /// Modification time, UTC, RFC 3339 (`None` where the system keeps none).
    pub modified: Option<String>,
    /// The fingerprint.
    pub fingerprint: Fingerprint,
}

/// A CRC-32 of a file, whole or sampled (see the module doc).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Fingerprint {
    /// CRC-32 of the hashed bytes, 8 lower-case hex digits.
    pub crc32: String,
    /// Bytes the CRC-32 covers: the whole file when equal to `bytes`, else three samples.
    pub hashed_bytes: u64,
}

impl FileIdentity {
    /// Reads the identity of the file at `path`.
    pub fn of(path: &Path) -> std::io::Result<FileIdentity> {
        let mut file = std::fs::File::open(path)?;
        let meta = file.metadata()?;
        let bytes = meta.len();
        let modified = meta.modified().ok().map(rfc3339);
        let mut hasher = crc32fast::Hasher::new();
        let mut hashed = 0;
        let mut buf = vec![0u8; SAMPLE_BYTES as usize];
        let starts: Vec<u64> = if bytes <= 3 * SAMPLE_BYTES {
            vec![0]
        } else {
            vec![0, bytes / 2 - SAMPLE_BYTES / 2, bytes - SAMPLE_BYTES]
        };
        let each = if starts.len() == 1 {
            bytes
        } else {
            SAMPLE_BYTES
        };
        for start in starts {
            file.seek(SeekFrom::Start(start))?;
            let mut left = each;
            while left > 0 {
                let want = left.min(buf.len() as u64) as usize;
                let got = file.read(&mut buf[..want])?;
                if got == 0 {
                    break; // the file shrank since its size was read
                }
                hasher.update(&buf[..got]);
                hashed += got as u64;
                left -= got as u64;
            }
        }
        Ok(FileIdentity {
            bytes,
            modified,
            fingerprint: Fingerprint {
                crc32: format!("{:08x}", hasher.finalize()),
                hashed_bytes: hashed,
            },
        })
    }
}

/// `t` as UTC RFC 3339 with whole seconds (`2026-11-26T10:44:01Z`); times before 1970 are
/// written as 1970-01-01T00:00:00Z.
pub fn rfc3339(t: SystemTime) -> String {
    let secs = t
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs());
    let (days, rem) = (secs / 86_400, secs % 86_400);
    let (y, m, d) = civil_from_days(days as i64);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}Z",
        rem / 3600,
        rem / 60 % 60,
        rem % 60
    )
}

/// The proleptic Gregorian date of `days` after 1970-01-01 (Howard Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    let y = yoe + era * 400 + i64::from(m <= 2);
    (y, m, d)
}

/// The host name: the kernel's (Linux), else `HOSTNAME` / `COMPUTERNAME`.
fn host_name() -> Option<String> {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .or_else(|| std::env::var("HOSTNAME").ok())
        .or_else(|| std::env::var("COMPUTERNAME").ok())
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Duration;

    fn at(secs: u64) -> String {
        rfc3339(SystemTime::UNIX_EPOCH + Duration::from_secs(secs))
    }

    #[test]
    fn rfc3339_matches_known_instants() {
        // Values from `date -u -d @SECS +%FT%TZ`.
        assert_eq!(at(0), "1970-01-01T00:00:00Z");
        assert_eq!(at(951_782_400), "2000-02-29T00:00:00Z");
        assert_eq!(at(1_709_251_199), "2024-02-29T23:59:59Z");
        assert_eq!(at(4_102_444_800), "2100-01-01T00:00:00Z");
        assert_eq!(at(1_795_683_841), "2026-11-26T09:04:01Z");
    }

    #[test]
    fn a_small_file_is_hashed_whole_and_a_large_one_in_three_samples() {
        let dir = std::env::temp_dir().join(format!("posfilter-ident-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let small = dir.join("small");
        std::fs::write(&small, b"123456789").unwrap();
        let id = FileIdentity::of(&small).unwrap();
        // The CRC-32 check value of "123456789".
        let fp = &id.fingerprint;
        assert_eq!(
            (fp.crc32.as_str(), fp.hashed_bytes, id.bytes),
            ("cbf43926", 9, 9)
        );
        let large = dir.join("large");
        let data: Vec<u8> = (0..4 * SAMPLE_BYTES).map(|i| (i * 7 % 251) as u8).collect();
        std::fs::write(&large, &data).unwrap();
        let id = FileIdentity::of(&large).unwrap();
        let n = data.len();
        let s = SAMPLE_BYTES as usize;
        let mut h = crc32fast::Hasher::new();
        h.update(&data[..s]);
        h.update(&data[n / 2 - s / 2..n / 2 + s / 2]);
        h.update(&data[n - s..]);
        assert_eq!(id.fingerprint.crc32, format!("{:08x}", h.finalize()));
        assert_eq!(id.fingerprint.hashed_bytes, 3 * SAMPLE_BYTES);
        assert!(id.modified.is_some_and(|m| m.ends_with('Z')));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
