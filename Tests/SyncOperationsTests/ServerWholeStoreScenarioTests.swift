import Testing

/// The whole-store and vacuum scenarios, unchanged, through the real SFTP and WebDAV servers.
@Suite("Whole stores and vacuum through the real servers", .enabled(if: TestServer.isEnabled, TestServer.skipReason))
struct ServerWholeStoreScenarioTests {
    @Test("a new client bootstraps from a whole store plus the tail", arguments: TestServer.allCases)
    func bootstrap(server: TestServer) async throws {
        try await server.withFreshStore(WholeStoreTests.bootstrapEqualsOthersData(through:))
    }

    @Test("a client that slept through a vacuum re-bootstraps and keeps its edits", arguments: TestServer.allCases)
    func sleepingClient(server: TestServer) async throws {
        try await server.withFreshStore(VacuumTests.sleepingClientConverges(through:))
    }

    @Test("a client removed from a document learns it and keeps its edits (S3: directories are implicit)", arguments: [TestServer.s3])
    func removedClient(server: TestServer) async throws {
        try await server.withFreshStore(ClientAndDocumentRemovalTests.removedClientComesBack(through:))
    }

    @Test("a deleted document is recreated and the others re-base on it (S3: directories are implicit)", arguments: [TestServer.s3])
    func deletedDocument(server: TestServer) async throws {
        try await server.withFreshStore(ClientAndDocumentRemovalTests.deletedDocumentFlow(through:))
    }
}
