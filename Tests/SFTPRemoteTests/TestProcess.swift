import Foundation

/// Runs a command-line tool for a test fixture and returns its standard output.
enum TestProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Runs a short-lived tool with little output, suspending (not blocking a thread) until it exits.
    @discardableResult
    static func run(_ executable: String, _ arguments: [String], environment: [String: String]? = nil) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                let data = output.fileHandleForReading.readDataToEndOfFile()
                if finished.terminationStatus == 0 {
                    continuation.resume(returning: String(decoding: data, as: UTF8.self))
                } else {
                    continuation.resume(throwing: Failure(description: "\(executable) exited with status \(finished.terminationStatus)"))
                }
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }

    /// A fresh temporary folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sftp-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Generates an SSH key pair with `ssh-keygen` in `folder` and returns the private key's path.
    /// The test passphrase is a throwaway fixture value.
    static func generateKey(type: String, in folder: URL, passphrase: String = "") async throws -> String {
        let path = folder.appendingPathComponent("key-\(type)-\(UUID().uuidString)").path
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "rollsync-test", "-f", path]
        if type == "rsa" { arguments += ["-b", "2048"] }
        try await run("/usr/bin/ssh-keygen", arguments)
        return path
    }
}
