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

        /// How many tasks the concurrency checks run at once (and how many uploads
        /// ``Check/largeDirectoryListsEveryEntryOnce`` keeps in flight). Default 16; at least 2.
        public var concurrency: Int

        /// How many entries ``Check/largeDirectoryListsEveryEntryOnce`` puts in one directory.
        /// Default 1,001: one more than the page size of S3 and many HTTP APIs, so a `list` that
        /// returns only the first page fails. At least 1.
        public var largeDirectoryEntryCount: Int

        /// Whether two stores returned by `makeStore` share their storage, as two connections to
        /// one server or two stores on one folder do: what one writes or deletes, the other sees.
        /// Default true (every built-in backend). Set it to false only for a store whose every
        /// instance is private by design; ``Check/secondStoreSeesWritesAndDeletes`` is then
        /// skipped with that reason. The sync engine needs shared storage: its clients are stores
        /// opened from the same configuration in different processes.
        public var storesShareStorage: Bool

        /// Creates options.
        public init(
            skipped: [Check: String] = [:],
            largeFileSize: Int = 8 << 20,
            concurrency: Int = 16,
            largeDirectoryEntryCount: Int = 1_001,
            storesShareStorage: Bool = true
        ) {
            self.skipped = skipped
            self.largeFileSize = largeFileSize
            self.concurrency = concurrency
            self.largeDirectoryEntryCount = largeDirectoryEntryCount
            self.storesShareStorage = storesShareStorage
        }

        /// Why `check` is not run, or `nil` if it runs: a reason from ``skipped``, or the
        /// declaration that stores do not share storage.
        func skipReason(for check: Check) -> String? {
            if let reason = skipped[check] { return reason }
            if check == .secondStoreSeesWritesAndDeletes && !storesShareStorage {
                return "the options declare that stores made by makeStore do not share storage (storesShareStorage is false)"
            }
            return nil
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
