import Dispatch

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// SIGINT and SIGTERM delivered as a stream instead of ending the process, so a long-running
/// command (`watch`) can finish what it is doing and exit normally.
///
/// While it is installed the signals' default action is ignored and a dispatch signal source
/// yields each arrival into ``received``; ``restore()`` puts the default actions back. Nothing
/// runs in the signal handler itself (dispatch reads the signal through its own machinery).
struct TerminationSignals {
    /// The signals this handles.
    static let numbers: [Int32] = [SIGINT, SIGTERM]

    /// Each signal received, as its number, in order of arrival.
    let received: AsyncStream<Int32>
    private let sources: [any DispatchSourceSignal]
    private let continuation: AsyncStream<Int32>.Continuation

    /// Installs the sources; from now on SIGINT and SIGTERM no longer end the process.
    init() {
        let (stream, continuation) = AsyncStream.makeStream(of: Int32.self)
        received = stream
        self.continuation = continuation
        sources = Self.numbers.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield(number) }
            source.resume()
            return source
        }
    }

    /// Removes the sources, restores the default actions and ends ``received``.
    func restore() {
        for source in sources {
            source.cancel()
        }
        for number in Self.numbers {
            signal(number, SIG_DFL)
        }
        continuation.finish()
    }

    /// Ends the process at once as if `number` had not been caught (status 128 + `number` for a
    /// shell): for a second signal while stopping.
    static func terminateNow(by number: Int32) -> Never {
        signal(number, SIG_DFL)
        raise(number)
        exit(128 + number)
    }

    /// `SIGINT` or `SIGTERM`, for messages.
    static func name(of number: Int32) -> String {
        switch number {
        case SIGINT: "SIGINT"
        case SIGTERM: "SIGTERM"
        default: "signal \(number)"
        }
    }
}
