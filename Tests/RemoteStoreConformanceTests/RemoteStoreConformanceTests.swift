import Foundation
import InMemoryRemote
import RemoteProtocol
import RemoteStoreConformance
import Synchronization
import Testing

/// Counts the stores a suite opens and closes; every store shares one in-memory store, so a test
/// can look at what a run left behind.
private final class StoreLedger: Sendable {
    let shared = InMemoryRemoteStore()
    private let counts = Mutex((opened: 0, closed: 0))

    var opened: Int { counts.withLock { $0.opened } }
    var closed: Int { counts.withLock { $0.closed } }

    func open() -> any RemoteStore {
        counts.withLock { $0.opened += 1 }
        return ClosingRecorder(base: shared, ledger: self)
    }

    func recordClose() { counts.withLock { $0.closed += 1 } }
}

/// Forwards to the shared store and reports `close()` to the ledger.
private struct ClosingRecorder: ForwardingStore {
    let base: InMemoryRemoteStore
    let ledger: StoreLedger
    func close() async { ledger.recordClose() }
}

/// How the suite runs: skipping, option validation, fresh stores, clean-up, failure reports.
struct RemoteStoreConformanceTests {
    @Test func skippedCheckReturnsItsReasonWithoutOpeningAStore() async throws {
        let ledger = StoreLedger()
        let options = RemoteStoreConformance.Options(skipped: [.longNamesRoundTrip: "the server limits URLs to 128 bytes"])
        let suite = RemoteStoreConformance(options: options, makeStore: { ledger.open() })
        #expect(try await suite.run(.longNamesRoundTrip) == .skipped(reason: "the server limits URLs to 128 bytes"))
        #expect(ledger.opened == 0)
        #expect(try await suite.run(.rootExists) == .passed)
    }

    @Test(arguments: ["", "   ", "\n"])
    func skipWithoutAReasonIsRejected(_ reason: String) async throws {
        let suite = RemoteStoreConformance(options: .init(skipped: [.rootExists: reason]), makeStore: { InMemoryRemoteStore() })
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run(.rootExists) }
        #expect(failure.check == .rootExists)
        #expect(failure.expected.contains("reason"))
    }

    @Test func invalidOptionsAreRejected() async throws {
        for options in [
            RemoteStoreConformance.Options(largeFileSize: 0), RemoteStoreConformance.Options(concurrency: 1),
            RemoteStoreConformance.Options(largeDirectoryEntryCount: 0),
        ] {
            let suite = RemoteStoreConformance(options: options, makeStore: { InMemoryRemoteStore() })
            await #expect(throws: ConformanceFailure.self) { try await suite.run(.rootExists) }
        }
    }

    @Test func everyRunOpensOneStoreAndClosesIt() async throws {
        let ledger = StoreLedger()
        let suite = RemoteStoreConformance(makeStore: { ledger.open() })
        for check in [RemoteStoreConformance.Check.rootExists, .deleteRemovesFile, .listIsNotRecursive] {
            try await suite.run(check)
        }
        #expect(ledger.opened == 3)
        #expect(ledger.closed == 3)
    }

    @Test func workingDirectoryIsRemovedAfterAPassAndAfterAFailure() async throws {
        let ledger = StoreLedger()
        try await RemoteStoreConformance(makeStore: { ledger.open() }).run(.hostileNamesRoundTrip)
        #expect(try await ledger.shared.list(.root).isEmpty)

        let failing = RemoteStoreConformance(makeStore: { ExistsLiesAboutSize(base: ledger.shared) })
        await #expect(throws: ConformanceFailure.self) { try await failing.run(.existsReportsFileKindAndSize) }
        #expect(try await ledger.shared.list(.root).isEmpty)
    }

    @Test func runsUseDistinctWorkingDirectories() async throws {
        let ledger = StoreLedger()
        let suite = RemoteStoreConformance(makeStore: { ledger.open() })
        try await withThrowingTaskGroup(of: Void.self) { group in
            for check in RemoteStoreConformance.Check.allCases where check != .deleteOfRootThrowsInvalidPath {
                group.addTask { try await suite.run(check) }
            }
            try await group.waitForAll()
        }
        #expect(try await ledger.shared.list(.root).isEmpty)
    }

    @Test func failingMakeStoreIsReportedAsAFailureOfTheCheck() async throws {
        let suite = RemoteStoreConformance(makeStore: { throw RemoteStoreError(.authenticationFailed, message: "wrong key") })
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run(.rootExists) }
        #expect(failure.check == .rootExists)
        #expect(failure.actual.contains("authenticationFailed"))
        #expect((failure.underlying as? RemoteStoreError)?.code == .authenticationFailed)
    }

    /// Whatever step fails, `run` throws a `ConformanceFailure` for its check, never the store's error.
    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func storeErrorsInAnyStepBecomeFailuresOfTheCheck(_ check: RemoteStoreConformance.Check) async throws {
        let suite = RemoteStoreConformance(options: .init(largeFileSize: 1 << 16)) {
            let store = InMemoryRemoteStore()
            await store.failEveryCall(of: .upload, code: .io)
            return store
        }
        do {
            try await suite.run(check)
        } catch let failure as ConformanceFailure {
            #expect(failure.check == check)
        }
    }

    @Test func failureNamesCheckPathExpectationAndOutcome() async throws {
        let suite = RemoteStoreConformance(makeStore: { ExistsLiesAboutSize(base: InMemoryRemoteStore()) })
        let failure = try await #require(throws: ConformanceFailure.self) { try await suite.run(.existsReportsFileKindAndSize) }
        let path = try #require(failure.path)
        #expect(path.components.first?.hasPrefix("rollsync-conformance-") == true)
        #expect(failure.expected.contains("bytes"))
        #expect(failure.actual.contains("999 bytes"))
        #expect(failure.location.hasPrefix("RemoteStoreConformance/"))
        #expect(failure.description.contains("'existsReportsFileKindAndSize'"))
        #expect(failure.description.contains(path.string))
    }

    /// The one source of truth: every check named in parentheses in `RemoteStore`'s documentation
    /// is a case of `Check`, and every case is named there.
    @Test func everyRuleInTheProtocolDocumentationHasACheck() throws {
        let source = URL(fileURLWithPath: #filePath)
            .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/RemoteProtocol/RemoteStore.swift")
        let documentation = try String(contentsOf: source, encoding: .utf8)
            .split(separator: "\n")
            .compactMap { line in line.trimmingPrefix(while: \.isWhitespace).hasPrefix("///") ? line.trimmingPrefix(while: \.isWhitespace).dropFirst(3) : nil }
            .joined(separator: " ")
        var named: Set<String> = []
        for parenthesis in documentation.matches(of: /\(([^()]*)\)/) {
            for name in parenthesis.output.1.matches(of: /`([a-z][A-Za-z]+)`/) {
                named.insert(String(name.output.1))
            }
        }
        let cases = Set(RemoteStoreConformance.Check.allCases.map(\.rawValue))
        #expect(named.subtracting(cases).sorted() == [], "named in RemoteStore.swift but not a Check")
        #expect(cases.subtracting(named).sorted() == [], "a Check not named in RemoteStore.swift")
    }
}

/// Reports every file as 999 bytes long.
private struct ExistsLiesAboutSize: ForwardingStore {
    let base: InMemoryRemoteStore
    func exists(_ path: RemotePath) async throws -> RemoteItem? {
        try await base.exists(path).map { $0.kind == .file ? RemoteItem(path: $0.path, kind: .file, size: 999) : $0 }
    }
}
