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
sbatch --wait --kill-on-invalid-dep=yes --dependency="afterok:$array" \
    --output="$work/jobs/after.out" \
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
# Fails unless output directory $1 holds exactly the files of one run ($work/single).
same_as_single() {
    local merged=$1
    (cd "$work/single" && find . -type f | sort) >"$work/single.all"
    (cd "$merged" && find . -type f | sort) >"$work/merged.all"
    cmp -s "$work/single.all" "$work/merged.all" || fail "$merged: other files than one run's"
    grep -v -e '^./report.json$' -e '^./report.html$' "$work/single.all" >"$work/single.files"
    # report.html: the page the report module renders from the merged report.json (the
    # page names its directory: rendered again in place).
    cp "$merged/report.html" "$work/page.html"
    "$posfilter" report "$merged" >/dev/null
    cmp "$work/page.html" "$merged/report.html" ||
        fail "$merged: report.html is not the page of the merged report.json"
    while read -r f; do
        cmp "$work/single/$f" "$merged/$f" || fail "$merged: $f differs from one run's"
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
' "$work/single/report.json" "$merged/report.json" || fail "$merged: report.json differs from one run's"
}
same_as_single "$work/merged"
echo "slurm test: the job of examples/slurm ($(wc -l <"$work/single.files") files) equals one run"

# 4. A shard task requeued onto another node takes over the lock its killed attempt left.
#    Task 0 of a --requeue array (examples/slurm/shard.sbatch, N = 2, M = 1) stops while it
#    holds its shard directory: the test hook makes posfilter exit after its first
#    checkpoint, leaving its lock and checkpoint as a kill would. The lock's host is then
#    rewritten (one node here: the other node is the one simulated part) and the task
#    waits. Another job given the same directory is refused (exit 2). `scontrol requeue`
#    makes Slurm kill the task and run it again with SLURM_RESTART_COUNT=1: that attempt
#    takes the lock over, resumes, and the job's output equals one run.
rq="$work/requeue"
mkdir -p "$rq/work"
shard_sbatch="$PWD/examples/slurm/shard.sbatch"
cat >"$rq/shard.sh" <<SCRIPT
#!/usr/bin/env bash
set -euo pipefail
export POSFILTER="$posfilter"
if [ "\$SLURM_ARRAY_TASK_ID" = 0 ] && [ "\${SLURM_RESTART_COUNT:-0}" = 0 ]; then
    rc=0
    POSFILTER_STOP_AFTER_CHECKPOINTS=1 bash "$shard_sbatch" "$data/pipeline.toml" "$rq/work" 1 ||
        rc=\$?
    [ \$rc = 75 ] || { echo "attempt 0 exited with \$rc, not at its checkpoint"; exit 1; }
    python3 -c 'import json, sys
p = sys.argv[1]; h = json.load(open(p)); h["host"] = "node-gone"; json.dump(h, open(p, "w"))' \
        "$rq/work/shard-0/posfilter.lock"
    touch "$rq/attempt-0-stopped"
    exec sleep 600
fi
exec bash "$shard_sbatch" "$data/pipeline.toml" "$rq/work" 1
SCRIPT
array=$(sbatch --parsable --requeue --open-mode=append --array=0-1 --cpus-per-task=1 \
    --output="$rq/shard-%a.out" "$rq/shard.sh")
for _ in $(seq 1200); do
    [ -e "$rq/attempt-0-stopped" ] && break
    sleep 0.1
done
[ -e "$rq/attempt-0-stopped" ] || fail "task 0 did not stop at its checkpoint"
if sbatch --wait --output="$rq/other.out" --wrap "$posfilter run $data/pipeline.toml \
    --shard 0/2 --resume-or-start --quiet --out $rq/work/shard-0" >/dev/null; then
    fail "another job took the lock of shard 0"
fi
grep -q "is locked by process [0-9]* on host node-gone" "$rq/other.out" ||
    fail "another job was not refused by the lock: $(cat "$rq/other.out")"
scontrol requeue "${array}_0"
# Slurm delays a requeued job (a BeginTime some two minutes on, set once the killed
# attempt has completed): let it start now.
for _ in $(seq 100); do
    [ "$(squeue -h -j "${array}_0" -o %r)" = BeginTime ] && break
    sleep 0.2
done
# Slurm revokes the killed attempt's credential with a resolution of one second: an attempt
# started in the same second as the kill is refused ("Job credential revoked") and fails.
sleep 2
scontrol update JobId="${array}_0" StartTime=now
# --kill-on-invalid-dep: should the requeued task fail after all, the gather is cancelled
# (sbatch --wait fails) instead of pending forever on a dependency never satisfied.
timeout 600 sbatch --wait --kill-on-invalid-dep=yes --dependency="afterok:$array" \
    --output="$rq/gather.out" \
    --wrap "$posfilter merge $rq/work/shard-* --out $rq/merged --quiet" >/dev/null ||
    fail "the requeued job failed: $(cat "$rq"/*.out)"
taken="took over the lock of process [0-9]* on host node-gone .*restart 0).* later attempt"
taken+=" of that task (Slurm job ${array}_0.*, restart 1)"
grep -q "$taken" "$rq/shard-0.out" ||
    fail "the requeued task did not take the lock over: $(cat "$rq/shard-0.out")"
same_as_single "$rq/merged"
echo "slurm test: a shard task requeued (restart 1) took over its lock; the job equals one run"

echo "slurm test: 4 passed, 0 failed"
