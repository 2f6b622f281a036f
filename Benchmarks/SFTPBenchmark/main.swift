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

/// Wall-clock seconds and CPU seconds (user + system) of one measured step.
struct Measurement {
    var wall = Double.infinity
    var cpu = Double.infinity

    /// Keeps the faster of two runs.
    mutating func keepBest(_ other: Measurement) {
        if other.wall < wall { self = other }
    }
}

/// CPU seconds used so far by this process (`RUSAGE_SELF`) or by its finished children.
func cpuSeconds(_ who: __rusage_who) -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(who.rawValue), &usage)
    let user = Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    let system = Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    return user + system
}

/// Runs `body`, timing it and counting the CPU of this process, or of the child processes it runs.
func measure(children: Bool = false, _ body: () async throws -> Void) async rethrows -> Measurement {
    let who = children ? RUSAGE_CHILDREN : RUSAGE_SELF
    let startCPU = cpuSeconds(who)
    let start = ContinuousClock.now
    try await body()
    let elapsed = ContinuousClock.now - start
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Measurement(wall: wall, cpu: cpuSeconds(who) - startCPU)
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

/// Writes `megabytes` MiB of pseudo-random bytes (a xorshift sequence: incompressible, and cheap
/// to make) without holding them in memory.
func makeRandomFile(_ url: URL, megabytes: Int) throws {
    _ = FileManager.default.createFile(atPath: url.path, contents: nil)
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    var state = UInt64.random(in: 1...UInt64.max)
    var chunk = [UInt64](repeating: 0, count: 1 << 17)
    for _ in 0..<megabytes {
        for index in chunk.indices {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            chunk[index] = state
        }
        try chunk.withUnsafeBytes { try handle.write(contentsOf: Data($0)) }
    }
}

func throughputLine(_ label: String, bytes: Int, ours: Measurement, theirs: Measurement) -> String {
    let mb = Double(bytes) / 1_000_000
    return String(
        format: "%@: RollingSync %.1f MB/s, sftp %.1f MB/s, ratio %.2f (target ≥ 0.80); client CPU %.2f s vs %.2f s",
        label, mb / ours.wall, mb / theirs.wall, theirs.wall / ours.wall, ours.cpu, theirs.cpu
    )
}

/// Measures everything and prints the report.
func runBenchmark() async throws {
    let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("sftp-benchmark-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let source = scratch.appendingPathComponent("source.bin")
    let downloaded = scratch.appendingPathComponent("downloaded.bin")
    try makeRandomFile(source, megabytes: megabytes)
    let bytes = megabytes << 20
    let remoteFolder = "\(dataFolder)/\(benchmarkFolder)"

    print("SFTPBenchmark: \(megabytes) MiB file, sshd at \(host):\(port), best of \(runs) runs")
    var ourUpload = Measurement()
    var theirUpload = Measurement()
    var ourDownload = Measurement()
    var theirDownload = Measurement()
    for _ in 0..<runs {
        ourUpload.keepBest(try await measure {
            let store = try await openStore()
            try await store.upload(contentsOf: source, to: "big.bin")
            await store.close()
        })
        theirUpload.keepBest(try await measure(children: true) { try runSFTPClient("put \(source.path) \(remoteFolder)/cli.bin\n") })
        ourDownload.keepBest(try await measure {
            let store = try await openStore()
            try await store.download("big.bin", to: downloaded)
            await store.close()
        })
        theirDownload.keepBest(try await measure(children: true) { try runSFTPClient("get \(remoteFolder)/cli.bin \(downloaded.path)\n") })
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
    var listing = Measurement()
    var count = 0
    for _ in 0..<runs {
        listing.keepBest(try await measure { count = try await store.list("list").count })
    }
    let cliListing = try await measure(children: true) { try runSFTPClient("ls -l \(remoteFolder)/list\n") }
    print(String(
        format: "list of %d files: 1 store request, %.1f ms (sftp ls -l, with its connection set-up: %.1f ms)",
        count, listing.wall * 1000, cliListing.wall * 1000
    ))
    try await store.delete(.root / "list")
    try await store.delete(.root / "big.bin")
    try await store.delete(.root / "cli.bin")
    await store.close()
    try? FileManager.default.removeItem(atPath: remoteFolder)
}

do {
    try await runBenchmark()
} catch {
    FileHandle.standardError.write(Data("SFTPBenchmark failed: \(error)\n".utf8))
    exit(1)
}
