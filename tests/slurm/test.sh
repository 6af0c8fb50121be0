#!/usr/bin/env bash
# The scheduler test: starts a real one-node Slurm cluster (tests/slurm/cluster.sh), runs
# array jobs on it with `sbatch --array=0-3 --wait` and dependent jobs, checks what they did,
# and stops the cluster whatever happens. Run by .ci/run as root; `just test-slurm` locally.
#
#   tests/slurm/test.sh [POSFILTER]   (default target/release/posfilter)
set -euo pipefail
cd "$(dirname "$0")/../.."
posfilter=$(realpath "${1:-target/release/posfilter}")
[ -x "$posfilter" ] || { echo "no posfilter binary at $posfilter (cargo build --release)" >&2; exit 1; }

work=$(mktemp -d /tmp/posfilter-slurm.XXXXXX)
cluster="$work/cluster"
cleanup() {
    local rc=$?
    bash tests/slurm/cluster.sh stop "$cluster" || true
    if [ $rc -ne 0 ]; then
        echo "slurm test failed; the cluster's logs:" >&2
        tail -n 20 "$cluster"/*.log 2>/dev/null >&2 || true
        cat "$work"/jobs/*.out 2>/dev/null | tail -n 40 >&2 || true
    fi
    rm -rf "$work"
    exit $rc
}
trap cleanup EXIT
bash tests/slurm/cluster.sh start "$cluster"
export SLURM_CONF="$cluster/slurm.conf"
mkdir -p "$work/jobs"

fail() {
    echo "slurm test: FAILED: $*" >&2
    exit 1
}

# 1. An array of four tasks, each told its index and the array's size by Slurm (what
#    `posfilter run --shard auto` reads), then a job that depends on all four.
cat >"$work/jobs/array.sh" <<EOF
#!/usr/bin/env bash
#SBATCH --output=$work/jobs/array-%a.out
echo "\$SLURM_ARRAY_TASK_ID \$SLURM_ARRAY_TASK_COUNT" > "$work/jobs/task-\$SLURM_ARRAY_TASK_ID"
"$posfilter" --version >> "$work/jobs/task-\$SLURM_ARRAY_TASK_ID"
EOF
array=$(sbatch --parsable --array=0-3 "$work/jobs/array.sh")
sbatch --wait --dependency="afterok:$array" --output="$work/jobs/after.out" \
    --wrap "cat $work/jobs/task-* > $work/jobs/all" >/dev/null
for i in 0 1 2 3; do
    grep -qx "$i 4" "$work/jobs/task-$i" || fail "array task $i did not see index $i of 4"
done
[ "$(grep -c '^posfilter ' "$work/jobs/all")" = 4 ] || fail "the dependent job did not see four tasks"

# 2. `sbatch --wait` fails when a task fails: what the job scripts of examples/slurm rely on.
if sbatch --wait --array=0-1 --output=/dev/null --wrap 'exit $SLURM_ARRAY_TASK_ID' >/dev/null 2>&1; then
    fail "sbatch --wait succeeded although a task failed"
fi

# 3. The whole job of examples/slurm (4 shards, 2 dedup buckets, the gather), each stage
#    an array or job depending on the one before, against one run of the same config.
data="$work/data"
mkdir -p "$data"
head -c $((40 * 3000)) data/teacher.psv >"$data/a.psv"
head -c $((32 * 2000)) tests/data/pipeline/startpos.psfen >"$data/b.psfen"
head -n 800 tests/data/pipeline/startpos.sfen >"$data/c.sfen"
tail -c $((32 * 300)) tests/data/pipeline/startpos.psfen >"$data/pool.psfen"
printf '%s\n' '[input]' 'paths = ["a.psv", "b.psfen", "c.sfen"]' '[output]' 'dir = "out"' \
    'compression = "zstd"' 'shard_records = 1000' 'checkpoint_records = 700' '[workers]' \
    'batch_records = 128' '[filter.mate]' 'nodes = 2000' '[filter.dedup]' 'mirror = true' \
    'reference = ["pool.psfen"]' >"$data/pipeline.toml"
"$posfilter" run "$data/pipeline.toml" --out "$work/single" --quiet
POSFILTER="$posfilter" bash examples/slurm/submit.sh "$data/pipeline.toml" "$work/job" \
    "$work/merged" 4 2 --cpus-per-task=1 --wait >/dev/null ||
    fail "the job of examples/slurm failed"
(cd "$work/single" && find . -type f | sort) >"$work/single.all"
(cd "$work/merged" && find . -type f | sort) >"$work/merged.all"
cmp -s "$work/single.all" "$work/merged.all" || fail "the job wrote other files than one run"
grep -v -e '^./report.json$' -e '^./report.html$' "$work/single.all" >"$work/single.files"
# report.html: the page the report module renders from the merged report.json (the page
# names its directory: rendered again in place).
cp "$work/merged/report.html" "$work/page.html"
"$posfilter" report "$work/merged" >/dev/null
cmp "$work/page.html" "$work/merged/report.html" ||
    fail "report.html is not the page of the merged report.json"
while read -r f; do
    cmp "$work/single/$f" "$work/merged/$f" || fail "$f differs from one run's"
done <"$work/single.files"
python3 -c '
import json, sys
def load(p):
    r = json.load(open(p))
    # What differs between two runs of one input (docs/cluster.md): timing, scheduling,
    # provenance.
    for k in ["seconds", "positions_per_second", "threads", "nodes", "verdict_cache",
              "resumed_from", "run", "throughput"]:
        r.pop(k, None)
    r.get("histograms", {}).pop("micros", None)
    r["config"]["workers"]["threads"] = None
    return r
sys.exit(load(sys.argv[1]) != load(sys.argv[2]))
' "$work/single/report.json" "$work/merged/report.json" || fail "report.json differs from one run's"
echo "slurm test: the job of examples/slurm ($(wc -l <"$work/single.files") files) equals one run"

echo "slurm test: 3 passed, 0 failed"
