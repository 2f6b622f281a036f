import Foundation
import RemoteProtocol

/// The error the synchronisation operations throw.
///
/// ``code`` says what went wrong; ``message`` explains it for people (never with secrets);
/// ``underlying`` carries the cause, typically a `RemoteStoreError` (whose `isRetryable` then
/// tells whether running the operation again may help; so does ``isRetryable``).
public struct SyncError: Error, Sendable, CustomStringConvertible {
    /// What went wrong: an opaque, extensible set (a `switch` needs a `default:`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// An application, document or client identifier is not valid.
        public static let invalidIdentifier = Code("invalidIdentifier")
        /// The remote data was written by a newer RollingSync format than this one understands.
        public static let unsupportedFormat = Code("unsupportedFormat")
        /// The remote data is not what RollingSync wrote (a missing or unreadable format file,
        /// a malformed info file).
        public static let corruptRemoteData = Code("corruptRemoteData")
        /// The application declined a decision the operation needed (for example creating a
        /// missing document).
        public static let declined = Code("declined")
        /// The operation needs a registration that has not happened, or the local database is bound
        /// to another document.
        public static let notRegistered = Code("notRegistered")
        /// The remote document was recreated since this client last saw it (its integrity key
        /// changed) and the application chose to stop; local data, including unpushed changes, is
        /// untouched.
        public static let integrityKeyMismatch = Code("integrityKeyMismatch")
        /// This client was removed from the document by another client and the application chose
        /// to stop; local data is untouched.
        public static let clientRemoved = Code("clientRemoved")
        /// The application's remote data is encrypted and this client has no usable data key: the
        /// application supplied no password (see ``EncryptionDecisions``).
        public static let passwordRequired = Code("passwordRequired")
        /// The password supplied does not unlock the application's data key; registering again
        /// asks for it again.
        public static let wrongPassword = Code("wrongPassword")
        /// Change sets this database needs were removed by a vacuum (it slept while treated as
        /// retired, or it joins late) and no usable whole store contains them; local data, including
        /// unpushed changes, is untouched. Another client can upload a whole store to fix it.
        public static let historyMissing = Code("historyMissing")
        /// There is no usable whole store to download.
        public static let noWholeStore = Code("noWholeStore")
        /// Remote data was written with a newer schema (a table or column this database lacks);
        /// migrate the application's schema, then try again.
        public static let upgradeRequired = Code("upgradeRequired")
        /// A format upgrade (``ApplicationSyncManager/upgradeFormat()``) waits for clients whose last
        /// sync was made by a build that cannot read the new format; the message names them. Sync
        /// each with a current build, or remove those no longer used, then upgrade again.
        public static let clientsNeedUpgrade = Code("clientsNeedUpgrade")
        /// What was asked for does not exist remotely: the document, or the change set a
        /// restore should stop before.
        public static let notFound = Code("notFound")
        /// Local changes kept arriving while a whole store was being taken, three times in a row;
        /// nothing was uploaded. Try again when the application is quieter.
        public static let busy = Code("busy")
        /// Another ``DocumentSyncManager`` of this process syncs the same database (one manager per
        /// database); close or release it first.
        public static let alreadyOpen = Code("alreadyOpen")
        /// The ``DocumentSyncManager`` was closed (``DocumentSyncManager/close()``); open a new one.
        public static let closed = Code("closed")
        /// The remote store failed; see ``SyncError/underlying``.
        public static let remote = Code("remote")
        /// The local database failed; see ``SyncError/underlying``.
        public static let local = Code("local")

        public var description: String { name }

        /// Lets `catch SyncError.Code.declined` match an error.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? SyncError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// An explanation for people, free of secrets.
    public var message: String
    /// The cause, if any.
    public var underlying: (any Error & Sendable)?

    /// Creates an error.
    public init(_ code: Code, _ message: String, underlying: (any Error & Sendable)? = nil) {
        self.code = code
        self.message = message
        self.underlying = underlying
    }

    /// True if the cause is a retryable remote failure: running the operation again may succeed.
    public var isRetryable: Bool {
        (underlying as? RemoteStoreError)?.isRetryable ?? false
    }

    public var description: String {
        underlying.map { "\(message) (\($0))" } ?? message
    }
}

extension SyncError {
    /// A remote store's failure as every operation reports it: code ``Code/remote`` wrapping
    /// `error`, attributed to `store`'s backend (``RemoteStore/backendName``) unless it names one.
    static func remote(_ error: RemoteStoreError, of store: any RemoteStore) -> SyncError {
        let error = error.attributed(to: store.backendName)
        return SyncError(.remote, "remote storage failed: \(error)", underlying: error)
    }

    /// Runs a step on local files or the local database, reporting any failure that is not a
    /// ``SyncError`` already as ``Code/local`` with `context` ("the local database failed") in
    /// front of it.
    static func local<Result>(_ context: String, _ body: () throws -> Result) throws -> Result {
        do {
            return try body()
        } catch let error as SyncError {
            throw error
        } catch {
            throw SyncError(.local, "\(context): \(error)", underlying: error)
        }
    }
}

extension SyncError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
