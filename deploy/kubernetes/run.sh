#!/bin/sh
# Runs the sharded export on the cluster kubectl points at: the shared volume, the shards'
# Indexed Job, then (once every index has completed) the assembly.
#   deploy/kubernetes/run.sh            (edit the view, N and the image in the YAML files first)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
kubectl apply -f "$here/pvc.yaml"
kubectl apply -f "$here/shards-job.yaml"
kubectl wait --for=condition=complete --timeout=-1s job/mandelscope-shards
kubectl apply -f "$here/assemble-job.yaml"
kubectl wait --for=condition=complete --timeout=1h job/mandelscope-assemble
kubectl logs job/mandelscope-assemble
