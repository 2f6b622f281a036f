import Foundation

extension TestProcess {
    /// The SHA-256 fingerprints `ssh-keygen -l` reads from a known_hosts file.
    static func fingerprints(ofKnownHosts path: String) async -> [String] {
        let output = (try? await run("/usr/bin/ssh-keygen", ["-l", "-E", "sha256", "-f", path])) ?? ""
        return output.split(separator: "\n").compactMap { $0.split(separator: " ").dropFirst().first.map(String.init) }
    }
}
