#!/usr/bin/env bash
# Regenerates the committed Swift code for echo.proto into Sources/grpc-peer/Generated/:
#   echo.pb.swift    messages (protoc-gen-swift, swift-protobuf 1.39.0)
#   echo.grpc.swift  client and service (protoc-gen-grpc-swift-2, grpc-swift-protobuf 2.4.1)
# protoc comes from Debian (protobuf-compiler); both plugins are built in release from this
# package's own dependencies (same versions as Package.swift), into this package's .build/.
# With --check, regenerates into a temporary folder and fails if the committed code differs.
set -euo pipefail
cd "$(dirname "$0")"
check=0
[ "${1:-}" = "--check" ] && check=1
SWIFT=${SWIFT:-swift}

command -v protoc >/dev/null || { echo "generate.sh: protoc not found (apt-get install protobuf-compiler)" >&2; exit 1; }

for product in protoc-gen-swift protoc-gen-grpc-swift-2; do
    "$SWIFT" build -c release --product "$product" >&2
done
bin=$("$SWIFT" build -c release --show-bin-path)

out=Sources/grpc-peer/Generated
if [ $check = 1 ]; then
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    out=$tmp
fi
rm -rf "$out"
mkdir -p "$out"
protoc -I Sources/grpc-peer \
    --plugin=protoc-gen-swift="$bin/protoc-gen-swift" \
    --plugin=protoc-gen-grpc-swift="$bin/protoc-gen-grpc-swift-2" \
    --swift_out="$out" --swift_opt=Visibility=Internal \
    --grpc-swift_out="$out" --grpc-swift_opt=Visibility=Internal,Server=true,Client=true \
    echo.proto

if [ $check = 1 ]; then
    if ! diff -r "$out" Sources/grpc-peer/Generated; then
        echo "generate.sh --check: committed code differs from echo.proto; run generate.sh" >&2
        exit 1
    fi
    echo "generate.sh --check: generated code is current"
fi
