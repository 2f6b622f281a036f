import Foundation
import RemoteProtocol

extension ConformanceContext {
    /// Names that break naive URL encoding, shell quoting or path handling. They avoid only what
    /// `RemotePath` itself rejects (`/`, NUL, `.`, `..`, the temporary prefix), and leading dots,
    /// which ``leadingDotNames`` covers in a check of their own (some servers hide such names).
    static let hostileNames = [
        "with space", "two  spaces", "question?mark", "hash#tag", "100% sure", "%20 looks encoded", "a%2Fb",
        "a&b=c", "a+b", "it's", "say \"hi\"", "ünïcödé", "日本語のファイル",
        "emoji 🎉", "Ωmega ≠ omega", "semi;colon,comma", "tilde~at@", "brackets [1] (2) {3}",
    ]

    /// Names that Unix tools treat as hidden, or as `.` and `..` when parsed carelessly.
    static let leadingDotNames = [".hidden", "..double-dot", "..."]

    /// Three spellings of one word, and two of a directory's name.
    static let caseVariants = ["Case", "case", "CASE"]

    /// A 200-character ASCII name and a 200-character name of 250 UTF-8 bytes.
    static let longNames = [
        String(repeating: "0123456789", count: 20),
        String(repeating: "é", count: 50) + String(repeating: "x", count: 150),
    ]

    func hostileNamesRoundTrip() async throws {
        try await expectFileNamesRoundTrip(Self.hostileNames)
    }

    func longNamesRoundTrip() async throws {
        try await expectFileNamesRoundTrip(Self.longNames)
        try await expectDirectoryNamesRoundTrip(Self.longNames)
    }

    func hostileDirectoryNamesRoundTrip() async throws {
        try await expectDirectoryNamesRoundTrip(Self.hostileNames)
    }

    func leadingDotNamesRoundTrip() async throws {
        try await expectFileNamesRoundTrip(Self.leadingDotNames)
        try await expectDirectoryNamesRoundTrip(Self.leadingDotNames)
    }

    /// Writes each case variant as a file and as a directory holding a file, then deletes one of
    /// each: the others must keep their own content.
    func namesDifferingOnlyInCaseAreDistinct() async throws {
        var contents: [String: Data] = [:]
        for (index, name) in Self.caseVariants.enumerated() {
            contents[name] = Self.randomData(10 + index)
            try await write(contents[name]!, to: path(name))
            try await createDirectory(path("folder-" + name))
            try await write(contents[name]!, to: path("folder-\(name)/inside"))
        }
        var listing = contents.mapValues { (RemoteItem.Kind.file, Optional($0.count)) }
        for name in Self.caseVariants {
            listing["folder-" + name] = (.directory, nil)
        }
        try await expectListing(directory, listing)
        for (name, content) in contents {
            try await expectContent(path(name), content)
            try await expectContent(path("folder-\(name)/inside"), content)
        }
        let removed = Self.caseVariants[1]
        try await delete(path(removed))
        try await delete(path("folder-" + removed))
        try await expectAbsent(path(removed), "it was deleted")
        for (name, content) in contents where name != removed {
            try await expectContent(path(name), content)
            try await expectContent(path("folder-\(name)/inside"), content)
        }
    }

    func unicodeNormalizationFormsNameTheSameFile() async throws {
        let decomposed = "e\u{301}te\u{301} A\u{30A}"
        let composed = "\u{E9}t\u{E9} \u{C5}"
        let nfdFile = try path([decomposed], in: directory)
        let nfcFile = try path([composed], in: directory)
        let content = Self.randomData(100)
        try await write(content, to: nfdFile)
        try await expectContent(nfcFile, content)
        let replacement = Self.randomData(50)
        try await write(replacement, to: nfcFile)
        try await expectContent(nfdFile, replacement)
        let items = try await list(directory)
        guard items.count == 1, let name = items.first?.name, Array(name.unicodeScalars) == Array(composed.unicodeScalars) else {
            throw failure(
                directory, expected: "one file listed under its NFC name \(Array(composed.unicodeScalars))",
                actual: "\(items.map { Array($0.name.unicodeScalars) })"
            )
        }
        let nfdDirectory = try path([decomposed + " folder"], in: directory)
        try await createDirectory(nfdDirectory)
        try await write(content, to: nfdDirectory.appending(try RemotePath(components: [decomposed])))
        try await expectContent(try path([composed + " folder", composed], in: directory), content)
        try await delete(nfdFile)
        try await expectAbsent(nfcFile, "it was deleted under its NFD name")
        try await delete(try path([composed + " folder"], in: directory))
        try await expectListing(directory, [:])
    }

    /// Each name as a file: upload, exists, list, download, copy into another directory, delete.
    private func expectFileNamesRoundTrip(_ names: [String]) async throws {
        let originals = path("originals")
        let copies = path("copies")
        try await createDirectory(originals)
        try await createDirectory(copies)
        var contents: [String: Data] = [:]
        for (index, name) in names.enumerated() {
            let content = Self.randomData(index * 7)
            contents[name] = content
            try await write(content, to: try path([name], in: originals))
        }
        let expected = contents.mapValues { (RemoteItem.Kind.file, Optional($0.count)) }
        try await expectListing(originals, expected)
        for (name, content) in contents {
            let file = try path([name], in: originals)
            let item = try await exists(file)
            guard item?.kind == .file, item?.path == file else {
                throw failure(file, expected: "a file at '\(file)'", actual: Self.describe(item))
            }
            try await expectContent(file, content)
            try await copy(file, to: try path([name], in: copies))
        }
        for name in names {
            try await delete(try path([name], in: originals))
        }
        try await expectListing(originals, [:])
        try await expectListing(copies, expected)
        for (name, content) in contents {
            try await expectContent(try path([name], in: copies), content)
        }
    }

    /// Each name as a directory holding a file of the same name: create, list, download, delete.
    private func expectDirectoryNamesRoundTrip(_ names: [String]) async throws {
        let parent = path("directories")
        try await createDirectory(parent)
        for name in names {
            let folder = try path([name], in: parent)
            try await createDirectory(folder)
            try await write(Data(name.utf8), to: try path([name], in: folder))
        }
        try await expectListing(parent, Dictionary(uniqueKeysWithValues: names.map { ($0, (.directory, nil)) }))
        for name in names {
            let folder = try path([name], in: parent)
            try await expectDirectory(folder)
            try await expectListing(folder, [name: (.file, name.utf8.count)])
            try await expectContent(try path([name], in: folder), Data(name.utf8))
            try await delete(folder)
            try await expectAbsent(folder, "it was deleted")
        }
        try await expectListing(parent, [:])
    }
}
