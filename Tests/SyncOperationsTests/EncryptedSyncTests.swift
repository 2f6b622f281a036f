import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

@Suite("Synchronising encrypted applications")
struct EncryptedSyncTests {
    static let password = "correct horse battery staple"
    static let marker = "MARKER-7f3a-plaintext-must-not-leak"

    /// Three clients of one encrypted application on `remote`.
    static func threeClients(on remote: TestRemote) throws -> [TestClient] {
        try ["anna", "ben", "carl"].map { name in
            try TestClient(name, remote: remote.store, codecProvider: EncryptionSetup(password: password).provider)
        }
    }

    @Test("three clients converge to identical data, and no remote file holds the marker, the password or an unencrypted record", arguments: Backend.allCases)
    func threeClientsConverge(backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let clients = try Self.threeClients(on: remote)
        let (anna, ben, carl) = (clients[0], clients[1], clients[2])
        try anna.execute("INSERT INTO folder VALUES ('f1', 'Inbox \(Self.marker)')")
        try anna.execute("INSERT INTO note VALUES ('n1', 'f1', 'Shopping', 'milk \(Self.marker)', 1)")
        try await anna.sync()
        try ben.execute("INSERT INTO tag VALUES ('t1', 'urgent \(Self.marker)')")
        try await ben.sync()
        try carl.execute("INSERT INTO note VALUES ('n2', NULL, 'Carl''s \(Self.marker)', 'body', 2)")
        try await carl.sync()
        try await anna.sync()
        try anna.execute("UPDATE note SET body = 'eggs \(Self.marker)' WHERE id = 'n1'")
        try ben.execute("DELETE FROM tag WHERE id = 't1'")
        try carl.execute("INSERT INTO note_tag VALUES ('nt1', 'n2', 't1')")
        for _ in 0..<2 {
            for client in clients {
                try await client.sync()
            }
        }
        #expect(try anna.dump() == ben.dump())
        #expect(try ben.dump() == carl.dump())
        #expect(try anna.count("note") == 2)

        let readable = try await Self.assertEverythingEncrypted(remote)
        #expect(readable.contains("format.json"))
        if let folder = remote.folder {
            try Self.assertNoMarker(inFolder: folder.url)
        }
    }

    /// Checks that every file but format.json, ReadMe.txt and the key files starts with the
    /// encrypted-file magic, and that no file holds the marker or the password; returns the names
    /// of the readable files.
    static func assertEverythingEncrypted(_ remote: TestRemote) async throws -> [String] {
        var readable: [String] = []
        let files = try await remote.allFiles()
        #expect(files.contains { $0.string.contains("/SyncChanges/") })
        #expect(files.contains { $0.string.contains("/RecentSyncs/") })
        #expect(files.contains { $0.string.hasSuffix("/documentInfo.json") })
        #expect(files.contains { $0.string.hasSuffix(".integritykey") })
        for path in files {
            let content = try await remote.store.read(path)
            #expect(!content.contains(text: marker), "\(path) holds the marker in clear")
            #expect(!content.contains(text: password), "\(path) holds the password")
            if path.name == "format.json" || path.name == "ReadMe.txt" || path.string.contains("/Encryption/") {
                readable.append(path.name)
            } else {
                #expect(content.prefix(4) == Data("RSEF".utf8), "\(path) is not encrypted")
            }
        }
        return readable
    }

    /// Scans every file in the folder (whatever the store lists) for the marker.
    static func assertNoMarker(inFolder folder: URL) throws {
        let enumerator = try #require(FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]))
        var scanned = 0
        for case let url as URL in enumerator where (try url.resourceValues(forKeys: [.isRegularFileKey])).isRegularFile == true {
            let content = try Data(contentsOf: url)
            #expect(!content.contains(text: marker), "\(url.path) holds the marker in clear")
            #expect(!content.contains(text: password), "\(url.path) holds the password")
            scanned += 1
        }
        #expect(scanned > 10)
    }

    /// Ways a change-set file can be damaged on the server; each returns how to undo it.
    enum Tampering: String, CaseIterable, CustomStringConvertible {
        case bitFlip
        case truncation
        case swap

        var description: String { rawValue }

        /// Damages `first` (and, for a swap, `second`); returns the original contents to restore.
        func apply(to first: RemotePath, and second: RemotePath, in store: any RemoteStore) async throws -> [(RemotePath, Data)] {
            let original = [(first, try await store.read(first)), (second, try await store.read(second))]
            switch self {
            case .bitFlip:
                var bytes = original[0].1
                bytes[bytes.count / 2] ^= 0x04
                try await store.write(bytes, to: first)
            case .truncation:
                try await store.write(original[0].1.dropLast(7), to: first)
            case .swap:
                try await store.write(original[1].1, to: first)
                try await store.write(original[0].1, to: second)
            }
            return original
        }
    }

    @Test("a tampered, truncated or swapped set is never applied, names its file and client, holds back that client only", arguments: Tampering.allCases, Backend.allCases)
    func tamperedSetsAreRefused(tampering: Tampering, backend: Backend) async throws {
        let remote = try TestRemote(backend)
        let clients = try Self.threeClients(on: remote)
        let (anna, ben, carl) = (clients[0], clients[1], clients[2])
        try await anna.sync()
        try await ben.sync()
        try anna.execute("INSERT INTO tag VALUES ('a1', 'first from anna')")
        try await anna.sync()
        try anna.execute("INSERT INTO tag VALUES ('a2', 'second from anna')")
        try await anna.sync()
        try carl.execute("INSERT INTO tag VALUES ('c1', 'from carl')")
        try await carl.sync()
        let directory = Paths.changeSets(of: "anna")
        let annaSets = try await remote.names(in: directory)
        #expect(annaSets.count == 2)
        let first = try RemotePath("\(directory)/\(annaSets[0])")
        let second = try RemotePath("\(directory)/\(annaSets[1])")
        let originals = try await tampering.apply(to: first, and: second, in: remote.store)

        let report = try await ben.sync()
        let warnings = report.warnings.compactMap { warning -> (String, String, String)? in
            if case .unreadableChangeSet(let name, let client, let reason) = warning { (name, client.rawValue, reason) } else { nil }
        }
        #expect(warnings.count == 1)
        #expect(warnings.first?.0 == annaSets[0])
        #expect(warnings.first?.1 == "anna")
        #expect(warnings.first?.2.contains("cannot be used") == true)
        #expect(warnings.first?.2.contains(Self.password) == false)
        #expect(try ben.value("SELECT label FROM tag WHERE id = 'c1'") == "from carl".databaseValue, "other clients still apply")
        #expect(try ben.value("SELECT count(*) FROM tag WHERE id LIKE 'a%'") == 0.databaseValue, "nothing of anna's is applied")

        for (path, data) in originals {
            try await remote.store.write(data, to: path)
        }
        let next = try await ben.sync()
        #expect(next.warnings.isEmpty)
        try await anna.sync()
        try await carl.sync()
        #expect(try ben.dump() == anna.dump())
        #expect(try ben.dump() == carl.dump())
        #expect(try ben.value("SELECT label FROM tag WHERE id = 'a2'") == "second from anna".databaseValue)
    }
}
