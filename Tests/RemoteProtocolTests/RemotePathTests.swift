import Foundation
import RemoteProtocol
import Testing

struct RemotePathTests {
    @Test func parsesRelativePathsIntoComponents() async throws {
        let text = "Documents/abc/SyncChanges"
        let path = try RemotePath(text)
        #expect(path.components == ["Documents", "abc", "SyncChanges"])
        #expect(path.string == "Documents/abc/SyncChanges")
        #expect(path.name == "SyncChanges")
        #expect(path.parent == "Documents/abc")
    }

    @Test func emptyStringIsTheRoot() async throws {
        let empty = ""
        let root = try RemotePath(empty)
        #expect(root == .root)
        #expect(root.isRoot)
        #expect(root.parent == nil)
        #expect(root.description == "/")
        #expect(root.name == "")
    }

    @Test(arguments: ["..", "a/../b", "a/..", "../a"])
    func dotDotIsRejected(_ string: String) async {
        await expectCode(.invalidPath) { _ = try RemotePath(string) }
    }

    @Test(arguments: ["/a", "/", "//a"])
    func absolutePathsAreRejected(_ string: String) async {
        await expectCode(.invalidPath) { _ = try RemotePath(string) }
    }

    @Test(arguments: ["a//b", "a/", "a/b//"])
    func emptyComponentsAreRejected(_ string: String) async {
        await expectCode(.invalidPath) { _ = try RemotePath(string) }
    }

    @Test func nulIsRejectedAndTheMessageStaysPrintable() async throws {
        let withNUL = "a\0b"
        let error = try #require(throws: RemoteStoreError.self) { try RemotePath(withNUL) }
        #expect(error.code == .invalidPath)
        #expect(!error.message.contains("\0"))
        #expect(error.message.contains("NUL"))
    }

    @Test func slashInsideAComponentIsRejected() async {
        await expectCode(.invalidPath) { _ = try RemotePath(components: ["a/b"]) }
    }

    /// A combining mark after `/` or NUL makes one Swift `Character` of both, so a check that
    /// compares characters misses them (found by fuzzing `RemotePath`): `"../\u{301}x"` was one
    /// component holding the bytes `../`, which a file backend's `openat` walks up. Paths are
    /// split and checked on UTF-8 bytes.
    @Test(arguments: [
        "../\u{301}x", "a/\u{301}", "/\u{301}etc/passwd", "a\0\u{301}b", "./\u{301}", "..\u{301}/../x",
    ])
    func separatorsAndNULAreFoundWhateverFollowsThem(_ string: String) async throws {
        do {
            let path = try RemotePath(string)
            for component in path.components {
                #expect(!component.utf8.contains(UInt8(ascii: "/")) && !component.utf8.contains(0), "\(path.components)")
                #expect(component != ".." && component != ".")
            }
            #expect(!string.utf8.starts(with: "/".utf8), "an absolute path was accepted: \(path.components)")
        } catch let error as RemoteStoreError {
            #expect(error.code == .invalidPath)
        }
        await expectCode(.invalidPath) { _ = try RemotePath(components: [string]) }
    }

    @Test func singleDotsAreDropped() async throws {
        let dotted = "./a/./b/.", dot = "."
        #expect(try RemotePath(dotted) == "a/b")
        #expect(try RemotePath(dot) == .root)
    }

    @Test func componentsAreNormalisedToNFC() async throws {
        let decomposed: RemotePath = "cafe\u{301}"
        let composed: RemotePath = "caf\u{E9}"
        #expect(decomposed == composed)
        #expect(decomposed.string.unicodeScalars.count == 4)
    }

    @Test func overlongComponentsAreRejectedButTheLimitItselfIsAllowed() async throws {
        let atLimit = String(repeating: "x", count: RemotePath.maximumComponentByteCount)
        #expect(try RemotePath(atLimit).name == atLimit)
        await expectCode(.invalidPath) { _ = try RemotePath(atLimit + "x") }
        // Multi-byte characters count in UTF-8 bytes: 128 × 2 bytes = 256.
        await expectCode(.invalidPath) { _ = try RemotePath(String(repeating: "é", count: 128)) }
    }

    @Test func theTemporaryPrefixIsReserved() async {
        await expectCode(.invalidPath) {
            _ = try RemotePath("dir/\(RemotePath.reservedTemporaryPrefix)x")
        }
    }

    @Test(arguments: [
        "hello? sausage", "êé", "Hello, 世界", "\" ' @ < > & ? + ≠", ".hidden", "a#b%c&d+e", " leading space",
        "trailing space ", "...", "back\\slash",
    ])
    func hostileButValidNamesAreAccepted(_ name: String) async throws {
        let path = try RemotePath("dir/\(name)")
        #expect(path.name == name.precomposedStringWithCanonicalMapping)
    }

    @Test func ancestorsListEveryDirectoryAbove() async throws {
        let path: RemotePath = "a/b/c/d"
        #expect(path.ancestors == ["a", "a/b", "a/b/c"])
        #expect(RemotePath.root.ancestors.isEmpty)
        #expect(RemotePath("a").ancestors.isEmpty)
    }

    @Test func appendingAndDescendantChecks() async throws {
        let base: RemotePath = "app/Documents"
        let child = try base.appending("doc/SyncChanges")
        #expect(child == "app/Documents/doc/SyncChanges")
        #expect(base / "x" == "app/Documents/x")
        #expect(child.isDescendant(ofOrEqualTo: base))
        #expect(base.isDescendant(ofOrEqualTo: base))
        #expect(!base.isDescendant(ofOrEqualTo: child))
        #expect(!RemotePath("app/Docs").isDescendant(ofOrEqualTo: base))
        await expectCode(.invalidPath) { _ = try base.appending("../x") }
    }

    @Test func ordersComponentWise() async throws {
        #expect(RemotePath("a/b") < RemotePath("a/b/c"))
        #expect(RemotePath("a/z") < RemotePath("b"))
    }

    @Test func codableRoundTripsAsAString() async throws {
        let path: RemotePath = "a/b c/é"
        let data = try JSONEncoder().encode([path])
        #expect(String(decoding: data, as: UTF8.self) == #"["a\/b c\/é"]"#)
        #expect(try JSONDecoder().decode([RemotePath].self, from: data) == [path])
        #expect(throws: RemoteStoreError.self) { try JSONDecoder().decode([RemotePath].self, from: Data(#"["../x"]"#.utf8)) }
    }
}
