#!/usr/bin/env bash
# The Slurm path for real: starts munged and a single-node Slurm (slurmctld and slurmd, as
# root, with a private slurm.conf, state and ports in a temporary folder), submits
# deploy/slurm's array job and its dependent assembly with the program built here, waits,
# compares the PNG with a one-machine export (cmp), and stops the daemons. Also runs one
# shard twice at once (a duplicate task), which must not change the result.
#   scripts/slurm-test.sh [BINARY]     (default: builds ./mandelscope into the temporary folder)
# Needs root and Debian's slurm-wlm and munge (scripts/deps.sh test installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
for c in munged slurmctld slurmd sbatch squeue scontrol; do
  command -v "$c" >/dev/null 2>&1 || { echo "slurm-test: $c is missing (install slurm-wlm and munge)" >&2; exit 1; }
done
[ "$(id -u)" = 0 ] || { echo "slurm-test: needs root (the daemons run as root with a private configuration)" >&2; exit 1; }
since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }'; }
t0=$(date +%s.%N)
d=$(mktemp -d /tmp/mandelscope-slurm.XXXXXX)
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  for p in "${pids[@]}"; do for _ in $(seq 50); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done; done
  [ -n "${KEEP:-}" ] || rm -rf "$d"
}
trap cleanup EXIT
fail() {
  echo "slurm-test: $*" >&2
  for f in "$d"/*.log "$d"/out/*.log; do [ -f "$f" ] && { echo "--- $f" >&2; tail -n 20 "$f" >&2; }; done
  exit 1
}

bin=${1:-}
if [ -z "$bin" ]; then
  bin=$d/mandelscope
  go build -o "$bin" .
fi
bin=$(realpath "$bin")

# munge, on a private socket, with a key of its own (the machine's /etc/munge is not needed).
mkdir -p "$d/munge" "$d/state" "$d/spool" "$d/out"
chmod 700 "$d/munge"
head -c 1024 /dev/urandom >"$d/munge/munge.key"
chmod 600 "$d/munge/munge.key"
munged --foreground --force --key-file="$d/munge/munge.key" --socket="$d/munge/munge.socket" --pid-file="$d/munge/munged.pid" \
  --log-file="$d/munged.log" --seed-file="$d/munge/seed" >"$d/munged.out.log" 2>&1 &
pids+=($!)
for _ in $(seq 50); do [ -S "$d/munge/munge.socket" ] && break; sleep 0.1; done
[ -S "$d/munge/munge.socket" ] || fail "munged did not start"

# Free ports for the controller and the node daemon.
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
cport=$(port); nport=$(port)
host=$(hostname -s)
cpus=$(nproc)
cat >"$d/slurm.conf" <<CONF
ClusterName=mandelscope-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket=$d/munge/munge.socket
CredType=cred/munge
SlurmctldPort=$cport
SlurmdPort=$nport
StateSaveLocation=$d/state
SlurmdSpoolDir=$d/spool
SlurmctldPidFile=$d/slurmctld.pid
SlurmdPidFile=$d/slurmd.pid
SlurmctldLogFile=$d/slurmctld.log
SlurmdLogFile=$d/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
MpiDefault=none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
ReturnToService=2
MinJobAge=600
SlurmctldTimeout=30
SlurmdTimeout=30
NodeName=$host NodeAddr=127.0.0.1 CPUs=$cpus State=UNKNOWN
PartitionName=test Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=FORCE:4
CONF
export SLURM_CONF=$d/slurm.conf
slurmctld -D -i >"$d/slurmctld.out.log" 2>&1 &
pids+=($!)
slurmd -D -N "$host" >"$d/slurmd.out.log" 2>&1 &
pids+=($!)
up=""
for _ in $(seq 150); do
  if sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)'; then up=1; break; fi
  sleep 0.2
done
[ -n "$up" ] || fail "the Slurm node did not come up"
echo "slurm-test: Slurm up on $host (controller port $cport) in $(since "$t0") s"

# The sharded export through deploy/slurm, and a one-machine export to compare with.
# A deep view (perturbation), so that the reference job computes its orbit once for the shards.
# SLURM_TEST_VIEW (a deep view's flags) and SLURM_TEST_SHARDS replace them for figures;
# SLURM_TEST_VIDEO=0 leaves the video out.
# shellcheck disable=SC2206
view=(${SLURM_TEST_VIEW:---center=-0.743643887037158704752191506114774,0.131825904205311970493132056385139 --zoom=1e20 --iterations=3000 --size=240x150 --renderer=cpu})
n=${SLURM_TEST_SHARDS:-3}
# The one-machine export to compare with, first (timed: the figure to set the array job's against).
t1=$(date +%s.%N)
"$bin" export "${view[@]}" -o "$d/one.png" 2>"$d/one.log" || fail "one-machine export failed"
echo "slurm-test: the one-machine export took $(since "$t1") s"
out=$d/out/slurm.png
export MANDELSCOPE=$bin
ts=$(date +%s.%N)
jobs=$(deploy/slurm/submit.sh --reference "$n" "$out" "${view[@]}") || fail "submit.sh failed"
echo "$jobs" | sed 's/^/slurm-test: /'
arr=$(echo "$jobs" | awk '/^shard array job/{print $4}')
asm=$(echo "$jobs" | awk '/^assemble job/{print $3}')
# A duplicate of shard 1, submitted at once: it waits for or keeps the other run's shard.
dup=$(sbatch --parsable --chdir="$d/out" --export=ALL,SHARDS=$n,REFERENCE=$out.ref --dependency=afterok:$(echo "$jobs" | awk '/^reference job/{print $3}') \
  --array=1 deploy/slurm/shard.sbatch "$out" "${view[@]}") || fail "duplicate submit failed"

state() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | sort -u | sed 's/JobState=//' | tr '\n' ' '; }
for _ in $(seq 600); do
  s=$(state "$asm")
  case $s in *COMPLETED*|*FAILED*|*CANCELLED*|*TIMEOUT*|*NODE_FAIL*|*OUT_OF_MEMORY*) break ;; esac
  sleep 0.1
done
took=$(since "$ts")
[ "$(state "$asm")" = "COMPLETED " ] || fail "the assemble job ended $(state "$asm") (shards: $(state "$arr"))"
for _ in $(seq 300); do case $(state "$dup") in *COMPLETED*|*FAILED*|*CANCELLED*) break ;; esac; sleep 0.1; done
[ "$(state "$dup")" = "COMPLETED " ] || fail "the duplicate shard job ended $(state "$dup")"
cmp "$out" "$d/one.png" || fail "the assembled PNG differs from the one-machine export"
for i in $(seq 0 $((n - 1))); do [ -f "$out.shard-$i-of-$n" ] || fail "shard $i is missing"; done
cmp "$out" "$d/one.png" || fail "the PNG changed after the duplicate shard ran"
command -v pngcheck >/dev/null 2>&1 && { pngcheck -q "$out" || fail "pngcheck refuses the assembled PNG"; }
grep -q "reference orbit" "$d"/out/mandelscope-assemble-*.log || fail "the assembly does not name the shards' reference orbit"
[ "$(grep -l "reference orbit read from $out.ref" "$d"/out/mandelscope-shard-*.log | wc -l)" -ge "$n" ] || fail "the shards did not read the reference job's orbit"
echo "slurm-test: the array job of $n shards and its assembly took $took s; the PNG is byte for byte the one-machine export"

# A video the same way: shards of keyframes, then the assembly composes and encodes it; its
# decoded frames are those of one process's video.
if [ "${SLURM_TEST_VIDEO:-1}" != 0 ] && command -v ffmpeg >/dev/null 2>&1; then
  vview=(--center=-0.743643887037151,0.131825904205330 --zoom=64 --iterations=500 --size=160x90 --fps=10 --duration=1 --renderer=cpu)
  ts=$(date +%s.%N)
  vjobs=$(deploy/slurm/submit.sh "$n" "$d/out/zoom.mp4" "${vview[@]}") || fail "submit.sh (video) failed"
  vasm=$(echo "$vjobs" | awk '/^assemble job/{print $3}')
  "$bin" video "${vview[@]}" -o "$d/one.mp4" 2>"$d/one-video.log" || fail "one-process video failed"
  for _ in $(seq 600); do
    case $(state "$vasm") in *COMPLETED*|*FAILED*|*CANCELLED*|*TIMEOUT*|*NODE_FAIL*|*OUT_OF_MEMORY*) break ;; esac
    sleep 0.1
  done
  took=$(since "$ts")
  [ "$(state "$vasm")" = "COMPLETED " ] || fail "the video's assemble job ended $(state "$vasm")"
  a=$(ffmpeg -v error -i "$d/out/zoom.mp4" -f rawvideo -pix_fmt rgb24 - | md5sum)
  b=$(ffmpeg -v error -i "$d/one.mp4" -f rawvideo -pix_fmt rgb24 - | md5sum)
  [ "$a" = "$b" ] || fail "the assembled video's frames differ from one process's"
  echo "slurm-test: the video's $n keyframe shards and its assembly took $took s; its decoded frames are one process's"
fi
echo "slurm-test: passed in $(since "$t0") s"
