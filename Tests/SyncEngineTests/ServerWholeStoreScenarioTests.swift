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
}
