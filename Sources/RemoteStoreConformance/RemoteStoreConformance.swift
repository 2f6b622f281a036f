import Foundation
import RemoteProtocol

/// The contract suite that every `RemoteStore` backend runs: one named ``Check``
/// for every rule written in the documentation of `RemoteStore`, plus round trips, hostile names
/// and concurrency.
///
/// The suite imports no test framework, so it runs under Swift Testing, XCTest or a plain
/// executable. A backend's whole conformance test is a few lines:
///
/// ```swift
/// import RemoteStoreConformance
/// import Testing
///
/// struct MyRemoteConformanceTests {
///     @Test(arguments: RemoteStoreConformance.Check.allCases)
///     func conformance(_ check: RemoteStoreConformance.Check) async throws {
///         try await RemoteStoreConformance(makeStore: { try MyRemoteStore(root: testURL) }).run(check)
///     }
/// }
/// ```
///
/// Every ``run(_:)``:
/// 1. makes a fresh store with `makeStore`;
/// 2. creates a fresh, uniquely named working directory (`rollsync-conformance-<UUID>`) in the
///    store's root, so runs never see each other's files and can run in parallel;
/// 3. runs the check inside that directory;
/// 4. deletes the working directory, also when the check failed, and calls
///    `RemoteStore.close()`.
///
/// A failing check throws a ``ConformanceFailure`` naming the check, the path, what was expected
/// and what happened. A check listed in ``Options/skipped`` is not run and returns
/// ``Outcome/skipped(reason:)``.
public struct RemoteStoreConformance: Sendable {
    /// How the suite runs.
    public var options: Options

    private let makeStore: @Sendable () async throws -> any RemoteStore

    /// Creates the suite for one backend.
    ///
    /// - Parameters:
    ///   - options: skipped checks (each with a reason), the large-file size, the concurrency,
    ///     the size of the large directory, and whether stores share storage.
    ///   - makeStore: opens a store of the backend under test. It is called once per ``run(_:)``,
    ///     and once more by ``Check/secondStoreSeesWritesAndDeletes``, which expects the two
    ///     stores to share their storage (see ``Options/storesShareStorage``; the suite works in a
    ///     unique directory, so runs never see each other). The store's root must be writable.
    public init(options: Options = .init(), makeStore: @escaping @Sendable () async throws -> any RemoteStore) {
        self.options = options
        self.makeStore = makeStore
    }

    /// Runs one check against a fresh store.
    ///
    /// - Returns: ``Outcome/passed``, or ``Outcome/skipped(reason:)`` if ``Options/skipped``
    ///   lists the check (or it needs shared storage and ``Options/storesShareStorage`` is false).
    /// - Throws: ``ConformanceFailure`` if the store breaks the rule, if `makeStore` fails, if
    ///   the working directory cannot be created or removed, or if the options are invalid (an
    ///   empty skip reason, a large-file size below one byte, a concurrency below two, a large
    ///   directory of no entries).
    ///   `CancellationError` if the calling task is cancelled.
    @discardableResult
    public func run(_ check: Check) async throws -> Outcome {
        try validateOptions(for: check)
        if let reason = options.skipReason(for: check) {
            return .skipped(reason: reason)
        }
        let store: any RemoteStore
        do {
            store = try await makeStore()
        } catch {
            throw ConformanceFailure(
                check: check, path: nil, expected: "makeStore returns a store", actual: "it threw \(error)",
                underlying: error
            )
        }
        let workingDirectory = try RemotePath(components: ["rollsync-conformance-\(UUID().uuidString)"])
        let context = ConformanceContext(
            check: check, store: store, directory: workingDirectory, options: options, makeStore: makeStore
        )
        do {
            try await context.perform("createDirectory (setting up the working directory)", workingDirectory) {
                try await store.createDirectory(at: workingDirectory)
            }
            try await context.run()
        } catch let error as CancellationError where Task.isCancelled {
            await Self.cleanUp(store, workingDirectory)
            throw error
        } catch {
            await Self.cleanUp(store, workingDirectory)
            throw error as? ConformanceFailure ?? ConformanceFailure(
                check: check, path: (error as? RemoteStoreError)?.path,
                expected: "every step of the check to succeed",
                actual: "a step threw \(ConformanceContext.describe(error))", underlying: error
            )
        }
        if let cleanupError = await Self.cleanUp(store, workingDirectory) {
            throw ConformanceFailure(
                check: check, path: workingDirectory,
                expected: "the working directory is deleted after the check",
                actual: "delete threw \(cleanupError)", underlying: cleanupError
            )
        }
        return .passed
    }

    /// Deletes the working directory and closes the store, in a task of its own so that it also
    /// happens when the calling task was cancelled. Returns the deletion's error, if any.
    @discardableResult
    private static func cleanUp(_ store: any RemoteStore, _ directory: RemotePath) async -> (any Error)? {
        await Task {
            var failure: (any Error)?
            do {
                try await store.delete(directory)
            } catch {
                failure = error
            }
            await store.close()
            return failure
        }.value
    }

    private func validateOptions(for check: Check) throws {
        func invalid(_ expected: String, _ actual: String) -> ConformanceFailure {
            ConformanceFailure(check: check, path: nil, expected: expected, actual: actual)
        }
        if let reason = options.skipped[check], reason.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
            throw invalid("a written reason for skipping '\(check)'", "an empty reason")
        }
        if options.largeFileSize < 1 {
            throw invalid("options.largeFileSize of at least 1 byte", "\(options.largeFileSize)")
        }
        if options.concurrency < 2 {
            throw invalid("options.concurrency of at least 2 tasks", "\(options.concurrency)")
        }
        if options.largeDirectoryEntryCount < 1 {
            throw invalid("options.largeDirectoryEntryCount of at least 1", "\(options.largeDirectoryEntryCount)")
        }
    }
}
