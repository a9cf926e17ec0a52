#!/bin/bash
# Submits a sharded Mandelscope export to Slurm: for a deep view (--reference) a job that
# computes the reference orbit once, then an array job of N shards (each after it), then
# the assembly, which runs when every shard has succeeded. Prints the job ids. With a video
# file (OUT.mp4, .mkv, .webm, .mov) and the video command's flags, the shards compute its
# keyframes and the assembly composes and encodes it (no --reference).
#
#   deploy/slurm/submit.sh [--reference] N /shared/out.png VIEW FLAGS...
#
# e.g. deploy/slurm/submit.sh --reference 64 /shared/deep.png --center=RE,IM --zoom=1e300 \
#        --iterations=1000000 --size=32k --renderer=cpu
# The folder of out.png must be shared by every node; MANDELSCOPE names the program there
# (default: mandelscope on PATH). Extra sbatch options (partition, account, time) go in
# SBATCH_OPTS, e.g. SBATCH_OPTS="--partition=batch --time=4:00:00".
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
reference=0
if [ "${1:-}" = --reference ]; then reference=1; shift; fi
n=${1:?usage: submit.sh [--reference] N OUT.png VIEW FLAGS...}
out=${2:?usage: submit.sh [--reference] N OUT.png VIEW FLAGS...}
shift 2
case $n in ''|*[!0-9]*) echo "submit.sh: N must be a whole number, not $n" >&2; exit 2 ;; esac
[ "$n" -ge 1 ] || { echo "submit.sh: N must be at least 1" >&2; exit 2; }
out=$(realpath -m "$out")
case $out in
  *.png|*.PNG) ;;
  *) [ "$reference" = 0 ] || { echo "submit.sh: --reference is for an export (OUT.png)" >&2; exit 2; } ;;
esac
opts=(${SBATCH_OPTS:-} --parsable --chdir="$(dirname "$out")")
export MANDELSCOPE=${MANDELSCOPE:-mandelscope}
dep=()
if [ "$reference" = 1 ]; then
  export REFERENCE="$out.ref"
  rj=$(sbatch "${opts[@]}" --export=ALL "$here/reference.sbatch" "$REFERENCE" "$@")
  echo "reference job $rj"
  dep=(--dependency=afterok:$rj)
fi
aj=$(SHARDS=$n sbatch "${opts[@]}" --export=ALL "${dep[@]}" --array=0-$((n - 1)) "$here/shard.sbatch" "$out" "$@")
aj=${aj%%;*}
echo "shard array job $aj (tasks 0-$((n - 1)))"
sj=$(sbatch "${opts[@]}" --export=ALL --dependency=afterok:$aj "$here/assemble.sbatch" "$out" "$n")
echo "assemble job ${sj%%;*}"
