# Mirrors README and .ci/run. `just` is optional: each recipe is one plain command.

# the main job on the bundled sample data
run:
    cargo run --release -- run pipeline.toml

# the default test run (what CI runs)
test:
    cargo test --release

# slow tests: perft depth 5, large differential runs
test-slow:
    cargo test --release -- --ignored

# the scheduler test on a real one-node Slurm cluster (root: installs slurm-wlm and munge)
test-slurm:
    cargo build --release
    bash tests/slurm/test.sh target/release/posfilter

lint:
    cargo fmt --all -- --check
    cargo clippy --all-targets -- -D warnings

bench:
    cargo bench

# cargo-fuzz targets: decode_binary, decode_text, decode_games (hcpe3 / .pack / sbinpack),
# movegen (against rsshogi), mate (against brute force and the solver's own variants),
# zstd_salvage (damaged .zst against libzstd; a damaged header may ask for a 2 GiB window,
# hence the malloc limit). Needs `cargo install cargo-fuzz`; on a stable toolchain
# RUSTC_BOOTSTRAP=1 unlocks the sanitizer flags cargo-fuzz passes (no nightly can be
# fetched here). Not run in CI.
fuzz target="decode_binary" seconds="60":
    cd fuzz && RUSTC_BOOTSTRAP=1 cargo fuzz run {{target}} -- -max_total_time={{seconds}} -malloc_limit_mb=2300

# game-format decoding (hcpe3, .pack, sbinpack) against rsshogi's decoders, same run
bench-games:
    cargo bench --bench games

# codec bench incl. the cshogi peer (needs `pip install cshogi==1.1.0 numpy`)
bench-codec:
    cargo bench --bench codec

# end-to-end timings: 1 vs 2 threads, the cshogi DfPn loop, mate filter off vs raw read
# (needs `pip install cshogi==1.1.0 numpy`; FILE is a PackedSfen file)
bench-pipeline file="data/startpos.psfen":
    cargo build --release
    python3 benches/pipeline_compare.py {{file}}

# mate solver against cshogi on fresh random-playout positions (SEED, COUNT), both budgets;
# cshogi-only mates go to fresh-SEED.misses (needs `pip install cshogi==1.1.0`)
bench-fresh seed="2611" count="30000":
    python3 benches/fresh_positions.py {{seed}} {{count}} > target/fresh-{{seed}}.sfen
    MATE_BENCH_FILE=target/fresh-{{seed}}.sfen MATE_BENCH_MISSES=target/fresh-{{seed}}.misses MATE_BENCH_SUMMARY_ONLY=1 MATE_SKIP_SEEDS=1 cargo bench --bench mate
