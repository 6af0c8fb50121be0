//! Codec throughput, records per second on one core: decode (to a ready, validated
//! `Position`) and encode for psfen, psv, hcp and hcpe, on the 97,609 teacher positions.
//! Peers in the same run: rsshogi 1.7.3 `Position::set_packed_sfen` on the same PackedSfen
//! bytes (criterion), and cshogi 1.1.0 `Board.set_psfen` (benches/cshogi_codec.py, run once
//! at the start and printed; skipped with a note if Python or cshogi is missing).
//! `CODEC_BENCH_TABLE_ONLY=1` stops after the on-CPU table (peers included).

#![allow(missing_docs)] // criterion_group! generates an undocumented pub fn

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use posfilter::codec::{self, hcp, psfen, Format};
use posfilter::shogi::Position;
use std::path::PathBuf;

fn teacher(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/codec")
        .join(name);
    zstd::decode_all(std::fs::File::open(&path).expect("teacher data")).expect("zstd")
}

fn cshogi_peer(psv: &[u8]) {
    let path = std::env::temp_dir().join(format!("posfilter-bench-{}.psv", std::process::id()));
    if std::fs::write(&path, psv).is_err() {
        return;
    }
    let script = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("benches/cshogi_codec.py");
    let python = std::env::var("PYTHON").unwrap_or_else(|_| "python3".into());
    match std::process::Command::new(python)
        .arg(&script)
        .arg(&path)
        .output()
    {
        Ok(out) if out.status.success() => {
            println!(
                "peer cshogi set_psfen: {}",
                String::from_utf8_lossy(&out.stdout).trim()
            );
        }
        Ok(out) => println!(
            "peer cshogi skipped: {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .last()
                .unwrap_or("")
        ),
        Err(e) => println!("peer cshogi skipped: {e}"),
    }
    let _ = std::fs::remove_file(&path);
}

/// On-CPU nanoseconds of this thread (Linux `/proc/thread-self/schedstat`), so that numbers
/// stay per core on a shared machine; `None` elsewhere.
fn thread_cpu_ns() -> Option<u64> {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    s.split_whitespace().next()?.parse().ok()
}

/// Prints records per on-CPU second of `f` (which handles `n` records per call).
fn cpu_rate(name: &str, n: usize, mut f: impl FnMut()) {
    f();
    let (Some(start), wall) = (thread_cpu_ns(), std::time::Instant::now()) else {
        return;
    };
    let mut rounds = 0u64;
    while wall.elapsed().as_secs_f64() < 2.0 {
        f();
        rounds += 1;
    }
    let cpu = (thread_cpu_ns().unwrap_or(start) - start) as f64 / 1e9;
    let wall = wall.elapsed().as_secs_f64();
    let r = (rounds * n as u64) as f64;
    println!(
        "cpu-time {name:40} {:8.3} M records/s per core (wall {:.3} M/s)",
        r / cpu / 1e6,
        r / wall / 1e6
    );
}

fn cpu_table(psv: &[u8], hcpe: &[u8], psfens: &[u8]) {
    let n = psv.len() / 40;
    cpu_rate("decode psfen bits only", n, || {
        for r in psfens.chunks_exact(32) {
            black_box(psfen::decode_psfen_parts_only(black_box(
                r.try_into().unwrap(),
            )));
        }
    });
    for (format, bytes) in [
        (Format::Psfen, psfens),
        (Format::Psv, psv),
        (Format::Hcpe, hcpe),
    ] {
        let size = format.record_size().unwrap_or(1);
        cpu_rate(&format!("decode {format} to Position"), n, || {
            for r in bytes.chunks_exact(size) {
                black_box(codec::decode_position_binary(format, black_box(r)).is_ok());
            }
        });
        let mut pos = Position::startpos();
        cpu_rate(
            &format!("decode {format} into a reused Position"),
            n,
            || {
                for r in bytes.chunks_exact(size) {
                    black_box(codec::decode_position_into(format, black_box(r), &mut pos).is_ok());
                    black_box(&pos);
                }
            },
        );
        let mut other = Position::startpos();
        cpu_rate(
            &format!("decode {format} in pairs, reused Positions"),
            n,
            || {
                for r in bytes.chunks_exact(2 * size) {
                    let (a, b) = r.split_at(size);
                    let [x, y] = codec::decode_positions_into(
                        format,
                        black_box([a, b]),
                        [&mut pos, &mut other],
                    );
                    black_box((x.is_ok(), y.is_ok()));
                    black_box((&pos, &other));
                }
            },
        );
    }
    cpu_rate("decode psv with teacher fields", n, || {
        for r in psv.chunks_exact(40) {
            black_box(codec::decode(Format::Psv, black_box(r)).is_ok());
        }
    });
    let mut pos = rsshogi::board::Position::empty();
    cpu_rate("peer rsshogi set_packed_sfen", n, || {
        for r in psfens.chunks_exact(32) {
            let mut data = [0u8; 32];
            data.copy_from_slice(r);
            let packed = rsshogi::board::PackedSfen { data };
            black_box(pos.set_packed_sfen(black_box(&packed), false, 0).is_ok());
        }
    });
}

fn benches(c: &mut Criterion) {
    let psv = teacher("teacher.psv.zst");
    let hcpe = teacher("teacher.hcpe.zst");
    cshogi_peer(&psv);
    let psfens: Vec<u8> = psv.chunks(40).flat_map(|r| r[..32].to_vec()).collect();
    let hcps: Vec<u8> = hcpe.chunks(38).flat_map(|r| r[..32].to_vec()).collect();
    let n = psv.len() / 40;
    cpu_table(&psv, &hcpe, &psfens);
    if std::env::var_os("CODEC_BENCH_TABLE_ONLY").is_some() {
        return;
    }
    let mut g = c.benchmark_group("decode");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    for (name, format, bytes) in [
        ("psfen", Format::Psfen, &psfens),
        ("psv", Format::Psv, &psv),
        ("hcp", Format::Hcp, &hcps),
        ("hcpe", Format::Hcpe, &hcpe),
    ] {
        let size = format.record_size().unwrap_or(1);
        g.bench_function(format!("{name}_position"), |b| {
            b.iter(|| {
                let mut ok = 0usize;
                for r in bytes.chunks_exact(size) {
                    ok += codec::decode_position_binary(format, black_box(r)).is_ok() as usize;
                }
                assert_eq!(ok, n);
            })
        });
        g.bench_function(format!("{name}_position_pairs"), |b| {
            let mut pair = [Position::startpos(), Position::startpos()];
            b.iter(|| {
                let mut ok = 0usize;
                for r in bytes.chunks(2 * size) {
                    let [a, b] = &mut pair;
                    ok += match r.split_at_checked(size) {
                        Some((x, y)) if !y.is_empty() => {
                            codec::decode_positions_into(format, black_box([x, y]), [a, b])
                                .iter()
                                .filter(|d| d.is_ok())
                                .count()
                        }
                        _ => codec::decode_position_into(format, black_box(r), a).is_ok() as usize,
                    };
                }
                assert_eq!(ok, n);
            })
        });
        if format.has_teacher_fields() {
            g.bench_function(format!("{name}_with_teacher_fields"), |b| {
                b.iter(|| {
                    let mut legal = 0usize;
                    for r in bytes.chunks_exact(size) {
                        if let Ok(d) = codec::decode(format, black_box(r)) {
                            legal += d.teacher.is_some_and(|t| t.move_legal) as usize;
                        }
                    }
                    black_box(legal)
                })
            });
        }
    }
    g.bench_function("peer_rsshogi_set_packed_sfen", |b| {
        let mut pos = rsshogi::board::Position::empty();
        b.iter(|| {
            let mut ok = 0usize;
            for r in psfens.chunks_exact(32) {
                let mut data = [0u8; 32];
                data.copy_from_slice(r);
                let packed = rsshogi::board::PackedSfen { data };
                ok += pos.set_packed_sfen(black_box(&packed), false, 0).is_ok() as usize;
            }
            assert_eq!(ok, n);
        })
    });
    g.finish();

    let positions: Vec<_> = psv
        .chunks(40)
        .map(|r| codec::decode(Format::Psv, r).expect("teacher record"))
        .collect();
    let mut g = c.benchmark_group("encode");
    g.throughput(Throughput::Elements(n as u64));
    g.sample_size(20);
    g.bench_function("psfen", |b| {
        b.iter(|| {
            for d in &positions {
                black_box(psfen::encode_psfen(black_box(&d.position)).ok());
            }
        })
    });
    g.bench_function("hcp", |b| {
        b.iter(|| {
            for d in &positions {
                black_box(hcp::encode_hcp(black_box(&d.position)).ok());
            }
        })
    });
    for format in [Format::Psv, Format::Hcpe] {
        g.bench_function(format.name(), |b| {
            let mut out = Vec::with_capacity(n * 40);
            b.iter(|| {
                out.clear();
                for d in &positions {
                    codec::encode(format, &d.position, d.teacher.as_ref(), &mut out).ok();
                }
                black_box(out.len())
            })
        });
    }
    g.finish();
}

criterion_group!(codec_benches, benches);
criterion_main!(codec_benches);
