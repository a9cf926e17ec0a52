#!/bin/sh
# renderers.sh draws random-verify's views (-flags) with the GPU and the CPU renderer, small, in a
# colouring drawn from smooth, distance and slopes, and prints for each the share of pixels whose
# colours differ by more than 2% (ImageMagick's compare -fuzz), failing when any view's share is
# above MAX (default 0.02: chaotic pixels at a set's edge may part ways; a wrong step is most of
# the picture), and the CPU picture's colours (a flat one tests little). Run it from the project root with a display (Xvfb) and a built mandelscope:
#   bench/random-verify/renderers.sh BIN N SEED [LO HI]
set -eu
bin=$1 n=$2 seed=$3 lo=${4:-2} hi=${5:-400}
max=${MAX:-0.02}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go run ./bench/random-verify -flags -n "$n" -seed "$seed" -lo "$lo" -hi "$hi" -iter 3000 >"$dir/views"
i=0 bad=0
while read -r flags; do
	i=$((i + 1))
	col=$(echo "smooth distance slopes" | cut -d' ' -f$((i % 3 + 1)))
	for r in gpu cpu; do
		# shellcheck disable=SC2086 # the flags are words
		"$bin" export $flags --colouring="$col" --size=96x54 --renderer=$r -o "$dir/$r$i.png" >/dev/null 2>"$dir/err" ||
			{ echo "view $i ($r): $(tail -1 "$dir/err")"; bad=$((bad + 1)); continue 2; }
	done
	ae=$(compare -metric AE -fuzz 2% "$dir/gpu$i.png" "$dir/cpu$i.png" null: 2>&1 || true)
	share=$(echo "$ae" | awk '{printf "%.4f", $1 / (96 * 54)}')
	verdict=ok
	if awk "BEGIN{exit !($share > $max)}"; then
		verdict=DIFFER
		bad=$((bad + 1))
	fi
	colours=$(identify -format %k "$dir/cpu$i.png")
	echo "view $i $col, $colours colours: $share of the pixels differ ($verdict): $(echo "$flags" | cut -c1-160)"
done <"$dir/views"
echo "$i views, $bad beyond $max"
[ "$bad" -eq 0 ]
