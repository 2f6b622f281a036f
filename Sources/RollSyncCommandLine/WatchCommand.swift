import ArgumentParser
import Foundation

/// `rollsync watch`: keeps the database in sync until stopped (see ``WatchLoop``).
struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Keep the database in sync until stopped: sync after local changes, check the remote periodically.",
        discussion: """
            Syncs at the start, then --delay seconds after changes written to the database by any process (the \
            application, sqlite3), and whenever a check of the remote finds that another client published changes. \
            The remote is checked --active-interval seconds after activity (a change pushed or applied), then less and \
            less often, the wait doubling up to --interval while nothing happens: with the defaults (3, 60) an idle \
            client lists the remote once a minute (1,440 times a day), and clients at work see each other's changes \
            within seconds. A failing remote never ends it: it says so and retries, the wait doubling from --interval \
            up to --max-backoff. One line per sync or failure on standard output (--json: one JSON object per line, \
            its trigger saying why the sync ran: start, localChanges, remoteAnnouncement, remoteCheck).

            SIGINT (Ctrl-C) or SIGTERM stops it after the running sync, with exit code 0; a second signal stops it at \
            once (a sync cut short is simply redone by the next one). While it runs it holds the database's rollsync \
            lock: other rollsync commands that change the database wait for it (status does not).
            """
    )

    @OptionGroup var target: SessionOptions
    @OptionGroup var output: OutputOptions

    @Option(
        name: .long,
        help: ArgumentHelp("Seconds from a local change to its sync; changes made meanwhile join it.", valueName: "seconds")
    )
    var delay: Double = 2

    @Option(
        name: .long,
        help: ArgumentHelp(
            "The longest wait, in seconds, between checks of the remote for other clients' syncs, reached while nothing happens.",
            valueName: "seconds"
        )
    )
    var interval: Double = 60

    @Option(
        name: .customLong("active-interval"),
        help: ArgumentHelp(
            "Seconds to the next check of the remote after activity (a change pushed or applied); the wait then doubles up to --interval (a larger value is taken as --interval).",
            valueName: "seconds"
        )
    )
    var activeInterval: Double = 3

    @Option(
        name: .customLong("max-backoff"),
        help: ArgumentHelp("The longest wait, in seconds, between retries while syncs fail.", valueName: "seconds")
    )
    var maxBackoff: Double = 600

    @Option(
        name: .customLong("check-interval"),
        help: ArgumentHelp(
            "Seconds between checks of the database for commits by other processes (each costs a few microseconds).",
            valueName: "seconds"
        )
    )
    var checkInterval: Double = 0.2

    func validate() throws {
        guard delay >= 0, delay.isFinite else { throw ValidationError("--delay takes a number of seconds, 0 or more") }
        guard interval >= 0.01, interval.isFinite else { throw ValidationError("--interval takes a number of seconds, 0.01 or more") }
        guard activeInterval >= 0.01, activeInterval.isFinite else {
            throw ValidationError("--active-interval takes a number of seconds, 0.01 or more")
        }
        guard maxBackoff >= interval, maxBackoff.isFinite else {
            throw ValidationError("--max-backoff takes a number of seconds, at least --interval (\(interval))")
        }
        guard checkInterval >= 0.01, checkInterval.isFinite else {
            throw ValidationError("--check-interval takes a number of seconds, 0.01 or more")
        }
    }

    func run() async throws {
        let signals = TerminationSignals()
        defer { signals.restore() }
        let loop = WatchLoop(
            path: target.path, busyTimeout: target.database.busyTimeout, password: target.password.source,
            environment: ProcessInfo.processInfo.environment,
            timing: WatchLoop.Timing(
                delay: .seconds(delay), interval: .seconds(interval), activeInterval: .seconds(activeInterval), maximumBackoff: .seconds(maxBackoff),
                localCheckInterval: .seconds(checkInterval)
            ),
            json: output.json
        )
        let received = signals.received
        let listener = Task {
            var count = 0
            for await number in received {
                count += 1
                let name = TerminationSignals.name(of: number)
                if count == 1 {
                    Console.writeError("rollsync: \(name): stopping after the running sync (send it again to stop at once)\n")
                    await loop.requestStop(signal: name)
                } else {
                    Console.writeError("rollsync: \(name) again: stopping at once\n")
                    TerminationSignals.terminateNow(by: number)
                }
            }
        }
        defer { listener.cancel() }
        try await loop.run()
    }
}
