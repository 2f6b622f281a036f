extension RemoteStoreConformance {
    /// How the suite runs against one backend.
    public struct Options: Sendable {
        /// Checks not to run, each with the reason written out (for example
        /// `[.longNamesRoundTrip: "the server limits URLs to 256 bytes"]`). ``run(_:)`` returns
        /// ``Outcome/skipped(reason:)`` for them. An empty or blank reason is rejected: ``run(_:)``
        /// throws a ``ConformanceFailure``.
        public var skipped: [Check: String]

        /// The size in bytes of the file in
        /// ``Check/uploadAndDownloadRoundTripMultiMegabyteFile``, and of the large files the
        /// visibility and cancellation checks write. Default 8 MiB; at least 1.
        public var largeFileSize: Int

        /// How many tasks the concurrency checks run at once. Default 16; at least 2.
        public var concurrency: Int

        /// Creates options.
        public init(skipped: [Check: String] = [:], largeFileSize: Int = 8 << 20, concurrency: Int = 16) {
            self.skipped = skipped
            self.largeFileSize = largeFileSize
            self.concurrency = concurrency
        }
    }

    /// The result of a check that did not fail.
    public enum Outcome: Sendable, Equatable {
        /// The store obeys the rule.
        case passed
        /// The check was not run, for the reason given in ``Options/skipped``.
        case skipped(reason: String)
    }
}
