// SFTP transfer benchmark: RollingSync's SFTPRemoteStore versus the OpenSSH `sftp` command-line
// client, against the same loopback sshd (started by Scripts/benchmark.sh).
//
//   Scripts/benchmark.sh SFTPBenchmark [megabytes]
//
// Prints, for a file of 256 MB (or the given size), the upload and download throughput of both
// and their ratio (target: RollingSync ≥ 0.8 × sftp), then the store requests and time for
// listing a directory of 1,000 files. Each figure is the best of three runs; each run opens a
// fresh connection on both sides, so connection set-up is counted for both.

import Foundation
import RemoteProtocol
import SFTPRemote

let environment = ProcessInfo.processInfo.environment
guard let urlText = environment["ROLLSYNC_TEST_SFTP_URL"], let baseURL = URL(string: urlText),
    let identity = environment["ROLLSYNC_TEST_SFTP_IDENTITY"],
    let knownHosts = environment["ROLLSYNC_TEST_SFTP_KNOWN_HOSTS"],
    let dataFolder = environment["ROLLSYNC_TEST_SFTP_DATA"]
else {
    FileHandle.standardError.write(Data("ROLLSYNC_TEST_SFTP_* is not set: run this through Scripts/benchmark.sh SFTPBenchmark\n".utf8))
    exit(2)
}
let megabytes = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 256
let runs = 3
let host = baseURL.host() ?? "127.0.0.1"
let port = baseURL.port ?? 22
let benchmarkFolder = "sftp-benchmark-\(UUID().uuidString)"

func openStore() async throws -> SFTPRemoteStore {
    let url = URL(string: "sftp://root@\(host):\(port)\(dataFolder)/\(benchmarkFolder)")!
    return try await SFTPRemoteStore(
        configuration: RemoteStoreConfiguration(url: url, settings: ["identity-file": identity, "known-hosts": knownHosts])
    )
}

/// Runs `body` and returns the elapsed seconds.
func seconds(_ body: () async throws -> Void) async rethrows -> Double {
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

/// Runs `sftp -b` with `commands`, failing loudly if it fails.
func runSFTPClient(_ commands: String) throws {
    let batch = FileManager.default.temporaryDirectory.appendingPathComponent("sftp-batch-\(UUID().uuidString)")
    try commands.write(to: batch, atomically: true, encoding: .utf8)
    defer { try? FileManager.default.removeItem(at: batch) }
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sftp")
    process.arguments = [
        "-q", "-b", batch.path, "-i", identity, "-P", String(port), "-o", "UserKnownHostsFile=\(knownHosts)",
        "-o", "BatchMode=yes", "root@\(host)",
    ]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        throw RemoteStoreError(.io, message: "sftp exited with status \(process.terminationStatus)")
    }
}

/// Writes `megabytes` MB of pseudo-random bytes (incompressible) without holding them in memory.
func makeRandomFile(_ url: URL, megabytes: Int) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var generator = SystemRandomNumberGenerator()
    var chunk = [UInt64](repeating: 0, count: 1 << 17)
    for _ in 0..<megabytes {
        for index in chunk.indices { chunk[index] = generator.next() }
        try chunk.withUnsafeBytes { try handle.write(contentsOf: Data($0)) }
    }
}

func throughputLine(_ label: String, bytes: Int, ours: Double, theirs: Double) -> String {
    let mb = Double(bytes) / 1_000_000
    return String(
        format: "%@: RollingSync %.1f MB/s, sftp %.1f MB/s, ratio %.2f (target ≥ 0.80)",
        label, mb / ours, mb / theirs, theirs / ours
    )
}

let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sftp-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: scratch) }
let source = scratch.appendingPathComponent("source.bin")
let downloaded = scratch.appendingPathComponent("downloaded.bin")
try makeRandomFile(source, megabytes: megabytes)
let bytes = megabytes << 20
let remoteFolder = "\(dataFolder)/\(benchmarkFolder)"

print("SFTPBenchmark: \(megabytes) MiB file, sshd at \(host):\(port), best of \(runs) runs")
var ourUpload = Double.infinity
var theirUpload = Double.infinity
var ourDownload = Double.infinity
var theirDownload = Double.infinity
for _ in 0..<runs {
    ourUpload = min(ourUpload, try await seconds {
        let store = try await openStore()
        try await store.upload(contentsOf: source, to: "big.bin")
        await store.close()
    })
    theirUpload = min(theirUpload, try await seconds { try runSFTPClient("put \(source.path) \(remoteFolder)/cli.bin\n") })
    ourDownload = min(ourDownload, try await seconds {
        let store = try await openStore()
        try await store.download("big.bin", to: downloaded)
        await store.close()
    })
    theirDownload = min(theirDownload, try await seconds { try runSFTPClient("get \(remoteFolder)/cli.bin \(downloaded.path)\n") })
}
print(throughputLine("upload  ", bytes: bytes, ours: ourUpload, theirs: theirUpload))
print(throughputLine("download", bytes: bytes, ours: ourDownload, theirs: theirDownload))

// Listing: 1,000 empty files, created directly in the server's folder (it is on this machine).
let listFolder = URL(fileURLWithPath: remoteFolder).appendingPathComponent("list")
try FileManager.default.createDirectory(at: listFolder, withIntermediateDirectories: true)
for index in 0..<1000 {
    _ = FileManager.default.createFile(atPath: listFolder.appendingPathComponent("file-\(index).txt").path, contents: Data())
}
let store = try await openStore()
var listing = Double.infinity
var count = 0
for _ in 0..<runs {
    listing = min(listing, try await seconds { count = try await store.list("list").count })
}
let cliListing = try await seconds { try runSFTPClient("ls -l \(remoteFolder)/list\n") }
print(String(format: "list of %d files: 1 store request, %.1f ms (sftp ls -l, with its connection set-up: %.1f ms)", count, listing * 1000, cliListing * 1000))
try await store.delete(.root / "list")
try await store.delete(.root / "big.bin")
try await store.delete(.root / "cli.bin")
await store.close()
try? FileManager.default.removeItem(atPath: remoteFolder)
