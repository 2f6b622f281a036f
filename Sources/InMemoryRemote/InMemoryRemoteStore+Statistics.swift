extension InMemoryRemoteStore {
    /// Requests and bytes counted by a store since it was made or since ``resetStatistics()``.
    public struct Statistics: Sendable, Hashable {
        /// Calls per primitive, whatever their outcome (failed and injected-fault calls count).
        public var requests: [Primitive: Int] = [:]
        /// File bytes that uploads delivered to the store (copies move no bytes: they run on
        /// the "server").
        public var bytesUploaded: Int64 = 0
        /// File bytes that downloads served, including those whose reply an injected
        /// ``FailureTiming/afterEffect`` fault then lost.
        public var bytesDownloaded: Int64 = 0

        /// No requests, no bytes.
        public init() {}

        /// The number of calls of `primitive`.
        public func requests(of primitive: Primitive) -> Int {
            requests[primitive] ?? 0
        }

        /// The number of calls of all primitives together.
        public var totalRequests: Int {
            requests.values.reduce(0, +)
        }
    }

    /// A snapshot of the counters.
    public var statistics: Statistics { counters }

    /// Sets every counter back to zero.
    public func resetStatistics() {
        counters = Statistics()
    }
}
