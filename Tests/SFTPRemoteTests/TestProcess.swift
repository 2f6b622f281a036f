import Foundation

/// Runs a command-line tool for a test fixture and returns its standard output.
enum TestProcess {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    @discardableResult
    static func run(_ executable: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw Failure(description: "\(executable) exited with status \(process.terminationStatus)")
        }
        return String(decoding: data, as: UTF8.self)
    }

    /// A fresh temporary folder for one test's files.
    static func temporaryFolder() throws -> URL {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("sftp-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        return folder
    }

    /// Generates an SSH key pair with `ssh-keygen` in `folder` and returns the private key's path.
    /// The test passphrase is a throwaway fixture value.
    static func generateKey(type: String, in folder: URL, passphrase: String = "") throws -> String {
        let path = folder.appendingPathComponent("key-\(type)-\(UUID().uuidString)").path
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "rollsync-test", "-f", path]
        if type == "rsa" { arguments += ["-b", "2048"] }
        try run("/usr/bin/ssh-keygen", arguments)
        return path
    }
}
