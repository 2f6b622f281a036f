import Foundation

/// What ``ApplicationSyncManager/verify(document:options:progress:)`` checks and may change.
public struct VerificationOptions: Sendable, Equatable {
    /// Also download every change set and whole store and check its content (codec, checksum,
    /// count, header, SHA-256, SQLite `quick_check`). Without it, only what names, sizes and the
    /// small index files tell is checked: one listing per directory and one manifest and index
    /// per whole store.
    public var deep: Bool
    /// Carry out the repairs that are provably safe (see ``VerificationReport/Problem/isRepairable``)
    /// and report each; nothing else is ever changed.
    public var repair: Bool
    /// Leftovers younger than this are left alone even with ``repair`` (an upload may still be
    /// running): one day by default.
    public var leftoverAge: TimeInterval
    /// The time ages are measured from (now by default).
    public var now: Date

    /// Options; by default a shallow check that changes nothing.
    public init(deep: Bool = false, repair: Bool = false, leftoverAge: TimeInterval = 86_400, now: Date = Date()) {
        self.deep = deep
        self.repair = repair
        self.leftoverAge = leftoverAge
        self.now = now
    }
}

/// What a verification of a remote document found: every problem with what and where, what was
/// repaired, and the range of moments the document can be restored to.
public struct VerificationReport: Sendable, Equatable, Codable {
    /// One thing wrong with the remote document.
    public struct Problem: Sendable, Equatable, Codable {
        /// The kind of problem. Opaque: new kinds may appear; compare with the constants.
        public struct Kind: Hashable, Sendable, Codable, CustomStringConvertible, RawRepresentable {
            public let rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }
            public var description: String { rawValue }

            /// A change set that cannot be read: damaged, truncated, failing its checksum or
            /// decryption, or whose content names another set (``VerificationOptions/deep``; a
            /// shallow check finds only files too short to be a set).
            public static let unreadableChangeSet = Kind(rawValue: "unreadableChangeSet")
            /// A change set that a last-sync marker or record names does not exist, and no vacuum
            /// removed it (or its upload is still running).
            public static let missingChangeSet = Kind(rawValue: "missingChangeSet")
            /// A change set newer than every set its client's markers announce: clients that
            /// trust the markers will not see it until that client syncs again.
            public static let unannouncedChangeSet = Kind(rawValue: "unannouncedChangeSet")
            /// A whole-store unit without a manifest: an interrupted upload. Repairable once older
            /// than ``VerificationOptions/leftoverAge``.
            public static let incompleteWholeStore = Kind(rawValue: "incompleteWholeStore")
            /// A complete whole-store unit whose files are missing or do not match its manifest.
            public static let damagedWholeStore = Kind(rawValue: "damagedWholeStore")
            /// A whole-store unit that lacks history a vacuum removed, or belongs to an earlier
            /// incarnation of the document: readers ignore it.
            public static let unusableWholeStore = Kind(rawValue: "unusableWholeStore")
            /// A whole store that could not be checked here: its schema uses a collation or SQL
            /// function that only the application defines (``VerificationOptions/deep``; its sizes
            /// and SHA-256 were checked), or a newer build wrote it in a format this one cannot
            /// read. A notice.
            public static let uncheckedWholeStore = Kind(rawValue: "uncheckedWholeStore")
            /// Vacuumed history that no usable whole store contains: a new client cannot join and
            /// a client that missed it cannot catch up.
            public static let lostHistory = Kind(rawValue: "lostHistory")
            /// A temporary file an upload left behind (a killed process, a dropped connection),
            /// or one still being written. Repairable once not written for
            /// ``VerificationOptions/leftoverAge``.
            public static let temporaryFile = Kind(rawValue: "temporaryFile")
            /// A last-sync marker of a client that has no change-set directory (a removed client).
            /// Repairable.
            public static let staleMarker = Kind(rawValue: "staleMarker")
            /// A change-set or whole-store directory of a client the application does not know.
            public static let unknownClient = Kind(rawValue: "unknownClient")
            /// A file or directory the remote format does not know (a notice: readers ignore it).
            public static let unknownFile = Kind(rawValue: "unknownFile")
            /// Change sets that whole stores contain are in no directory any more and no vacuum
            /// marker names them (a removed client's, or lost): a notice, since restores can start
            /// only from whole stores that hold them.
            public static let historyOnlyInWholeStores = Kind(rawValue: "historyOnlyInWholeStores")
            /// The document has no `documentInfo.json`: its creation was interrupted.
            public static let incompleteDocument = Kind(rawValue: "incompleteDocument")
        }

        /// How much a finding matters (an open set: a `switch` needs an `@unknown default:`).
        @nonexhaustive
        public enum Severity: String, Sendable, Codable {
            /// Something is wrong: data is damaged or missing, or leftovers wait for a repair.
            case problem
            /// Worth knowing, harmless to every reader, and often passing: an upload in flight,
            /// a file the format does not know, a whole store readers skip, history only whole
            /// stores hold.
            case notice
        }

        /// The kind of problem.
        public var kind: Kind
        /// How much it matters: only problems make a report unclean.
        public var severity: Severity
        /// The remote path of the file or directory concerned, relative to the store's root.
        public var path: String
        /// The client concerned, if any.
        public var client: String?
        /// What is wrong, in one line.
        public var detail: String
        /// Whether `--repair` may fix it: only deletions that are provably safe.
        public var isRepairable: Bool
        /// Whether this verification repaired it.
        public var repaired: Bool

        /// Describes a problem.
        package init(
            kind: Kind, severity: Severity = .problem, path: String, client: String? = nil, detail: String, isRepairable: Bool = false,
            repaired: Bool = false
        ) {
            self.kind = kind
            self.severity = severity
            self.path = path
            self.client = client
            self.detail = detail
            self.isRepairable = isRepairable
            self.repaired = repaired
        }
    }

    /// Every finding, problems and notices, in path order.
    public var problems: [Problem] = []
    /// How many change sets were checked (downloaded, with ``VerificationOptions/deep``).
    public var changeSetsChecked = 0
    /// How many complete whole-store units were checked.
    public var wholeStoresChecked = 0
    /// The moments the document can be restored to (see ``RestorableRange``).
    public var restorableRange: RestorableRange

    /// True when nothing is wrong: no finding of severity ``Problem/Severity/problem``
    /// (repaired ones count as found).
    public var isClean: Bool { !problems.contains { $0.severity == .problem } }

    /// Creates a report.
    package init(problems: [Problem] = [], changeSetsChecked: Int = 0, wholeStoresChecked: Int = 0, restorableRange: RestorableRange) {
        self.problems = problems
        self.changeSetsChecked = changeSetsChecked
        self.wholeStoresChecked = wholeStoresChecked
        self.restorableRange = restorableRange
    }
}

/// The moments a document can be restored to (see
/// ``ApplicationSyncManager/restore(document:to:at:schemaFrom:progress:)``).
public struct RestorableRange: Sendable, Equatable, Codable {
    /// Whether any moment can be restored: false when vacuum removed history and no usable
    /// whole store holds it.
    public var isRestorable: Bool
    /// The earliest moment: the oldest usable whole store's time, or `nil` for the document's
    /// beginning (no history was ever vacuumed, so every change set is there).
    public var earliest: Date?
    /// The time of the newest change set (`nil` when there is none).
    public var latest: Date?

    /// Describes a range.
    package init(isRestorable: Bool, earliest: Date?, latest: Date?) {
        self.isRestorable = isRestorable
        self.earliest = earliest
        self.latest = latest
    }
}
