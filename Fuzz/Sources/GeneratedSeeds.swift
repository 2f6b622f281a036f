import Foundation
import GRDB
import RemoteProtocol
@testable import SyncCore

/// The seed corpora of `Fuzz/Corpus`, written by the production writers where there is one (change
/// sets, their compressed and encrypted forms) and as the documented examples otherwise, so every
/// seed is valid: Scripts/fuzz.sh checks that each target accepts each seed before it fuzzes.
/// Regenerate with `Scripts/fuzz.sh --write-seeds` after a format change.
enum GeneratedSeeds {
    /// Writes every target's seeds to `DIR/<target>/seed-N`, replacing earlier seeds.
    static func write(below directory: URL) throws {
        let changeSets = try changeSetSeeds()
        let seeds: [String: [Data]] = [
            "change-set": changeSets,
            "compressed-change-set": try changeSets.map(compressed),
            "encrypted-file": try (changeSets + [Data("a short plaintext".utf8), Data(count: 70_000)]).map(encrypted),
            "whole-store-snapshot": try ([Data()] + changeSets).map(zstdCompressed),
            "whole-store-manifest": [Data(manifest.utf8)],
            "whole-store-index": [Data(#"{ "appliedSetIDs": ["0001938a6c1f0003-5F0C", "0001938a6c1f0004-5F0C"] }"#.utf8), Data(#"{"appliedSetIDs":[]}"#.utf8)],
            "key-file": [Data(keyFile.utf8)],
            "format-json": formatFiles.map { Data($0.utf8) },
            "webdav-multistatus": multistatus.map { Data($0.utf8) },
            "s3-xml": s3Answers.map { Data($0.utf8) },
            "netrc": netrcFiles.map { Data($0.utf8) },
            "remote-path": ["Documents/abc/SyncChanges", "a/./b/c", "caf\u{E9}/cafe\u{301}", "hello? sausage/.hidden", "x"].map { Data($0.utf8) },
        ]
        let missing = Set(FuzzTarget.all.map(\.name)).subtracting(seeds.keys)
        guard missing.isEmpty else { throw SeedError("no seeds for \(missing.sorted())") }
        for (target, inputs) in seeds.sorted(by: { $0.key < $1.key }) {
            let folder = directory.appendingPathComponent(target, isDirectory: true)
            try? FileManager.default.removeItem(at: folder)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            for (index, input) in inputs.enumerated() {
                try input.write(to: folder.appendingPathComponent("seed-\(index + 1)"))
            }
        }
    }

    struct SeedError: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// Three sets written by `ChangeSetWriter`: every value type and kind of change, an empty set,
    /// and a set with a value longer than the reader's buffer (a record of its own).
    private static func changeSetSeeds() throws -> [Data] {
        let clock = HLCTimestamp(physicalMilliseconds: 1_764_000_000_000, counter: 3)
        let columns: [RowChange.Column] = [
            .init(name: "title", value: "caf\u{E9} \u{1F600}".databaseValue, clock: clock),
            .init(name: "count", value: 42.databaseValue, clock: clock),
            .init(name: "ratio", value: 0.25.databaseValue, clock: clock),
            .init(name: "photo", value: Data([0, 1, 2, 255]).databaseValue, clock: clock),
            .init(name: "note", value: .null, clock: clock),
        ]
        let everything = [
            RowChange(kind: .insert, table: "notes", key: "n1".databaseValue, clock: clock, columns: columns),
            RowChange(kind: .update, table: "notes", key: 7.databaseValue, clock: clock, columns: [columns[1]]),
            RowChange(kind: .delete, table: "folders", key: "f1".databaseValue, clock: clock),
        ]
        let large = [
            RowChange(kind: .insert, table: "media", key: "m1".databaseValue, clock: clock, columns: [
                .init(name: "bytes", value: Data(repeating: 0xAB, count: 66_000).databaseValue, clock: clock),
            ]),
        ]
        return try [everything, [], large].map { changes in
            let file = Scratch.directory.appendingPathComponent("seed-set")
            defer { try? FileManager.default.removeItem(at: file) }
            let writer = try ChangeSetWriter(creatingFileAt: file, header: ChangeSetHeader(setID: "0001938a6c1f0003-5F0C", databaseID: "db-1"))
            for change in changes { try writer.write(change) }
            _ = try writer.finish()
            return try Data(contentsOf: file)
        }
    }

    private static func compressed(_ set: Data) throws -> Data {
        let source = Scratch.directory.appendingPathComponent("seed-plain"), target = Scratch.directory.appendingPathComponent("seed-compressed")
        defer { for file in [source, target] { try? FileManager.default.removeItem(at: file) } }
        try set.write(to: source)
        // A set too small to gain is stored as it is; the seed is then the set itself.
        return try ChangeSetCompression.compress(source, to: target) ? Data(contentsOf: target) : set
    }

    private static func zstdCompressed(_ snapshot: Data) throws -> Data {
        let source = Scratch.directory.appendingPathComponent("seed-plain"), target = Scratch.directory.appendingPathComponent("seed-compressed")
        defer { for file in [source, target] { try? FileManager.default.removeItem(at: file) } }
        try snapshot.write(to: source)
        try WholeStoreCompression.zstd.compress(source, to: target) { _ in }
        return try Data(contentsOf: target)
    }

    private static func encrypted(_ plaintext: Data) throws -> Data {
        let source = Scratch.directory.appendingPathComponent("seed-plain"), target = Scratch.directory.appendingPathComponent("seed-encrypted")
        defer { for file in [source, target] { try? FileManager.default.removeItem(at: file) } }
        try plaintext.write(to: source)
        try EncryptingCodec(dataKey: fuzzingDataKey).encode(source, into: target, for: fuzzingPath)
        return try Data(contentsOf: target)
    }

    private static let manifest = """
        { "version": 3, "clientID": "laptop-7F3A", "unit": "0001938a6c1f0003-5F0C.wholestore",
          "integrityKey": "88499D76-8F3B-4C0E-9B7A-1D2E3F405162", "createdAt": "2026-11-22T03:31:12Z", "compression": "zstd",
          "appliedSetCount": 42,
          "uncompressedStore": { "size": 106496, "sha256": "530e8d2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6" },
          "files": { "store.sqlite.zst": { "size": 20311, "sha256": "9b1c8d2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6" },
                     "appliedSets.json": { "size": 97, "sha256": "65458d2a3b4c5d6e7f8091a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d5e6" } } }
        """

    private static let keyFile = """
        { "format": "RollingSync wrapped data key", "version": 1, "generation": 1,
          "keyID": "3f0c1a2b3c4d5e6f708192a3b4c5d6e7", "scrypt": { "log2N": 17, "r": 8, "p": 1 },
          "salt": "\(Data(repeating: 7, count: 32).base64EncodedString())",
          "sealedKey": "\(Data(repeating: 9, count: 60).base64EncodedString())" }
        """

    private static let formatFiles = [
        #"{ "format": "RollingSync", "version": 2, "encrypted": true, "dataKeyID": "3f0c1a2b3c4d5e6f708192a3b4c5d6e7", "createdBy": "laptop-7F3A", "createdAt": "2026-11-22T03:30:00Z" }"#,
        #"{ "format": "RollingSync", "version": 1, "encrypted": false, "createdBy": "phone", "createdAt": "2025-01-02T03:04:05Z" }"#,
    ]

    /// Answers of the servers the WebDAV store is tested against, for `/dav/dir/`.
    private static let multistatus = [
        """
        <?xml version="1.0" encoding="utf-8"?>
        <D:multistatus xmlns:D="DAV:" xmlns:ns0="DAV:">
        <D:response xmlns:lp1="DAV:"><D:href>/dav/dir/</D:href><D:propstat><D:prop><lp1:resourcetype><D:collection/></lp1:resourcetype>
        <lp1:getlastmodified>Sat, 22 Nov 2026 03:30:00 GMT</lp1:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat>
        <D:propstat><D:prop><lp1:getcontentlength/></D:prop><D:status>HTTP/1.1 404 Not Found</D:status></D:propstat></D:response>
        <D:response xmlns:lp1="DAV:"><D:href>/dav/dir/a%20b&amp;c+d.json</D:href><D:propstat><D:prop><lp1:resourcetype/>
        <lp1:getcontentlength>1234</lp1:getcontentlength><lp1:getetag>"4d2-5f0c"</lp1:getetag>
        <lp1:getlastmodified>Sat, 22 Nov 2026 03:31:00 GMT</lp1:getlastmodified></D:prop><D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
        <D:response><D:href>/dav/dir/sub/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>
        <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response>
        </D:multistatus>
        """,
        """
        <?xml version="1.0" encoding="utf-8" ?><ns0:multistatus xmlns:ns0="DAV:"><ns0:response><ns0:href>http://127.0.0.1:8080/dav/dir/</ns0:href>\
        <ns0:propstat><ns0:prop><ns0:resourcetype><ns0:collection /></ns0:resourcetype></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status>\
        </ns0:propstat></ns0:response><ns0:response><ns0:href>/dav/dir/caf%C3%A9</ns0:href><ns0:propstat><ns0:prop><ns0:resourcetype />\
        <ns0:getcontentlength>7</ns0:getcontentlength></ns0:prop><ns0:status>HTTP/1.1 200 OK</ns0:status></ns0:propstat></ns0:response>\
        </ns0:multistatus>
        """,
    ]

    private static let s3Answers = [
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/"><Name>bucket</Name><Prefix>app/dir/</Prefix><KeyCount>2</KeyCount>
        <MaxKeys>1000</MaxKeys><Delimiter>/</Delimiter><IsTruncated>true</IsTruncated><NextContinuationToken>1ueGcxLPRx1Tr/XYExHnhbYLgveDs2J/wm36Hy4vbOwM=</NextContinuationToken>
        <Contents><Key>app/dir/a&amp;b.json</Key><LastModified>2026-11-22T03:31:12.000Z</LastModified><ETag>"9b1c"</ETag><Size>20311</Size>
        <StorageClass>STANDARD</StorageClass></Contents><CommonPrefixes><Prefix>app/dir/sub/</Prefix></CommonPrefixes></ListBucketResult>
        """,
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <Error><Code>SlowDown</Code><Message>Please reduce your request rate.</Message><RequestId>4442587FB7D0A2F9</RequestId></Error>
        """,
        #"<ListBucketResult><IsTruncated>false</IsTruncated></ListBucketResult>"#,
    ]

    private static let netrcFiles = [
        """
        # a comment
        machine dav.example.com login alice password "s3cret with spaces"
        machine other.example.com
            login bob
            password "quoted \\"inner\\""
        macdef init
        cd /pub

        default login anonymous password guest
        """,
        "machine dav.example.com login alice password x\r\n",
    ]
}
