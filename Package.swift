// swift-tools-version:6.2
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

let grdb: Target.Dependency = .product(name: "GRDB", package: "GRDB.swift")
/// SQLite's C API as GRDB builds it, for the incremental blob I/O GRDB does not wrap.
let grdbSQLite: Target.Dependency = .product(name: "GRDBSQLite", package: "GRDB.swift")
let logging: Target.Dependency = .product(name: "Logging", package: "swift-log")

let package = Package(
    name: "RollingSync",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "RemoteProtocol", targets: ["RemoteProtocol"]),
        .library(name: "InMemoryRemote", targets: ["InMemoryRemote"]),
        .library(name: "FileRemote", targets: ["FileRemote"]),
        .library(name: "SFTPRemote", targets: ["SFTPRemote"]),
        .library(name: "WebDAVRemote", targets: ["WebDAVRemote"]),
        .library(name: "S3Remote", targets: ["S3Remote"]),
        .library(name: "RemoteStoreConformance", targets: ["RemoteStoreConformance"]),
        .library(name: "RemoteTransportSupport", targets: ["RemoteTransportSupport"]),
        .library(name: "SyncCore", targets: ["SyncCore"]),
        .executable(name: "rollsync", targets: ["rollsync"]),
    ],
    dependencies: [
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    ],
    targets: [
        // MARK: The remote side: protocol, backends, contract suite

        .target(name: "RemoteProtocol", swiftSettings: sharedSwiftSettings),
        .target(name: "RemoteTransportSupport", dependencies: ["RemoteProtocol", logging], swiftSettings: sharedSwiftSettings),
        .target(name: "InMemoryRemote", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .target(
            name: "FileRemote",
            dependencies: ["RemoteProtocol", "RemoteTransportSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .systemLibrary(name: "CLibSSH2", pkgConfig: "libssh2", providers: [.apt(["libssh2-1-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CZstd", pkgConfig: "libzstd", providers: [.apt(["libzstd-dev"])]),
        .target(
            name: "SFTPRemote",
            dependencies: ["RemoteProtocol", "RemoteTransportSupport", "CLibSSH2"],
            swiftSettings: sharedSwiftSettings
        ),
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // The libcurl pieces both HTTP backends share (handle pool on dedicated threads, streaming
        // transfers, options, error mapping); not a product, its API is `package`-visible only.
        .target(
            name: "CurlTransport",
            dependencies: ["CCurl", "RemoteProtocol", "RemoteTransportSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "WebDAVRemote",
            dependencies: ["CurlTransport", "RemoteProtocol", "RemoteTransportSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .target(
            name: "S3Remote",
            dependencies: ["CurlTransport", "RemoteProtocol", "RemoteTransportSupport", "CryptoPrimitives"],
            swiftSettings: sharedSwiftSettings
        ),
        .target(name: "RemoteStoreConformance", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),

        // MARK: Cryptography

        // The system's OpenSSL libcrypto, which libcurl and libssh2 already load into the process.
        .systemLibrary(name: "COpenSSL", pkgConfig: "libcrypto", providers: [.apt(["libssl-dev"]), .brew(["openssl@3"])]),
        // SHA-256, MD5, HMAC, HKDF, AES-256-GCM and scrypt over libcrypto for SyncCore's encryption
        // and digests and S3's signatures; not a product, its API is `package`-visible only.
        .target(name: "CryptoPrimitives", dependencies: ["COpenSSL"], swiftSettings: sharedSwiftSettings),

        // MARK: The local side and the synchronisation operations

        .target(
            name: "SyncCore",
            dependencies: ["RemoteProtocol", "CZlib", "CZstd", "CryptoPrimitives", grdb, grdbSQLite, logging],
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: The command-line tool (logic in a library so tests can reach it; main.swift is tiny)

        .target(
            name: "RollSyncCommandLine",
            dependencies: [
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                "SyncCore", "RemoteProtocol", "FileRemote", "InMemoryRemote", "SFTPRemote", "WebDAVRemote", "S3Remote", "CurlTransport", grdb,
                logging,
            ],
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(name: "rollsync", dependencies: ["RollSyncCommandLine"], swiftSettings: sharedSwiftSettings),

        // MARK: Benchmarks (executables that print ratios; run with Scripts/benchmark.sh NAME)

        .executableTarget(
            name: "SyncCoreBenchmark",
            dependencies: ["SyncCore", grdb],
            path: "Benchmarks/SyncCoreBenchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "SyncBenchmark",
            dependencies: ["SyncCore", "RemoteProtocol", "InMemoryRemote", "FileRemote", "SFTPRemote", "WebDAVRemote", "S3Remote", grdb],
            path: "Benchmarks/SyncBenchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "EncryptionBenchmark",
            dependencies: ["SyncCore", "FileRemote", "RemoteProtocol"],
            path: "Benchmarks/EncryptionBenchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "SFTPBenchmark",
            dependencies: ["SFTPRemote", "RemoteProtocol"],
            path: "Benchmarks/SFTPBenchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .target(name: "BenchmarkSupport", path: "Benchmarks/BenchmarkSupport", swiftSettings: sharedSwiftSettings),
        .executableTarget(
            name: "S3Benchmark",
            dependencies: ["S3Remote", "RemoteProtocol", "BenchmarkSupport"],
            path: "Benchmarks/S3Benchmark",
            swiftSettings: sharedSwiftSettings
        ),
        .executableTarget(
            name: "WebDAVBenchmark",
            dependencies: ["WebDAVRemote", "RemoteProtocol", "BenchmarkSupport"],
            path: "Benchmarks/WebDAVBenchmark",
            swiftSettings: sharedSwiftSettings
        ),

        // MARK: Tests

        // Helpers shared by the test targets (temporary directories, large files, child processes,
        // peak memory); a plain library so its failures are thrown errors, not Swift Testing issues.
        .target(name: "TestSupport", path: "Tests/Support", swiftSettings: sharedSwiftSettings),
        .testTarget(name: "RemoteProtocolTests", dependencies: ["RemoteProtocol"], swiftSettings: sharedSwiftSettings),
        .testTarget(name: "CryptoPrimitivesTests", dependencies: ["CryptoPrimitives"], swiftSettings: sharedSwiftSettings),
        .testTarget(
            name: "RemoteTransportSupportTests",
            dependencies: ["RemoteTransportSupport", logging],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "InMemoryRemoteTests",
            dependencies: ["InMemoryRemote", "RemoteStoreConformance"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "FileRemoteTests",
            dependencies: ["FileRemote", "RemoteStoreConformance", "RemoteTransportSupport", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "SFTPRemoteTests",
            dependencies: ["SFTPRemote", "RemoteStoreConformance", "RemoteTransportSupport", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "WebDAVRemoteTests",
            dependencies: ["WebDAVRemote", "CurlTransport", "RemoteProtocol", "RemoteStoreConformance", "RemoteTransportSupport", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "S3RemoteTests",
            dependencies: ["S3Remote", "CurlTransport", "RemoteProtocol", "RemoteStoreConformance", "TestSupport"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "RemoteStoreConformanceTests",
            dependencies: ["RemoteStoreConformance", "InMemoryRemote"],
            swiftSettings: sharedSwiftSettings
        ),
        .testTarget(
            name: "SyncCoreTests",
            dependencies: ["SyncCore", "CryptoPrimitives", "TestSupport", grdb],
            swiftSettings: sharedSwiftSettings
        ),
        // Depends on the executable so `swift build --build-tests` and `swift test` build the binary the
        // end-to-end tests run as a separate process.
        .testTarget(
            name: "RollSyncCommandLineTests",
            dependencies: ["rollsync", "RollSyncCommandLine", "TestSupport", grdb],
            swiftSettings: sharedSwiftSettings
        ),
        // SyncCore's operations end to end: the managers syncing databases through every backend
        // (registration, sync, whole stores, vacuum, removal, history, encryption, simulations).
        .testTarget(
            name: "SyncOperationsTests",
            dependencies: [
                "SyncCore", "InMemoryRemote", "FileRemote", "SFTPRemote", "WebDAVRemote", "S3Remote", "TestSupport", grdb, logging,
            ],
            swiftSettings: sharedSwiftSettings
        ),
    ],
    swiftLanguageModes: [.v6]
)

// MARK: Fuzzing (only for Scripts/fuzz.sh)

// The libFuzzer targets of every parser that reads untrusted bytes (Fuzz/README.md). Declared only
// when Scripts/fuzz.sh builds them (ROLLSYNC_FUZZ=1, with --sanitize=fuzzer --sanitize=address in a
// build folder of their own): libFuzzer supplies `main`, so an ordinary build could not link them.
if Context.environment["ROLLSYNC_FUZZ"] == "1" {
    package.targets.append(
        .executableTarget(
            name: "rollsync-fuzz",
            dependencies: ["SyncCore", "RemoteProtocol", "RemoteTransportSupport", "CurlTransport", "WebDAVRemote", "S3Remote", grdb],
            path: "Fuzz/Sources",
            swiftSettings: sharedSwiftSettings
        )
    )
}

// MARK: Builds of chosen test targets (only for Scripts/sanitizers.sh)

// With ROLLSYNC_TEST_TARGETS="A B …" (test targets of this package; another name is an error), the
// package declares only those test targets and the targets they depend on by name, transitively,
// so `swift build --build-tests` builds no benchmark and no other test target; the products and
// package dependencies nothing kept uses go too. Scripts/sanitizers.sh sets it for its two builds:
// ASan, every test target; TSan, those of the suites it runs. It assumes what this manifest does:
// targets of this package named by string, products of others by `.product(name:package:)`
// with the package named as its URL ends, and no plugins.
if let names = Context.environment["ROLLSYNC_TEST_TARGETS"]?.split(separator: " ").map(String.init), !names.isEmpty {
    let unknown = names.filter { name in !package.targets.contains { $0.name == name && $0.type == .test } }
    if !unknown.isEmpty {
        fatalError("ROLLSYNC_TEST_TARGETS names what is not a test target of this package: \(unknown.joined(separator: ", "))")
    }
    var kept = Set(names)
    var unvisited = names
    while let name = unvisited.popLast() {
        for dependency in package.targets.first(where: { $0.name == name })?.dependencies ?? [] {
            switch dependency {
            case .targetItem(let name, _), .byNameItem(let name, _):
                if kept.insert(name).inserted { unvisited.append(name) }
            default:
                continue
            }
        }
    }
    package.targets.removeAll { !kept.contains($0.name) }
    package.products.removeAll { product in
        let targets = (product as? Product.Library)?.targets ?? (product as? Product.Executable)?.targets ?? []
        return !targets.allSatisfy(kept.contains)
    }
    let usedPackages = Set(package.targets.flatMap(\.dependencies).compactMap { dependency -> String? in
        guard case .productItem(_, let packageName?, _, _) = dependency else { return nil }
        return packageName.lowercased()
    })
    package.dependencies.removeAll { dependency in
        guard case .sourceControl(_, let location, _) = dependency.kind, let last = location.split(separator: "/").last else { return false }
        return !usedPackages.contains(String(last.hasSuffix(".git") ? last.dropLast(4) : last).lowercased())
    }
}
