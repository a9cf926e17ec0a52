#!/usr/bin/env bash
# Runs the Windows package under Wine and checks it against the Linux package (CI runs it after
# make package-check; `make wine-test`). Needs root: debootstrap, chroot and mounts.
#
# Both packages are built by scripts/package.sh, as `make package` builds them. The .exe runs under
# Wine 10 from Debian 13 (trixie), in a chroot of its own: Debian 12's Wine 8 cannot start Go 1.22+
# programs (they need ProcessPrng from bcryptprimitives.dll). Checked there:
#   version   `Mandelscope.exe version` prints the version FyneApp.toml names
#   export    CPU exports of a few views (the home view, a Julia set, perturbation with BLA at 2e32,
#             extended exponents at 4e533) are pixel for pixel the Linux program's
#   window    the window opens on a private Xvfb (Wine's OpenGL: Mesa's llvmpipe), draws a
#             full-resolution frame, shows the fractal (a screenshot's middle has many colours),
#             and closes cleanly (exit status 0) on a close message, as from its close button
#
# The chroot (debootstrap's minbase from Debian's mirror, with wine64, Mesa, a font and a Wine
# prefix; about 2 GB) is kept in ${MANDELSCOPE_WINE_CACHE:-/var/cache/mandelscope/wine-trixie} and
# made again when its stamp is missing or names another recipe, or when Wine there does not start:
# 2 to 4 minutes on a 2-core machine, against a second cached. Each check prints one line; the first
# that fails ends the script with a one-line reason and status 1.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
root=${MANDELSCOPE_WINE_CACHE:-/var/cache/mandelscope/wine-trixie}
pkgs="wine64 libgl1 libglx-mesa0 libgl1-mesa-dri fonts-dejavu-core"
# The stamp holds the recipe: a chroot made by another recipe is made again.
recipe="trixie minbase; $pkgs; prefix /root/.wine; 1"
stamp="$root/.mandelscope-wine-test"

say() { echo "wine-test: $*"; }
fail() { echo "wine-test: FAIL: $*" >&2; exit 1; }
[ "$(id -u)" = 0 ] || fail "needs root (debootstrap, chroot and mounts): run it as root or with sudo"
for c in debootstrap chroot flock findmnt Xvfb xdpyinfo xdotool import compare convert; do
  command -v "$c" >/dev/null || fail "$c is missing (scripts/deps.sh wine installs what this needs)"
done
start=$SECONDS
phase() { say "$1 ($((SECONDS - start)) s)"; }

tmp=$(mktemp -d /tmp/mandelscope-wine.XXXXXX)
xvfb_pid="" app_pid="" mounted="" proc_mounted=""
# Mounts go under the chroot only while the script runs; each is undone on the way out,
# whatever the way (a lazy unmount where a process in the chroot still holds one).
# in_chroot DIR: whether a live process has DIR as its root.
in_chroot() {
  local p
  for p in /proc/[0-9]*; do [ "$(readlink "$p/root" 2>/dev/null)" = "$1" ] && return 0; done
  return 1
}
cleanup() {
  set +e
  [ -n "$app_pid" ] && kill "$app_pid" 2>/dev/null
  if [ -n "$proc_mounted" ]; then
    chroot "${proc_mounted%/proc}" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine /usr/lib/wine/wineserver -k >/dev/null 2>&1
    umount "$proc_mounted" 2>/dev/null || umount -l "$proc_mounted"
  fi
  if [ -n "$mounted" ]; then
    chroot "$root" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine /usr/lib/wine/wineserver -k >/dev/null 2>&1
    # Wine's processes end before their /proc goes.
    for _ in $(seq 50); do in_chroot "$root" || break; sleep 0.2; done
    for m in "$root/work" "$root/tmp/.X11-unix" "$root/proc"; do
      mountpoint -q "$m" && { umount "$m" 2>/dev/null || umount -l "$m"; }
    done
  fi
  [ -d "$root.new" ] && unmount_below "$root.new"
  [ -n "$xvfb_pid" ] && kill "$xvfb_pid" 2>/dev/null
  rm -rf "$tmp"
}
trap cleanup EXIT

# --- the packages -------------------------------------------------------------------------------
phase "building the packages (scripts/package.sh)"
./scripts/package.sh "$tmp/pkg" >"$tmp/package.log" 2>&1 || { tail -n 20 "$tmp/package.log" >&2; fail "scripts/package.sh failed (its last lines above)"; }
tar xJf "$tmp/pkg/Mandelscope.tar.xz" -C "$tmp" mandelscope/usr/local/bin/mandelscope
linux=$tmp/mandelscope/usr/local/bin/mandelscope
mkdir -p "$tmp/work"
cp "$tmp/pkg/Mandelscope.exe" "$tmp/work/Mandelscope.exe"
version=$(awk -F'"' '/^[[:space:]]*Version[[:space:]]*=/{print $2; exit}' FyneApp.toml)

# --- the chroot ---------------------------------------------------------------------------------
# Nothing may be mounted below a chroot that is removed: rm would go into the mount.
unmount_below() {
  local m
  for m in $(findmnt -rn -o TARGET | grep -F "$1/" | sort -r); do umount "$m" 2>/dev/null || umount -l "$m"; done
  ! findmnt -rn -o TARGET | grep -qF "$1/"
}
# with_proc DIR CMD... runs CMD with /proc mounted in the chroot DIR (Wine finds itself there).
with_proc() {
  local dir=$1 rc=0
  shift
  mount -t proc proc "$dir/proc" || return 1
  proc_mounted=$dir/proc
  "$@" || rc=$?
  umount "$dir/proc" 2>/dev/null || umount -l "$dir/proc"
  proc_mounted=""
  return $rc
}
chroot_ok() {
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$recipe" ] && [ -x "$root/usr/lib/wine/wine64" ] &&
    [ -f "$root/root/.wine/system.reg" ] && with_proc "$root" chroot "$root" /usr/lib/wine/wine64 --version >/dev/null 2>&1
}
# The packages, and the Wine prefix: its first start makes it (saying it cannot find a 32-bit
# rundll32, which the 64-bit-only Wine does not need), here rather than in a check's run; the
# registry is written when the wineserver ends.
install_wine() {
  chroot "$1" bash -c "apt-get -o Acquire::Retries=3 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o Acquire::Retries=3 install -y -qq --no-install-recommends $pkgs && apt-get clean" || return 1
  chroot "$1" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine WINEDEBUG=-all XDG_RUNTIME_DIR=/tmp \
    /usr/lib/wine/wine64 wineboot --init || true
  chroot "$1" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine /usr/lib/wine/wineserver -w
}
make_chroot() {
  local new="$root.new" log="$root.log"
  mkdir -p "$(dirname "$root")"
  unmount_below "$new" || fail "cannot unmount what is mounted below $new"
  rm -rf --one-file-system "$new"
  say "making the Debian 13 chroot in $root (debootstrap and apt; log in $log)"
  debootstrap --variant=minbase trixie "$new" >"$log" 2>&1 ||
    fail "debootstrap of Debian 13 (trixie) failed: $(grep -E '^E:' "$log" | tail -n 1) (log in $log)"
  cp /etc/resolv.conf "$new/etc/resolv.conf"
  with_proc "$new" install_wine "$new" >>"$log" 2>&1 ||
    fail "installing Wine in the chroot failed: $(grep -E '^E:' "$log" | tail -n 1) (log in $log)"
  [ -f "$new/root/.wine/system.reg" ] || fail "wineboot made no Wine prefix in the chroot (log in $log)"
  echo "$recipe" >"$new/.mandelscope-wine-test"
  if [ -e "$root" ]; then
    unmount_below "$root" || fail "cannot unmount what is mounted below $root"
    rm -rf --one-file-system "$root"
  fi
  mv "$new" "$root"
}
# One run at a time makes or uses the chroot.
mkdir -p "$(dirname "$root")"
exec 9>"$root.lock"
flock -w 1800 9 || fail "another wine-test has held $root.lock for 30 minutes"
if chroot_ok; then
  phase "Debian 13 chroot with Wine: cached in $root"
else
  [ -e "$root" ] && say "the chroot in $root is stale or broken (stamp, files or Wine's start): making it again"
  make_chroot
  chroot_ok || fail "the chroot made in $root does not start Wine (log in $root.log)"
  phase "Debian 13 chroot with Wine: made in $root"
fi
say "Wine $(chroot "$root" dpkg-query -W -f='${Version}' wine64) (Debian $(cat "$root/etc/debian_version"))"

# --- Wine running, on a private display ---------------------------------------------------------
for n in $(seq 90 140); do
  [ -e "/tmp/.X$n-lock" ] || [ -e "/tmp/.X11-unix/X$n" ] || { disp=":$n"; break; }
done
[ -n "${disp:-}" ] || fail "no free X display number in :90-:140"
Xvfb "$disp" -screen 0 1280x800x24 -nolisten tcp >"$tmp/xvfb.log" 2>&1 &
xvfb_pid=$!
for _ in $(seq 100); do xdpyinfo -display "$disp" >/dev/null 2>&1 && break; sleep 0.1; done
xdpyinfo -display "$disp" >/dev/null 2>&1 || fail "Xvfb did not start on $disp ($(tail -n 1 "$tmp/xvfb.log"))"
mkdir -p "$root/work" "$root/tmp/.X11-unix"
mounted=1
mount -t proc proc "$root/proc"
mount --bind "$tmp/work" "$root/work"
mount --bind /tmp/.X11-unix "$root/tmp/.X11-unix"
# "${winenv[@]}" [VAR=VALUE...] bash -c "$inwork" wine ARGS... runs Wine in the chroot, in /work,
# in a clean environment, for 5 minutes at most; wine_run ARGS... does that.
winenv=(timeout -k 10 300 chroot "$root" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine
  WINEDEBUG=-all XDG_RUNTIME_DIR=/tmp LANG=C.UTF-8 DISPLAY="$disp")
inwork='cd /work && exec /usr/lib/wine/wine64 "$@"'
wine_run() { "${winenv[@]}" bash -c "$inwork" wine "$@"; }
# One wineserver for the whole run, rather than one started (about 3 s) for each command.
chroot "$root" env -i PATH=/usr/bin:/bin HOME=/root WINEPREFIX=/root/.wine /usr/lib/wine/wineserver -p

# --- version ------------------------------------------------------------------------------------
out=$(wine_run Mandelscope.exe version 2>"$tmp/version.err") || fail "Mandelscope.exe version exited $? ($(tail -n 1 "$tmp/version.err"))"
[ "$out" = "mandelscope $version" ] || fail "Mandelscope.exe version printed \"$out\", want \"mandelscope $version\""
phase "version: Mandelscope.exe prints \"$out\""

# --- exports ------------------------------------------------------------------------------------
loc() { awk -v n="$1" '$1 == n {print "--center=" $2 "," $3, "--zoom=" $4, "--iterations=" $5}' fractal/testdata/deep/locations.txt; }
views=(
  "home|"
  "julia|--julia=-0.122561166876654,0.744861766619744 --center=0.3,0.1 --zoom=1e6"
  "p8007|$(loc p8007)"
  "misi4e533|$(loc misi4e533)"
)
for v in "${views[@]}"; do
  name=${v%%|*}
  read -r -a args <<<"${v#*|}"
  "$linux" export --renderer=cpu --size=64x48 "${args[@]}" -o "$tmp/linux-$name.png" >"$tmp/linux-$name.log" 2>&1 ||
    fail "export $name: the Linux program exited $? ($(tail -n 1 "$tmp/linux-$name.log"))"
  wine_run Mandelscope.exe export --renderer=cpu --size=64x48 "${args[@]}" -o "windows-$name.png" >"$tmp/windows-$name.log" 2>&1 ||
    fail "export $name: Mandelscope.exe exited $? ($(tail -n 1 "$tmp/windows-$name.log"))"
  [ -s "$tmp/work/windows-$name.png" ] || fail "export $name: Mandelscope.exe wrote no windows-$name.png"
  # The number of pixels that differ at all (ImageMagick decodes both PNGs; sizes must agree).
  ae=$(compare -metric AE "$tmp/linux-$name.png" "$tmp/work/windows-$name.png" null: 2>&1) || true
  [ "$ae" = 0 ] || fail "export $name: the Windows PNG differs from the Linux one: $ae pixels differ"
  same="pixel for pixel"
  cmp -s "$tmp/linux-$name.png" "$tmp/work/windows-$name.png" && same="byte for byte"
  phase "export $name (64x48, CPU): the same as Linux's, $same"
done

# --- the window ---------------------------------------------------------------------------------
"${winenv[@]}" MANDELSCOPE_TRACE_FRAMES=1 bash -c "$inwork" wine Mandelscope.exe --center=-0.75,0 --zoom=1 --size=640x400 >"$tmp/window.log" 2>&1 &
app_pid=$!
# A frame at full resolution that is not a moving one: the picture drawn.
drawn=0
for _ in $(seq 240); do
  grep -qE '^frame .* scale 1/1 .*interactive false' "$tmp/window.log" && { drawn=1; break; }
  kill -0 "$app_pid" 2>/dev/null || break
  sleep 0.5
done
if [ $drawn = 0 ]; then
  kill -0 "$app_pid" 2>/dev/null || fail "window: Mandelscope.exe exited before drawing a frame ($(grep -v '^frame\|^samples' "$tmp/window.log" | tail -n 1))"
  fail "window: no full frame drawn within 120 s"
fi
sleep 1
wid=$(DISPLAY=$disp xdotool search --onlyvisible --name '^Mandelscope$' | head -n 1) || true
[ -n "$wid" ] || fail "window: no visible window named Mandelscope on $disp"
eval "$(DISPLAY=$disp xdotool getwindowgeometry --shell "$wid")"
import -display "$disp" -window root "$tmp/window.png"
# The middle of the window (half its width, a quarter of its height) lies in the picture: the
# fractal's bands give it hundreds of colours, a blank or one-colour picture one or a few.
colours=$(convert "$tmp/window.png" -crop "$((WIDTH / 2))x$((HEIGHT / 4))+$((X + WIDTH / 4))+$((Y + HEIGHT * 3 / 8))" +repage -format %k info:)
[ "$colours" -ge 64 ] || fail "window: the middle of the window has $colours colours (want 64 or more): no fractal drawn"
gl=$(grep -o 'renders with .*' "$tmp/window.log" | head -n 1) || true
phase "window: ${WIDTH}x${HEIGHT}, a full frame drawn, $colours colours in its middle${gl:+, $gl}"
# taskkill without /f sends the window WM_CLOSE, as its close button does.
wine_run taskkill /im Mandelscope.exe >/dev/null 2>&1 || fail "window: taskkill could not send Mandelscope.exe a close message"
for _ in $(seq 60); do kill -0 "$app_pid" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$app_pid" 2>/dev/null; then fail "window: Mandelscope.exe still runs 30 s after its window was closed"; fi
rc=0
wait "$app_pid" || rc=$?
app_pid=""
[ $rc = 0 ] || fail "window: Mandelscope.exe exited $rc on closing its window ($(grep -v '^frame\|^samples' "$tmp/window.log" | tail -n 1))"
phase "window: closed cleanly (exit status 0)"
say "all checks passed in $((SECONDS - start)) s"
