// swift-tools-version:6.1
// A grpc-swift-2 echo peer for `make bench`: its own package so that `make test` never builds it.
// The generated code in Sources/grpc-peer/Generated comes from echo.proto (generate.sh).
import PackageDescription

let package = Package(
    name: "grpc-peer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "grpc-peer", targets: ["grpc-peer"]),
    ],
    dependencies: [
        .package(url: "https://github.com/grpc/grpc-swift-2", exact: "2.4.3"),
        .package(url: "https://github.com/grpc/grpc-swift-nio-transport", exact: "2.9.2"),
        .package(url: "https://github.com/grpc/grpc-swift-protobuf", exact: "2.4.1"),
        .package(url: "https://github.com/apple/swift-protobuf", exact: "1.39.0"),
    ],
    targets: [
        .executableTarget(
            name: "grpc-peer",
            dependencies: [
                .product(name: "GRPCCore", package: "grpc-swift-2"),
                .product(name: "GRPCNIOTransportHTTP2Posix", package: "grpc-swift-nio-transport"),
                .product(name: "GRPCProtobuf", package: "grpc-swift-protobuf"),
                .product(name: "SwiftProtobuf", package: "swift-protobuf"),
            ],
            exclude: ["echo.proto"]
        ),
    ]
)
