#!/usr/bin/env bash
# Builds Compatibility/PortedApp — an app's package that imports Photos, CoreImage and UniformTypeIdentifiers by
# Apple's module names and depends on OpenPhotoKit's products of those names only on Linux — and runs its command on a
# small generated image. If this stops building, ported apps stop building.
set -euo pipefail
cd "$(dirname "$0")/../Compatibility/PortedApp"
swift build --scratch-path ../../.build-ported-app
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A 4×4 binary PPM (libvips reads it), so the run needs no sample media.
{ printf 'P6\n4 4\n255\n'; for _ in $(seq 16); do printf '\xc8\x64\x32'; done; } > "$work/in.ppm"
"$(swift build --scratch-path ../../.build-ported-app --show-bin-path)/ported-app" "$work/in.ppm" "$work/out.jpg"
test -s "$work/out.jpg"
