// swift-tools-version:6.0
//
// RollingSync: keep an application's SQLite data in sync between many clients through dumb remote
// storage (a folder, SFTP, WebDAV, or an in-memory fake).
//
// Each backend is its own product so an application links only the transports it uses.

import PackageDescription

/// Settings shared by every target of this package: Swift 6 mode is set package-wide below; these add
/// `any` spelled out for existentials and member-import visibility, as swift-log and swift-nio do.
let sharedSwiftSettings: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "RollingSync",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RemoteProtocol", targets: ["RemoteProtocol"]),
        .library(name: "InMemoryRemote", targets: ["InMemoryRemote"]),
        .library(name: "FileRemote", targets: ["FileRemote"]),
        .library(name: "RemoteStoreConformance", targets: ["RemoteStoreConformance"]),
        .library(name: "RemoteTransportSupport", targets: ["RemoteTransportSupport"]),
        .library(name: "WebDAVRemote", targets: ["WebDAVRemote"]),
    ],
    targets: [
        .target(name: "RemoteProtocol", swiftSettings: sharedSwiftSettings),
        .target(name: "InMemoryRemote", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .target(name: "FileRemote", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .target(name: "RemoteStoreConformance", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .target(name: "RemoteTransportSupport", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        .target(
            name: "WebDAVRemote",
            dependencies: ["CCurl", "RemoteProtocol", "RemoteTransportSupport"],
            swiftSettings: sharedSwiftSettings
        ),

        .testTarget(name: "RemoteProtocolTests", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .testTarget(
            name: "RemoteTransportSupportTests",
            dependencies: ["RemoteTransportSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "InMemoryRemoteTests",
            dependencies: ["InMemoryRemote", "RemoteStoreConformance"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FileRemoteTests",
            dependencies: ["FileRemote", "RemoteStoreConformance"],
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "WebDAVBenchmark",
            dependencies: ["WebDAVRemote", "RemoteProtocol"],
            path: "Benchmarks/WebDAVBenchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "WebDAVRemoteTests",
            dependencies: ["WebDAVRemote", "RemoteProtocol", "RemoteStoreConformance"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RemoteStoreConformanceTests",
            dependencies: ["RemoteStoreConformance", "InMemoryRemote"],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)
