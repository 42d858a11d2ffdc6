#!/bin/sh
# Test photographs for the BlazeFace and PP-OCR detection tests: sample
# images that scikit-image ships (Debian's python3-skimage; a portrait of
# astronaut Eileen Collins, a cat, a coffee cup, a rocket, a motorcycle, a
# photographed book page, handwritten formulas on paper), taken from
# the package with apt-get download into build/testdata/skimage, without
# installing it, and never committed. Idempotent.
set -eu
cd "$(dirname "$0")/.."
OUT=build/testdata/skimage
FILES="astronaut.png chelsea.png coffee.png rocket.jpg motorcycle_left.png page.png text.png"
have=1
for f in $FILES; do
	[ -f "$OUT/$f" ] || have=0
done
[ "$have" -eq 1 ] && exit 0

mkdir -p build/testdata/deb "$OUT"
cd build/testdata/deb
if ! ls python3-skimage_*.deb >/dev/null 2>&1; then
	echo "setup-images: fetching python3-skimage (its sample images only)"
	if ! apt-get download python3-skimage >/dev/null 2>&1; then
		SUDO=""
		[ "$(id -u)" -ne 0 ] && SUDO="sudo"
		$SUDO apt-get update -q >/dev/null
		apt-get download python3-skimage
	fi
fi
members=""
for f in $FILES; do
	members="$members ./usr/lib/python3/dist-packages/skimage/data/$f"
done
# shellcheck disable=SC2086
dpkg-deb --fsys-tarfile python3-skimage_*.deb | tar -x $members
for f in $FILES; do
	mv "usr/lib/python3/dist-packages/skimage/data/$f" "../../../$OUT/$f"
done
rm -rf usr
