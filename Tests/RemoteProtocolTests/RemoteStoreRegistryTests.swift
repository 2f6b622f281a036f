import Foundation
import RemoteProtocol
import Testing

/// A minimal store that only remembers the configuration it was opened with.
private struct RecordingStore: RemoteStore, RemoteStoreProvider {
    static let urlSchemes: Set<String> = ["rec", "recs"]
    let configuration: RemoteStoreConfiguration

    static func makeStore(for configuration: RemoteStoreConfiguration) async throws -> any RemoteStore {
        RecordingStore(configuration: configuration)
    }

    var capabilities: RemoteCapabilities {
        RemoteCapabilities(serverSideCopy: false, atomicReplace: false, modificationTimePrecision: nil)
    }
    func exists(_ path: RemotePath) async throws -> RemoteItem? { nil }
    func createDirectory(at path: RemotePath) async throws { throw RemoteStoreError(.unsupported) }
    func upload(contentsOf localFile: URL, to path: RemotePath) async throws { throw RemoteStoreError(.unsupported) }
    func download(_ path: RemotePath, to localFile: URL) async throws { throw RemoteStoreError(.unsupported) }
    func copy(_ source: RemotePath, to destination: RemotePath) async throws { throw RemoteStoreError(.unsupported) }
    func list(_ directory: RemotePath) async throws -> [RemoteItem] { throw RemoteStoreError(.unsupported) }
    func delete(_ path: RemotePath) async throws { throw RemoteStoreError(.unsupported) }
}

struct RemoteStoreRegistryTests {
    @Test func providerIsFoundForEverySchemeItDeclaresCaseInsensitively() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(RecordingStore.self)
        #expect(registry.schemes == ["rec", "recs"])
        let store = try await registry.makeStore(
            for: RemoteStoreConfiguration(url: URL(string: "REC://host/path")!, settings: ["k": "v"])
        )
        let recording = try #require(store as? RecordingStore)
        #expect(recording.configuration.settings == ["k": "v"])
        #expect(try await registry.makeStore(for: URL(string: "recs://h")!) is RecordingStore)
    }

    @Test func unknownSchemeIsUnsupportedAndListsTheKnownOnes() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(RecordingStore.self)
        let error = try await #require(throws: RemoteStoreError.self) {
            try await registry.makeStore(for: URL(string: "s3://bucket/x")!)
        }
        #expect(error.code == .unsupported)
        #expect(error.message.contains("'s3'"))
        #expect(error.message.contains("rec, recs"))
        #expect(error.message.contains("`import S3Remote` and `RemoteStoreRegistry.shared.register(S3RemoteStore.self)`"), "\(error.message)")
    }

    @Test("a scheme of one of RollingSync's backends says how to register it; another scheme gets no such hint", arguments: [
        ("file:///tmp/x", "register(FileRemoteStore.self)"), ("sftp://host/x", "register(SFTPRemoteStore.self)"),
        ("webdavs://host/x", "register(WebDAVRemoteStore.self)"), ("gopher://host/x", nil),
    ])
    func missingBackendSaysHowToRegisterIt(url: String, hint: String?) async throws {
        let error = try await #require(throws: RemoteStoreError.self) {
            try await RemoteStoreRegistry().makeStore(for: URL(string: url)!)
        }
        #expect(error.message.contains("register it once before opening a store") == (hint != nil), "\(error.message)")
        if let hint { #expect(error.message.contains(hint), "\(error.message)") }
    }

    @Test func passwordInTheURLIsRefusedAndNeverPrinted() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(RecordingStore.self)
        let error = try await #require(throws: RemoteStoreError.self) {
            try await registry.makeStore(for: URL(string: "rec://alice:hunter2@host/x")!)
        }
        #expect(error.code == .unsupported)
        #expect(!error.description.contains("hunter2"))
        #expect(error.description.contains("alice"))
        #expect(error.backend == "rec", "named by the registered backend")
        let unregistered = try await #require(throws: RemoteStoreError.self) {
            try await registry.makeStore(for: URL(string: "s3://KEY:SECRET@bucket/x")!)
        }
        #expect(unregistered.backend == "s3", "named by its scheme when no backend is registered")
    }

    /// Errors name their backend (`backend`), so callers never guess it from where an error was made.
    @Test func errorsOfOpeningNameTheirBackend() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(RecordingStore.self)
        #expect(RecordingStore.backendName == "rec", "the alphabetically first scheme by default")
        #expect(RecordingStore(configuration: RemoteStoreConfiguration(url: URL(string: "rec://x")!)).backendName == "rec")
        registry.register(scheme: "failing") { _ in throw RemoteStoreError(.unavailable, message: "down") }
        let failure = try await #require(throws: RemoteStoreError.self) {
            _ = try await registry.makeStore(for: URL(string: "failing://x")!)
        }
        #expect(failure.backend == "failing")
        registry.register(scheme: "named") { _ in throw RemoteStoreError(.unavailable, backend: "its-own") }
        let named = try await #require(throws: RemoteStoreError.self) {
            _ = try await registry.makeStore(for: URL(string: "named://x")!)
        }
        #expect(named.backend == "its-own", "a backend's own name is kept")
    }

    @Test func laterRegistrationReplacesTheEarlierOne() async throws {
        let registry = RemoteStoreRegistry()
        registry.register(RecordingStore.self)
        registry.register(scheme: "rec") { _ in throw RemoteStoreError(.unavailable, message: "replacement") }
        await expectCode(.unavailable) {
            _ = try await registry.makeStore(for: URL(string: "rec://x")!)
        }
    }

    @Test func configurationDescriptionRedactsSecrets() throws {
        let configuration = RemoteStoreConfiguration(
            url: URL(string: "sftp://bob@host/p")!,
            settings: ["identity-file": "/k"],
            secrets: ["passphrase": "s3cret-value"]
        )
        #expect(!configuration.description.contains("s3cret-value"))
        #expect(configuration.description.contains("passphrase=<redacted>"))
        #expect(configuration.description.contains("identity-file=/k"))
        #expect(URL(string: "http://u:pw@h/")!.redactingPassword == "http://u:redacted@h/")
    }
}
