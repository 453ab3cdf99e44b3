#!/usr/bin/env bash
# Fuzzes the parsers of untrusted input with libFuzzer: the NSPredicate parser and compiler, each metadata
# reader (EXIF, Apple MakerNote, XMP, IPTC, PNG chunks, QuickTime boxes, format sniffing), and HEIF files through the
# HEIF check helper and the probe (a libheif abort must end the helper, never photos-fuzz), and movies through the
# poster-frame and export paths of the C shim.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]    default: 20 s for each target (the short run the test command does)
#   scripts/fuzz.sh 3600 predicate           the long run, one hour of the predicate parser
#
# Builds photos-fuzz with -sanitize=fuzzer,address into .build-fuzz (git-ignored), runs each target over its kept
# inputs (Tests/FuzzCorpus/TARGET) and a working corpus (.build-fuzz/corpus/TARGET), and prints the executions.
# A crash stops the run with libFuzzer's report; the input is written to .build-fuzz/crashes/: add it to
# Tests/FuzzCorpus/TARGET (the FuzzRegressionTests run it on every test run) once it is fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(predicate exif makernote xmp iptc png quicktime sniff heif movie raw)

echo "fuzz: building photos-fuzz with libFuzzer and AddressSanitizer (.build-fuzz)" >&2
# The toolchain's lld links it: gold stops with an internal error on the sanitizer runtime.
mkdir -p .build-fuzz
lld="$(dirname "$(readlink -f "$(command -v swift)")")/ld.lld"
printf '{ "schemaVersion": "1.0", "linker": { "path": "%s" } }\n' "$lld" > .build-fuzz/toolset.json
swift build -c release --build-path .build-fuzz --product photos-fuzz --toolset .build-fuzz/toolset.json \
  -Xswiftc -sanitize=fuzzer,address -Xswiftc -parse-as-library -Xswiftc -DFUZZING 2>&1 \
  | grep -E "error|Build of product" >&2 || true
binary=.build-fuzz/release/photos-fuzz
[ -x "$binary" ] || { echo "fuzz: the build failed" >&2; exit 1; }
# The heif target reads files through the HEIF check helper, which is found beside the program (plain C, no sanitizer:
# its crashes are what it is for).
# shellcheck disable=SC2046
cc -O2 -Wall -Werror Sources/openphotokit-heif-check/main.c -o .build-fuzz/release/openphotokit-heif-check $(pkg-config --cflags --libs libheif)

mkdir -p .build-fuzz/crashes
status=0
for target in "${targets[@]}"; do
  corpus=.build-fuzz/corpus/$target
  mkdir -p "$corpus"
  log=.build-fuzz/$target.log
  # Predicates longer than a few KB only repeat what shorter ones cover, and cost time per run.
  max_len=65536
  [ "$target" = predicate ] && max_len=4096
  # Movies: tiny generated ones in awkward shapes (the poster-frame and export paths under ASan).
  if [ "$target" = movie ] && [ -z "$(ls -A "$corpus")" ]; then
    for size in 568x320 17x9 2x66 94x50; do
      ffmpeg -v error -y -f lavfi -i "testsrc=size=$size:rate=5:duration=0.4" -c:v libx264 -pix_fmt yuv444p "$corpus/seed-$size.mp4" || true
    done
    ffmpeg -v error -y -f lavfi -i "testsrc=size=66x34:rate=5:duration=0.4" -c:v mjpeg -pix_fmt yuvj422p "$corpus/seed-mjpeg.mov" || true
  fi
  # HEIF: mutations of iPhone photos' first kilobytes, where the box structure is.
  if [ "$target" = heif ] && [ -d ../shared/media/heic ] && [ -z "$(ls -A "$corpus")" ]; then
    for f in ../shared/media/heic/*; do head -c 65536 "$f" >"$corpus/seed-$(basename "$f")"; done
  fi
  # RAW: the DNGs check-c.sh checks (generated: small mosaics of odd shapes and orientations).
  if [ "$target" = raw ] && [ -z "$(ls -A "$corpus")" ]; then
    python3 Tests/CShimChecks/make_dng.py "$corpus.seed" && cp "$corpus.seed"/*.dng "$corpus"/ && rm -rf "$corpus.seed"
  fi
  # Swift's backtracer would wait instead of letting libFuzzer write the crash and exit.
  if SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 PHOTOS_FUZZ_TARGET=$target \
    "$binary" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len="$max_len" -print_final_stats=1 \
    -artifact_prefix=".build-fuzz/crashes/$target-" "$corpus" "Tests/FuzzCorpus/$target" >"$log" 2>&1; then
    runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$' || echo "?")
    echo "fuzz: $target: $runs executions in ${seconds} s, 0 crashes"
  else
    echo "fuzz: $target: CRASHED — see $log and .build-fuzz/crashes/" >&2
    grep -E "ERROR|SUMMARY|Fatal error|==[0-9]+==" "$log" | head -20 >&2 || true
    status=1
  fi
done
exit $status
