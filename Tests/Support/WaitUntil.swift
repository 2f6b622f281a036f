/// Checks `condition` every 5 ms until it holds, and throws if it still does not after `timeout`;
/// `what` names the condition in that error. For waiting on an outside event that sends no
/// notification (a server starting, a file appearing), never as a delay.
///
/// The default deadline is a bound for a test that would otherwise hang, not a measure of speed: a
/// loaded machine (the full suite running beside other work) starved a 0.1 s wait past two
/// minutes, so it is five minutes.
public func waitUntil(_ what: String, timeout: Duration = .seconds(300), _ condition: () async throws -> Bool) async throws {
    let deadline = ContinuousClock.now + timeout
    while try await !condition() {
        guard ContinuousClock.now < deadline else {
            throw TestSupportError("gave up waiting until \(what)")
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
