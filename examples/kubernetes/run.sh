#!/usr/bin/env bash
# Runs the three stages in order on the current kubectl context, each after the one before
# has completed (Kubernetes Jobs have no dependencies of their own). Edit the YAML files
# first: image, N (completions and --shards), M (--buckets, the reduce's completions and
# its J/M), resources, the volume's storage class.
#
#   examples/kubernetes/run.sh [TIMEOUT]      (default 48h)
set -euo pipefail
here=$(dirname "$(realpath "$0")")
timeout=${1:-48h}
kubectl apply -f "$here/pvc.yaml"
for stage in shard reduce gather; do
    kubectl delete job "posfilter-$stage" --ignore-not-found
    kubectl apply -f "$here/$stage-job.yaml"
    if ! kubectl wait --for=condition=complete "job/posfilter-$stage" --timeout="$timeout"; then
        echo "posfilter-$stage did not complete; its pods:" >&2
        kubectl get pods -l "job-name=posfilter-$stage" >&2
        exit 1
    fi
done
echo "done: the output is in /data/out on the posfilter-data volume"
