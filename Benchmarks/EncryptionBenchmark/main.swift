// EncryptionBenchmark: prints what encryption costs, beside the unencrypted upload of the same file.
//
//   swift run -c release EncryptionBenchmark [size-in-MiB]     (or Scripts/benchmark.sh EncryptionBenchmark)
//
// 1. One scrypt derivation with ScryptParameters.recommended (the cost of every password entry;
//    meant to take 0.2–1 s).
// 2. Encrypting and decrypting a whole-store-sized file (256 MiB of random bytes by default)
//    through the encrypting codec, in MB/s, with the decrypted copy compared to the original.
// 3. Uploading the same file to a FileRemoteStore unencrypted, and encrypted (encode + upload),
//    with the ratio between them: the visible cost of encryption for a whole-store upload.
//
// Each timing is the best of three rounds, as wall-clock time and as process CPU time (the machine
// may be shared; CPU time is what other processes do not inflate).

import FileRemote
import Foundation
import RemoteProtocol
import SyncCore

let mebibytes = CommandLine.arguments.dropFirst().first.flatMap(Int.init) ?? 256
let byteCount = mebibytes << 20
let rounds = 3

let directory = FileManager.default.temporaryDirectory.appendingPathComponent("encryption-benchmark-\(UUID().uuidString)")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

/// Wall-clock and process CPU time of one run, in seconds. The machine may be shared, so CPU time
/// (which other processes do not inflate) is printed beside wall time.
struct Timing {
    var wall: Double
    var cpu: Double

    var text: String { "\(format(wall)) s (CPU \(format(cpu)) s)" }
}

func processCPUSeconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
    return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
}

func measure(_ body: () async throws -> Void) async rethrows -> Timing {
    let start = DispatchTime.now().uptimeNanoseconds
    let cpuStart = processCPUSeconds()
    try await body()
    return Timing(wall: Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9, cpu: processCPUSeconds() - cpuStart)
}

/// The best wall time and the best CPU time of `rounds` runs.
func best(_ body: () async throws -> Void) async rethrows -> Timing {
    var timings: [Timing] = []
    for _ in 0..<rounds {
        timings.append(try await measure(body))
    }
    return Timing(wall: timings.map(\.wall).min() ?? 0, cpu: timings.map(\.cpu).min() ?? 0)
}

func format(_ value: Double, _ digits: Int = 3) -> String { String(format: "%.\(digits)f", value) }
func throughput(_ timing: Timing) -> String {
    "\(timing.text) = \(format(Double(byteCount) / 1e6 / timing.wall, 0)) MB/s (CPU-based \(format(Double(byteCount) / 1e6 / timing.cpu, 0)) MB/s)"
}

/// Writes `byteCount` random bytes (1 MiB of random data, varied per block, so nothing compresses).
func writeRandomFile(_ url: URL) throws {
    var generator = SystemRandomNumberGenerator()
    var block = (0..<(1 << 20)).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
    guard FileManager.default.createFile(atPath: url.path, contents: nil) else { throw CocoaError(.fileWriteUnknown) }
    let handle = try FileHandle(forWritingTo: url)
    defer { try? handle.close() }
    for index in 0..<mebibytes {
        withUnsafeBytes(of: UInt64(index)) { block.replaceSubrange(0..<8, with: $0) }
        try handle.write(contentsOf: block)
    }
}

/// True if both files hold the same bytes (compared in 1 MiB pieces).
func sameContent(_ first: URL, _ second: URL) throws -> Bool {
    let a = try FileHandle(forReadingFrom: first)
    let b = try FileHandle(forReadingFrom: second)
    defer { try? a.close(); try? b.close() }
    while true {
        let left = try a.read(upToCount: 1 << 20) ?? Data()
        let right = try b.read(upToCount: 1 << 20) ?? Data()
        guard left == right else { return false }
        if left.isEmpty { return true }
    }
}

let plain = directory.appendingPathComponent("store.sqlite")
let encrypted = directory.appendingPathComponent("store.encrypted")
let decrypted = directory.appendingPathComponent("store.decrypted")
try writeRandomFile(plain)

struct BenchmarkFailure: Error {
    var message: String
}

guard let password = EncryptionPassword("correct horse battery staple") else { throw BenchmarkFailure(message: "empty password") }
let derivation = try await best {
    _ = try await ScryptParameters.recommended.deriveKey(from: password, salt: Array(repeating: 7, count: 32))
}

let applicationID = try SyncIdentifier("com.example.benchmark")
let remoteRoot = directory.appendingPathComponent("remote")
try FileManager.default.createDirectory(at: remoteRoot, withIntermediateDirectories: true)
let store = try FileRemoteStore(root: remoteRoot)
let provider = EncryptingCodecProvider(
    keyStore: DataKeyFileStore(directory: directory.appendingPathComponent("keys")),
    decisions: .password(password)
)
let (codec, _, _) = try await provider.codecForNewApplication(layout: ApplicationLayout(applicationID: applicationID), store: store)
let wholeStorePath: RemotePath = "com.example.benchmark/Documents/notebook/WholeStore/benchmark/store.sqlite"
try await store.createDirectory(at: wholeStorePath.parent ?? wholeStorePath)

let encryption = try await best {
    try? FileManager.default.removeItem(at: encrypted)
    try codec.encode(plain, into: encrypted, for: wholeStorePath)
}
let decryption = try await best {
    try? FileManager.default.removeItem(at: decrypted)
    try codec.decode(encrypted, into: decrypted, for: wholeStorePath)
}
guard try sameContent(plain, decrypted) else { throw BenchmarkFailure(message: "the decrypted copy differs from the original") }
let encryptedSize = (try FileManager.default.attributesOfItem(atPath: encrypted.path)[.size] as? Int) ?? 0

let plainUpload = try await best {
    try await store.upload(contentsOf: plain, to: wholeStorePath)
}
let encryptedUpload = try await best {
    try? FileManager.default.removeItem(at: encrypted)
    try codec.encode(plain, into: encrypted, for: wholeStorePath)
    try await store.upload(contentsOf: encrypted, to: wholeStorePath)
}

print("EncryptionBenchmark: \(mebibytes) MiB file, best of \(rounds)")
print("  key derivation (\(ScryptParameters.recommended)): \(derivation.text)")
print("  encrypt: \(throughput(encryption))")
print("  decrypt + verify: \(throughput(decryption))")
print("  size overhead: \(encryptedSize - byteCount) bytes (\(format(Double(encryptedSize - byteCount) / Double(byteCount) * 100, 4)) %)")
print("  upload to FileRemoteStore, unencrypted: \(throughput(plainUpload))")
print("  upload to FileRemoteStore, encrypted (encode + upload): \(throughput(encryptedUpload))")
print("  ratio encrypted / unencrypted upload: wall \(format(encryptedUpload.wall / plainUpload.wall, 2))×, CPU \(format(encryptedUpload.cpu / plainUpload.cpu, 2))×")
