import RemoteProtocol

/// A store broke a rule of the `RemoteStore` contract: thrown by ``RemoteStoreConformance/run(_:)``.
///
/// The description reads as one sentence, for example:
/// `conformance check 'deleteOfMissingPathSucceeds' failed at 'rollsync-conformance-…/missing':
/// expected delete to succeed; actual: it threw notFound at '…'`.
public struct ConformanceFailure: Error, CustomStringConvertible {
    /// The check that failed.
    public var check: RemoteStoreConformance.Check
    /// The remote path the failing step concerned, if any (it lies inside the run's working
    /// directory).
    public var path: RemotePath?
    /// What the contract requires.
    public var expected: String
    /// What the store did instead.
    public var actual: String
    /// The error the store threw, if the failure is about an error.
    public var underlying: (any Error)?
    /// Where in the suite the failing step is (`file:line`), to read what the check does.
    public var location: String

    /// Creates a failure. `fileID` and `line` default to the caller's position.
    public init(
        check: RemoteStoreConformance.Check,
        path: RemotePath?,
        expected: String,
        actual: String,
        underlying: (any Error)? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.check = check
        self.path = path
        self.expected = expected
        self.actual = actual
        self.underlying = underlying
        self.location = "\(fileID):\(line)"
    }

    /// The check, path, expectation and outcome in one line, followed by the location.
    public var description: String {
        var text = "conformance check '\(check)' failed"
        if let path { text += " at '\(path)'" }
        text += ": expected \(expected); actual: \(actual)"
        return text + " [\(location)]"
    }
}
