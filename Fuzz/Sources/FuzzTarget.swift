import Foundation

/// One parser under fuzzing: a name (`ROLLSYNC_FUZZ_TARGET`, the corpus folder `Fuzz/Corpus/NAME`)
/// and the production call that reads untrusted bytes.
///
/// ``feed`` returns whether the parser accepted the input. It traps (a finding) when the parser
/// breaks its contract: an error of a type the parser does not document, or an accepted value that
/// breaks an invariant (a remote path holding `..`).
struct FuzzTarget: Sendable {
    /// What a parser made of an input.
    enum Outcome {
        case accepted
        case refused(String)
    }

    /// The target's name.
    let name: String
    /// Feeds one input to the parser.
    let feed: @Sendable (Data) -> Outcome

    /// Every target, in the order Scripts/fuzz.sh runs them.
    static let all: [FuzzTarget] = [
        .changeSet, .compressedChangeSet, .encryptedFile, .wholeStoreSnapshot, .wholeStoreManifest, .wholeStoreIndex, .keyFile, .formatFile,
        .webDAVMultistatus, .s3XML, .netrc, .remotePath,
    ]

    /// Runs `parse`; an error that is one of `documented` is a refusal, any other error a finding.
    static func expecting(_ documented: [any Error.Type], in name: String, _ parse: () throws -> Void) -> Outcome {
        do {
            try parse()
            return .accepted
        } catch {
            guard documented.contains(where: { type(of: error) == $0 }) else {
                fatalError("\(name): the parser threw an undocumented error, \(type(of: error)): \(error)")
            }
            return .refused("\(error)")
        }
    }
}

/// A folder of this process for inputs that must be files (on tmpfs when there is one), emptied
/// after each input.
enum Scratch {
    /// The folder, made at first use.
    static let directory: URL = {
        let base = FileManager.default.fileExists(atPath: "/dev/shm") ? URL(fileURLWithPath: "/dev/shm") : FileManager.default.temporaryDirectory
        let folder = base.appendingPathComponent("rollsync-fuzz-\(getpid())", isDirectory: true)
        try? FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        atexit { try? FileManager.default.removeItem(at: Scratch.directory) }
        return folder
    }()

    /// Writes `input` to a file, runs `body` with it, then removes everything `body` left.
    static func withFile<Result>(holding input: Data, _ body: (URL) -> Result) -> Result {
        let file = directory.appendingPathComponent("input")
        guard FileManager.default.createFile(atPath: file.path, contents: input) else {
            fatalError("cannot write the input to \(file.path)")
        }
        defer {
            for leftover in (try? FileManager.default.contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)) ?? [] {
                try? FileManager.default.removeItem(at: leftover)
            }
        }
        return body(file)
    }
}
