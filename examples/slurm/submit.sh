#!/usr/bin/env bash
# Submits the three stages of one job, each starting when the one before has succeeded (and
# cancelled, not left pending, when it has failed):
#
#   examples/slurm/submit.sh CONFIG WORK OUT N M [sbatch options...]
#
# CONFIG  the pipeline.toml (on a file system every node sees, as are its inputs)
# WORK    a shared directory for the shards and the duplicate lists (WORK/shard-I, WORK/dups)
# OUT     the output directory of the whole job
# N, M    shards and dedup key buckets (docs/cluster.md says how to choose them)
# Extra options (--partition, --account, --wait ...) go to every sbatch. Prints the
# gather's job id. Set POSFILTER to the binary's path if it is not on the PATH.
set -euo pipefail
[ $# -ge 5 ] || { sed -n 2,13p "$0" >&2; exit 2; }
config=$(realpath "$1") work=$(realpath -m "$2") out=$(realpath -m "$3") n=$4 m=$5
shift 5
here=$(dirname "$(realpath "$0")")
mkdir -p "$work/logs"
wait_flag=()
sbatch_opts=()
for o in "$@"; do
    if [ "$o" = "--wait" ]; then wait_flag=(--wait); else sbatch_opts+=("$o"); fi
done
shards=$(sbatch --parsable "${sbatch_opts[@]}" --array="0-$((n - 1))" \
    --output="$work/logs/shard-%a.out" "$here/shard.sbatch" "$config" "$work" "$m")
reduce=$(sbatch --parsable "${sbatch_opts[@]}" --array="0-$((m - 1))" \
    --kill-on-invalid-dep=yes --dependency="afterok:$shards" --output="$work/logs/reduce-%a.out" \
    "$here/reduce.sbatch" "$work" "$m")
sbatch --parsable "${sbatch_opts[@]}" "${wait_flag[@]}" --kill-on-invalid-dep=yes \
    --dependency="afterok:$reduce" \
    --output="$work/logs/gather.out" "$here/gather.sbatch" "$work" "$out"
