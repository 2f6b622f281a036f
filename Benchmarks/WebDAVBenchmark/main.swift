// WebDAVBenchmark: RollingSync's WebDAV store against the `curl` command-line tool on the same
// Apache mod_dav server (Scripts/benchmark.sh WebDAVBenchmark starts it).
//
// Prints, for a 256 MiB file, the upload and download throughput of both and their ratio
// (target: RollingSync ≥ 0.8 × curl), best of three runs each; then the requests and time of
// listing a collection of 1,000 files. Ratios, never pass/fail.

import BenchmarkSupport
import Foundation
import RemoteProtocol
import WebDAVRemote

let environment = ProcessInfo.processInfo.environment
guard let rootText = environment["ROLLSYNC_TEST_WEBDAV_APACHE_URL"], let root = URL(string: rootText),
    let user = environment["ROLLSYNC_TEST_WEBDAV_USER"], let password = environment["ROLLSYNC_TEST_WEBDAV_PASSWORD"]
else {
    FileHandle.standardError.write(Data("WebDAVBenchmark: run it through Scripts/benchmark.sh (needs the Apache test server)\n".utf8))
    exit(2)
}

let fileSize = 256 << 20
let runs = 3
let collection = "benchmark-\(UUID().uuidString)"
let temporary = try BenchmarkSupport.scratchDirectory(for: "webdav")
defer { try? FileManager.default.removeItem(at: temporary) }

/// The 256 MiB source file, random bytes written 1 MiB at a time.
let source = temporary.appendingPathComponent("source.bin")
try BenchmarkSupport.writeRandomFile(source, size: fileSize)

/// curl reads the credentials from a private netrc file, never from its command line.
let netrc = temporary.appendingPathComponent("netrc")
try Data("machine \(root.host ?? "127.0.0.1") login \(user) password \(password)\n".utf8).write(to: netrc)
chmod(netrc.path, 0o600)

let configuration = RemoteStoreConfiguration(url: root, settings: ["user": user], secrets: ["password": password])
let setup = try WebDAVRemoteStore(configuration: configuration)
try await setup.createDirectory(at: RemotePath(collection))
await setup.close()
let storeURL = root.appendingPathComponent(collection, isDirectory: true)
let store = try WebDAVRemoteStore(
    configuration: RemoteStoreConfiguration(url: storeURL, settings: ["user": user], secrets: ["password": password])
)
let httpBase = storeURL.absoluteString.replacingOccurrences(of: "webdav://", with: "http://")

/// Runs curl with `arguments` and waits for it; exits the benchmark if curl fails.
func curl(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
    process.arguments = ["--silent", "--show-error", "--fail", "--netrc-file", netrc.path] + arguments
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(Data("curl failed with status \(process.terminationStatus)\n".utf8))
        exit(1)
    }
}

/// The fastest of `runs` timings of `body`, in seconds.
func best(_ body: () async throws -> Void) async throws -> Double {
    try await BenchmarkSupport.best(runs: runs, body)
}

func report(_ name: String, rollingSync: Double, curl: Double) {
    BenchmarkSupport.report(name, size: fileSize, rollingSync: rollingSync, baseline: curl, baselineName: "curl")
}

func peakResidentMiB() -> Int { BenchmarkSupport.peakResidentMiB() }

let downloaded = temporary.appendingPathComponent("downloaded.bin")
let peakBeforeTransfers = peakResidentMiB()
let uploadStore = try await best { try await store.upload(contentsOf: source, to: "store.bin") }
let uploadCurl = try await best { try curl(["-T", source.path, "-o", "/dev/null", httpBase + "curl.bin"]) }
report("upload  ", rollingSync: uploadStore, curl: uploadCurl)
let downloadStore = try await best { try await store.download("store.bin", to: downloaded) }
let downloadCurl = try await best { try curl(["-o", downloaded.path, httpBase + "curl.bin"]) }
report("download", rollingSync: downloadStore, curl: downloadCurl)
print("peak memory: \(peakBeforeTransfers) MiB before the transfers, \(peakResidentMiB()) MiB after (file: 256 MiB)")
try await store.delete("store.bin")
try await store.delete("curl.bin")

// Listing: 1,000 small files in one collection.
try await store.createDirectory(at: "many")
try await withThrowingTaskGroup(of: Void.self) { group in
    for worker in 0..<8 {
        group.addTask {
            for index in stride(from: worker, to: 1000, by: 8) {
                try await store.write(Data("file \(index)".utf8), to: RemotePath("many/file-\(index).txt"))
            }
        }
    }
    try await group.waitForAll()
}
let requestsBefore = store.requestCount
var listed = 0
let listTime = try await best { listed = try await store.list("many").count }
let listRequests = (store.requestCount - requestsBefore) / runs
let curlListTime = try await best {
    try curl(["-X", "PROPFIND", "-H", "Depth: 1", "-o", "/dev/null", httpBase + "many/"])
}
print(
    String(
        format: "list of %d files: %d request(s), %.1f ms (curl PROPFIND Depth 1 alone: %.1f ms, ratio %.2f)",
        listed, listRequests, listTime * 1000, curlListTime * 1000, curlListTime / listTime
    )
)
try await store.delete(.root / "many")
await store.close()
let cleanup = try WebDAVRemoteStore(configuration: configuration)
try await cleanup.delete(RemotePath(collection))
await cleanup.close()
