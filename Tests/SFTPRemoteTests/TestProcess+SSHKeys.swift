import Foundation
import TestSupport

extension TestProcess {
    /// Generates an SSH key pair with `ssh-keygen` in `folder` and returns the private key's path.
    /// The test passphrase is a throwaway fixture value.
    static func generateKey(type: String, in folder: URL, passphrase: String = "") async throws -> String {
        let path = folder.appendingPathComponent("key-\(type)-\(UUID().uuidString)").path
        var arguments = ["-q", "-t", type, "-N", passphrase, "-C", "rollsync-test", "-f", path]
        if type == "rsa" { arguments += ["-b", "2048"] }
        try await runChecked("/usr/bin/ssh-keygen", arguments)
        return path
    }

    /// The SHA-256 fingerprints `ssh-keygen -l` reads from a known_hosts file.
    static func fingerprints(ofKnownHosts path: String) async -> [String] {
        let output = (try? await runChecked("/usr/bin/ssh-keygen", ["-l", "-E", "sha256", "-f", path])) ?? ""
        return output.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
    }
}
