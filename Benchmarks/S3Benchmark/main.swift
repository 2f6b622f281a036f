// S3Benchmark: RollingSync's S3 store against the AWS CLI (`aws s3 cp`) on the same moto server
// (Scripts/benchmark.sh S3Benchmark starts it; ROLLSYNC_TEST_SERVERS=s3 starts only that one).
//
// Prints, for a 256 MiB file, the upload and download throughput of both and their ratio
// (target: RollingSync ≥ 0.8 × the AWS CLI), best of three runs each, and the peak memory.
// Both use multipart transfers with 8 MiB parts. Ratios, never pass/fail.

import BenchmarkSupport
import Foundation
import RemoteProtocol
import S3Remote

let environment = ProcessInfo.processInfo.environment
guard let urlText = environment["ROLLSYNC_TEST_S3_URL"], let endpoint = environment["ROLLSYNC_TEST_S3_ENDPOINT"],
    let bucket = environment["ROLLSYNC_TEST_S3_BUCKET"], let keyID = environment["ROLLSYNC_TEST_S3_ACCESS_KEY_ID"],
    let secret = environment["ROLLSYNC_TEST_S3_SECRET_ACCESS_KEY"], let aws = environment["ROLLSYNC_TEST_AWS_CLI"],
    var components = URLComponents(string: urlText)
else {
    FileHandle.standardError.write(Data("S3Benchmark: run it through Scripts/benchmark.sh (needs the moto test server)\n".utf8))
    exit(2)
}

let (fileSize, runs, prefix) = (256 << 20, 3, "benchmark-\(UUID().uuidString)")
let temporary = try BenchmarkSupport.scratchDirectory(for: "s3")
defer { try? FileManager.default.removeItem(at: temporary) }
let source = temporary.appendingPathComponent("source.bin")
let downloaded = temporary.appendingPathComponent("downloaded.bin")
try BenchmarkSupport.writeRandomFile(source, size: fileSize)

components.path = "/" + prefix
let store = try S3RemoteStore(
    configuration: RemoteStoreConfiguration(
        url: components.url!, settings: ["access-key-id": keyID], secrets: ["secret-access-key": secret]
    ),
    environment: [:]
)

/// Runs `aws s3 …` with the test keys in its environment (never on its command line).
func awsCLI(_ arguments: [String]) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: aws)
    process.arguments = ["--endpoint-url", endpoint, "--region", "us-east-1", "--only-show-errors", "s3"] + arguments
    var childEnvironment = environment
    childEnvironment["AWS_ACCESS_KEY_ID"] = keyID
    childEnvironment["AWS_SECRET_ACCESS_KEY"] = secret
    childEnvironment["AWS_CONFIG_FILE"] = "/dev/null"
    childEnvironment["AWS_SHARED_CREDENTIALS_FILE"] = "/dev/null"
    process.environment = childEnvironment
    try process.run()
    process.waitUntilExit()
    guard process.terminationStatus == 0 else {
        FileHandle.standardError.write(Data("aws failed with status \(process.terminationStatus)\n".utf8))
        exit(1)
    }
}

let cliTarget = "s3://\(bucket)/\(prefix)/cli.bin"
let peakBefore = BenchmarkSupport.peakResidentMiB()
let uploadStore = try await BenchmarkSupport.best(runs: runs) { try await store.upload(contentsOf: source, to: "store.bin") }
let uploadCLI = try await BenchmarkSupport.best(runs: runs) { try awsCLI(["cp", source.path, cliTarget]) }
BenchmarkSupport.report("upload  ", size: fileSize, rollingSync: uploadStore, baseline: uploadCLI, baselineName: "aws s3 cp")
let downloadStore = try await BenchmarkSupport.best(runs: runs) { try await store.download("store.bin", to: downloaded) }
let downloadCLI = try await BenchmarkSupport.best(runs: runs) { try awsCLI(["cp", cliTarget, downloaded.path]) }
BenchmarkSupport.report("download", size: fileSize, rollingSync: downloadStore, baseline: downloadCLI, baselineName: "aws s3 cp")
print("peak memory: \(peakBefore) MiB before the transfers, \(BenchmarkSupport.peakResidentMiB()) MiB after (file: 256 MiB)")
print("requests sent by RollingSync: \(store.requestCount)")
try await store.delete("store.bin")
try await store.delete("cli.bin")
await store.close()
