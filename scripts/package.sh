#!/usr/bin/env bash
# Packages Mandelscope the way Fyne apps are packaged, from FyneApp.toml (name, id, version,
# icon), into dist/ (or the folder given):
#   Mandelscope.tar.xz   Linux: the binary, a .desktop entry and the icon, with a Makefile;
#                        `tar xf Mandelscope.tar.xz && make -C mandelscope user-install` puts
#                        them in the user's menu (~/.local), `sudo make -C mandelscope install`
#                        system-wide
#   Mandelscope.exe      Windows amd64: the app with its icon and version resource, built with
#                        the mingw-w64 cross compiler (Debian's gcc-mingw-w64-x86-64)
# The fyne tool (fyne.io/tools) is run at a fixed version through the Go module proxy. Each
# package is checked after it is made: the archive holds the binary, the entry and the icon; the
# .exe is a PE image for x86-64 that carries the version.
set -euo pipefail
cd "$(dirname "$0")/.."
out=$(realpath -m "${1:-dist}")
# The tool is built once for this machine (not with the cross compiler set below).
tools=$(mktemp -d)
GOBIN="$tools" go install fyne.io/tools/cmd/fyne@v1.7.4
fyne=("$tools/fyne")
# The release binaries carry the deep-zoom CPU renderer's vector loops (AVX-512 or AVX2, chosen at
# run time; the scalar loop elsewhere), as make build does.
export GOEXPERIMENT=simd
version=$(awk -F'"' '/^[[:space:]]*Version[[:space:]]*=/{print $2; exit}' FyneApp.toml)
mkdir -p "$out"
# A release build bumps Build in FyneApp.toml (and reformats it): keep the file as committed.
keep=$(mktemp); cp FyneApp.toml "$keep"
trap 'cp "$keep" FyneApp.toml; rm -rf "$keep" "$tools"' EXIT

echo "package: Linux archive"
"${fyne[@]}" package --os linux --release
mv -f Mandelscope.tar.xz "$out/"
list=$(tar tJf "$out/Mandelscope.tar.xz")
for want in mandelscope/usr/local/bin/mandelscope mandelscope/usr/local/share/applications/io.mandelscope.app.desktop \
  mandelscope/usr/local/share/pixmaps/io.mandelscope.app.png mandelscope/Makefile; do
  grep -qx "$want" <<<"$list" || { echo "package: $want is missing from Mandelscope.tar.xz" >&2; exit 1; }
done

echo "package: Windows .exe"
CC=${CC_WINDOWS:-x86_64-w64-mingw32-gcc} CGO_ENABLED=1 "${fyne[@]}" package --os windows --release
mv -f Mandelscope.exe "$out/"
# A PE image: "MZ", the PE signature at the offset in 0x3c, machine 0x8664 (x86-64); and the
# version resource (UTF-16 text) names the version from FyneApp.toml.
python3 - "$out/Mandelscope.exe" "$version" <<'PY'
import struct, sys
b = open(sys.argv[1], 'rb').read()
assert b[:2] == b'MZ', 'not an MZ executable'
pe = struct.unpack_from('<I', b, 0x3c)[0]
assert b[pe:pe+4] == b'PE\0\0', 'no PE signature'
assert struct.unpack_from('<H', b, pe+4)[0] == 0x8664, 'not x86-64'
assert sys.argv[2].encode('utf-16-le') in b, 'no version resource naming ' + sys.argv[2]
PY
ls -l "$out"
