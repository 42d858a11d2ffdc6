#!/bin/sh
# Test photographs, taken from Debian packages with apt-get download (not
# installed) and never committed. Idempotent.
# - build/testdata/skimage: sample images scikit-image ships (python3-skimage:
#   a portrait of astronaut Eileen Collins, a cat, a coffee cup, a rocket, a
#   motorcycle, a photographed book page, handwritten formulas on paper), for
#   the BlazeFace, family and PP-OCR tests;
# - build/testdata/opencv: the photographs of printed text OpenCV's examples
#   ship (opencv-doc: street signs and shop fronts, a printed page, a
#   defocused page), PP-OCR det's int8 calibration data.
set -eu
cd "$(dirname "$0")/.."

# fetch PACKAGE DEST PREFIX FILE...: FILEs (paths under PREFIX in the
# package) into DEST, unless all are there
fetch() {
	pkg=$1 dest=$2 prefix=$3
	shift 3
	have=1
	for f in "$@"; do
		[ -f "$dest/$(basename "$f")" ] || have=0
	done
	[ "$have" -eq 1 ] && return 0
	mkdir -p build/testdata/deb "$dest"
	(
		cd build/testdata/deb
		if ! ls "${pkg}"_*.deb >/dev/null 2>&1; then
			echo "setup-images: fetching $pkg (its sample images only)"
			if ! apt-get download "$pkg" >/dev/null 2>&1; then
				SUDO=""
				[ "$(id -u)" -ne 0 ] && SUDO="sudo"
				$SUDO apt-get update -q >/dev/null
				apt-get download "$pkg"
			fi
		fi
		members=""
		for f in "$@"; do
			members="$members ./$prefix/$f"
		done
		# shellcheck disable=SC2086
		dpkg-deb --fsys-tarfile "${pkg}"_*.deb | tar -x $members
	)
	for f in "$@"; do
		mv "build/testdata/deb/$prefix/$f" "$dest/$(basename "$f")"
	done
	rm -rf "build/testdata/deb/${prefix%%/*}"
}

fetch python3-skimage build/testdata/skimage usr/lib/python3/dist-packages/skimage/data \
	astronaut.png chelsea.png coffee.png rocket.jpg motorcycle_left.png page.png text.png
fetch opencv-doc build/testdata/opencv usr/share/doc/opencv-doc/examples \
	text/scenetext01.jpg text/scenetext02.jpg text/scenetext03.jpg text/scenetext04.jpg \
	text/scenetext05.jpg text/scenetext06.jpg data/imageTextN.png data/imageTextR.png \
	data/text_defocus.jpg
