import Foundation
import RemoteProtocol
import Testing

/// Docs/ExtendingGuide.md shows the example backend and its test verbatim; these tests keep the
/// page and the compiled code identical and run the registration steps it describes.
struct ExtendingGuideTests {
    private static let packageRoot = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    @Test func guideShowsTheCompiledExampleVerbatim() throws {
        let guide = try String(contentsOf: Self.packageRoot.appendingPathComponent("Docs/ExtendingGuide.md"), encoding: .utf8)
        let blocks = guide.matches(of: /<!-- source: ([^ ]+) -->\n```swift\n((?:.|\n)*?)\n```/)
        #expect(blocks.count == 2)
        for block in blocks {
            let file = String(block.output.1)
            let source = try String(contentsOf: Self.packageRoot.appendingPathComponent(file), encoding: .utf8)
            #expect(String(block.output.2) == source.trimmingCharacters(in: .newlines), "the guide's copy of \(file) differs")
        }
    }

    @Test func registeredSchemeOpensTheExampleBackend() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(DictionaryRemoteStore.self)
        let store = try await registry.makeStore(for: #require(URL(string: "dictionary://notes")))
        #expect(store is DictionaryRemoteStore)
        try await store.write(Data("hello".utf8), to: "greeting")
        #expect(try await store.read("greeting") == Data("hello".utf8))
    }
}
