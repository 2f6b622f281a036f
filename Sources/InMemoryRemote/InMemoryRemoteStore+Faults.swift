import RemoteProtocol

extension InMemoryRemoteStore {
    /// The seven `RemoteStore` primitives, to aim injected faults and read request counts.
    public enum Primitive: String, CaseIterable, Hashable, Sendable, CustomStringConvertible {
        case exists, createDirectory, upload, download, copy, list, delete

        /// The primitive's name.
        public var description: String { rawValue }
    }

    /// When an injected fault strikes a call.
    public enum FailureTiming: Sendable, Hashable {
        /// The call fails without any effect, as when the server cannot be reached.
        case beforeEffect
        /// The call takes effect (a file is written, copied or deleted; a download is served and
        /// counted, though no local file is written), then fails, as when the server's reply is
        /// lost. The caller cannot tell this from ``beforeEffect``, which is the point.
        case afterEffect
    }

    /// One injected fault, waiting for the call it strikes.
    struct PendingFault: Sendable {
        /// The primitive it strikes; `nil` for every primitive.
        var primitive: Primitive?
        /// How many more calls of the primitive until it strikes (1: the next one).
        var remainingCalls: Int
        var code: RemoteStoreError.Code
        var timing: FailureTiming

        func error(for primitive: Primitive, at path: RemotePath) -> RemoteStoreError {
            RemoteStoreError(
                code, path: path,
                message: "injected failure of \(primitive) (\(timing == .afterEffect ? "after" : "before") its effect)"
            )
        }
    }

    /// Makes the `number`-th call of `primitive` from now on fail (1: the next call).
    ///
    /// Several faults may wait at once, each counting calls from its own injection; a fault
    /// strikes once and is then gone. A call that fails is still counted in ``statistics``.
    ///
    /// - Parameters:
    ///   - number: which call fails, counting from 1; values below 1 are treated as 1.
    ///   - primitive: the primitive whose call fails.
    ///   - code: the code of the ``RemoteProtocol/RemoteStoreError`` thrown; retryable
    ///     ``RemoteProtocol/RemoteStoreError/Code/unavailable`` by default.
    ///   - timing: whether the call's effect happens first (``FailureTiming/afterEffect``).
    public func failCall(
        _ number: Int = 1,
        of primitive: Primitive,
        code: RemoteStoreError.Code = .unavailable,
        timing: FailureTiming = .beforeEffect
    ) {
        pendingFaults.append(PendingFault(primitive: primitive, remainingCalls: max(1, number), code: code, timing: timing))
    }

    /// Makes every later call fail, or every call of `primitive` if one is given, until
    /// ``heal()``. Replaces an earlier `failEveryCall`. A fault from
    /// ``failCall(_:of:code:timing:)`` still counts the calls this one strikes.
    public func failEveryCall(
        of primitive: Primitive? = nil,
        code: RemoteStoreError.Code = .unavailable,
        timing: FailureTiming = .beforeEffect
    ) {
        permanentFault = PendingFault(primitive: primitive, remainingCalls: 0, code: code, timing: timing)
    }

    /// Removes every injected fault, waiting or permanent: later calls succeed as usual.
    public func heal() {
        pendingFaults.removeAll()
        permanentFault = nil
    }

    /// The fault that strikes this call of `primitive`, if any, advancing the waiting faults.
    func nextFault(for primitive: Primitive) -> PendingFault? {
        var striking: PendingFault?
        for index in pendingFaults.indices.reversed() where pendingFaults[index].primitive == primitive {
            pendingFaults[index].remainingCalls -= 1
            if pendingFaults[index].remainingCalls == 0 {
                striking = pendingFaults.remove(at: index)
            }
        }
        if let permanentFault, permanentFault.primitive == nil || permanentFault.primitive == primitive {
            return permanentFault
        }
        return striking
    }
}
