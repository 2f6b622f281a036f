import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// What `rollsync watch` runs: the library's ``AutomaticSync`` on the database, reported line by
/// line, until a stop is requested.
///
/// - **Syncs** all go through the document manager, which runs one at a time (a request while one
///   runs starts a single follow-up), and this process holds the database's `rollsync` lock for as
///   long as it runs, so no other `rollsync` syncs the same file meanwhile.
/// - **AutomaticSync** does the scheduling: a sync at the start, `delay` after commits of any
///   connection or process (the application, `sqlite3`; it reads `PRAGMA data_version` every
///   `localCheckInterval`), and when a check of the remote (every `activeInterval` after activity,
///   doubling up to `interval`) finds another client's sync; failures back off up to
///   `maximumBackoff`, and local changes wait for the backed-off checks meanwhile.
/// - **The remote** is opened (for a folder: found) at the start, retried with the same back-off
///   while it fails, so `watch` can start before a share is mounted or a server is up.
/// - **Stopping** (``requestStop(signal:)``): no new sync starts, the running one finishes and is
///   reported, then ``run()`` returns.
actor WatchLoop {
    /// How often things happen.
    struct Timing: Sendable {
        /// After local changes, before the sync.
        var delay: Duration
        /// Between remote checks while quiet (the longest wait).
        var interval: Duration
        /// Between remote checks after activity.
        var activeInterval: Duration
        /// The longest wait between attempts while failing.
        var maximumBackoff: Duration
        /// Between checks of the database for other processes' commits.
        var localCheckInterval: Duration

        /// AutomaticSync's configuration.
        var configuration: AutomaticSyncConfiguration {
            AutomaticSyncConfiguration(
                delayAfterLocalChanges: delay, pollInterval: interval, activePollInterval: activeInterval, maximumBackoff: maximumBackoff,
                databaseCheckInterval: localCheckInterval
            )
        }
    }

    private let path: String
    private let busyTimeout: Double
    private let password: EncryptionPasswordSource
    private let environment: [String: String]
    private let timing: Timing
    private let json: Bool

    private let stopRequests: AsyncStream<Void>
    private let stopContinuation: AsyncStream<Void>.Continuation
    private var stopSignal: String?
    private var stopRequested = false
    private var startup: Task<SyncSession, any Error>?

    private var session: SyncSession?
    private var automatic: AutomaticSync?
    private var eventsTask: Task<Void, Never>?

    /// True from a failure until the next success.
    private var failing = false
    private var consecutiveFailures = 0
    private var syncs = 0
    private var failures = 0

    init(path: String, busyTimeout: Double, password: EncryptionPasswordSource, environment: [String: String], timing: Timing, json: Bool) {
        self.path = path
        self.busyTimeout = busyTimeout
        self.password = password
        self.environment = environment
        self.timing = timing
        self.json = json
        (stopRequests, stopContinuation) = AsyncStream.makeStream(of: Void.self)
    }

    /// Opens the database and the remote, then keeps them in sync until ``requestStop(signal:)``.
    /// - Throws: what opening the database throws (missing, not set up, busy, another `rollsync`
    ///   holding it past the busy timeout) and remote errors that waiting cannot fix (a missing
    ///   password, an unsupported URL); never a remote failure once running.
    func run() async throws {
        let startup = Task { try await self.openSession() }
        self.startup = startup
        if stopRequested { startup.cancel() }
        let session: SyncSession
        do {
            session = try await startup.value
        } catch {
            guard stopRequested else { throw error }
            emitStopped()
            return
        }
        guard !stopRequested else {
            await session.close()
            emitStopped()
            return
        }
        self.session = session
        let automatic = AutomaticSync(manager: session.document, configuration: timing.configuration)
        self.automatic = automatic
        eventsTask = Task {
            for await event in automatic.events {
                await self.handle(event)
            }
        }
        await automatic.start()
        for await _ in stopRequests { break }
        await shutDown()
    }

    /// Asks ``run()`` to stop: at once while starting, else after the running sync.
    func requestStop(signal: String) {
        guard !stopRequested else { return }
        stopRequested = true
        stopSignal = signal
        startup?.cancel()
        stopContinuation.yield()
    }

    // MARK: Starting

    private func openSession() async throws -> SyncSession {
        let database = try DatabaseFile.open(path, busyTimeout: busyTimeout)
        let settings = try DatabaseFile.settings(of: database, path: path)
        let lock = try await DatabaseFile.lock(path, busyTimeout: busyTimeout)
        let localStore = try LocalStore(writer: database)
        emit(
            WatchLine.Started(
                database: path, remote: settings.remoteLocation.displayURL, delaySeconds: WatchLine.seconds(timing.delay),
                intervalSeconds: WatchLine.seconds(timing.interval), activeIntervalSeconds: WatchLine.seconds(timing.configuration.activePollInterval),
                maximumBackoffSeconds: WatchLine.seconds(timing.maximumBackoff),
                at: Date()
            )
        )
        let store = try await openRemote(settings.remoteLocation)
        return try await SyncSession.assemble(
            path: path, database: database, lock: lock, settings: settings, localStore: localStore, store: store, password: password
        )
    }

    /// Opens the remote store, retrying with back-off while it fails as a remote (a folder not
    /// mounted yet, a server down); other failures are thrown.
    private func openRemote(_ location: RemoteLocation) async throws -> any RemoteStore {
        var delay = Duration.zero
        while true {
            do {
                return try await location.open(registry: .withRollSyncBackends(), environment: environment)
            } catch {
                guard let failure = CommandLineError(classifying: error), failure.kind == .remote else { throw error }
                delay = timing.configuration.backoff(after: delay)
                report(failure, trigger: .start, retryIn: delay)
                try await Task.sleep(for: delay)
            }
        }
    }

    // MARK: Running

    /// Reports what AutomaticSync did.
    private func handle(_ event: AutomaticSyncEvent) async {
        switch event {
        case .synced(let report, let trigger):
            await reportSuccess(report, trigger: WatchLine.Trigger(trigger))
        case .upToDate:
            if failing {
                emit(WatchLine.Recovered(at: Date()))
            }
            failing = false
            consecutiveFailures = 0
        case .failed(let error, let trigger, let retryIn):
            report(error, trigger: WatchLine.Trigger(trigger), retryIn: retryIn)
        @unknown default:
            break
        }
    }

    // MARK: Stopping

    private func shutDown() async {
        await automatic?.stop()
        await eventsTask?.value
        await session?.close()
        emitStopped()
    }

    // MARK: Reporting

    private func reportSuccess(_ report: SyncReport, trigger: WatchLine.Trigger) async {
        guard let session else { return }
        syncs += 1
        let recovered = failing
        failing = false
        consecutiveFailures = 0
        let result: SyncResult
        do {
            // In a task of its own: the last sync is recorded even while stopping (a cancelled
            // task's database accesses are refused).
            result = try await Task { try await session.recordSync(report) }.value
        } catch {
            result = SyncResult(database: session.path, report: report)
            let reason = CommandLineError(classifying: error)?.message ?? "\(error)"
            Console.writeError("rollsync: the sync could not be recorded as the last one in \(path): \(reason)\n")
        }
        emit(WatchLine.Synced(result: result, trigger: trigger, recovered: recovered))
    }

    private func report(_ error: any Error, trigger: WatchLine.Trigger, retryIn: Duration) {
        failing = true
        consecutiveFailures += 1
        failures += 1
        let failure = CommandLineError(classifying: error) ?? CommandLineError(.remote, "\(error)")
        emit(
            WatchLine.Failed(
                trigger: trigger, error: failure.message, hint: failure.hint, exitCode: failure.kind.exitCode,
                retryInSeconds: WatchLine.seconds(retryIn), consecutiveFailures: consecutiveFailures, at: Date()
            )
        )
    }

    private func emitStopped() {
        emit(WatchLine.Stopped(signal: stopSignal, syncs: syncs, failures: failures, at: Date()))
    }

    private func emit(_ line: some CommandResult) {
        WatchLine.emit(line, json: json)
    }
}
