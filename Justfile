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

lint:
    cargo fmt --all -- --check
    cargo clippy --all-targets -- -D warnings

bench:
    cargo bench
