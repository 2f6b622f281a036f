import Foundation

/// The one error type every ``RemoteStore`` throws (besides `CancellationError`).
///
/// An error has a ``code`` that says what went wrong in terms every backend shares, the ``path``
/// it concerns, a human-readable ``message`` and the backend's ``underlying`` error, if any.
/// ``isRetryable`` tells callers whether the same call may succeed later unchanged.
///
/// Match on codes with `~=`:
/// ```swift
/// do { try await store.download(path, to: file) }
/// catch RemoteStoreError.Code.notFound { … }
/// ```
///
/// Messages never contain secrets (passwords, passphrases, keys): backends must not put them there.
public struct RemoteStoreError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, in terms that every backend shares.
    ///
    /// An opaque, extensible set of codes (new codes can be added without breaking a `switch`,
    /// which must have a `default:`).
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Wrapped: String, Hashable, Sendable {
            case notFound, alreadyExists, notADirectory, isADirectory, permissionDenied
            case authenticationFailed, hostKeyUnknown, hostKeyMismatch, insufficientStorage
            case unavailable, timedOut, rateLimited, invalidResponse, invalidPath, unsupported
            case localFile, io, unknown
        }

        private let wrapped: Wrapped

        private init(_ wrapped: Wrapped) { self.wrapped = wrapped }

        /// The path (or, for uploads and copies, the destination's parent) does not exist.
        public static let notFound = Code(.notFound)
        /// Something already exists where the operation needs nothing (a file where a directory
        /// is to be created).
        public static let alreadyExists = Code(.alreadyExists)
        /// A file stands where a directory is required (listing a file, a file as a parent).
        public static let notADirectory = Code(.notADirectory)
        /// A directory stands where a file is required (downloading or overwriting a directory).
        public static let isADirectory = Code(.isADirectory)
        /// The server or file system refused access.
        public static let permissionDenied = Code(.permissionDenied)
        /// The credentials were refused (wrong user, password or key).
        public static let authenticationFailed = Code(.authenticationFailed)
        /// The server's host key is not known and trust-on-first-use was not enabled.
        public static let hostKeyUnknown = Code(.hostKeyUnknown)
        /// The server's host key differs from the one recorded or pinned: possibly an attack.
        public static let hostKeyMismatch = Code(.hostKeyMismatch)
        /// The disk or quota is full.
        public static let insufficientStorage = Code(.insufficientStorage)
        /// The server could not be reached, or the connection dropped. Retryable.
        public static let unavailable = Code(.unavailable)
        /// The operation did not complete in time. Retryable.
        public static let timedOut = Code(.timedOut)
        /// The server asked the client to slow down (HTTP 429, a lock held). Retryable.
        public static let rateLimited = Code(.rateLimited)
        /// The server answered something the backend cannot understand (malformed XML, a wrong
        /// length, an unexpected status).
        public static let invalidResponse = Code(.invalidResponse)
        /// A path was rejected (see ``RemotePath``), or the operation is not allowed on it (the root).
        public static let invalidPath = Code(.invalidPath)
        /// The backend cannot perform this operation, or the URL or configuration is not supported.
        public static let unsupported = Code(.unsupported)
        /// The local file of an upload or download could not be read or written.
        public static let localFile = Code(.localFile)
        /// Any other input/output failure on the storage side.
        public static let io = Code(.io)
        /// Anything else.
        public static let unknown = Code(.unknown)

        /// True for failures that may go away if the same call is made again later.
        public var isRetryable: Bool {
            switch wrapped {
            case .unavailable, .timedOut, .rateLimited: return true
            default: return false
            }
        }

        public var description: String { wrapped.rawValue }

        /// Lets `catch RemoteStoreError.Code.notFound` and `case .notFound` match an error.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? RemoteStoreError)?.code == code
        }
    }

    /// What went wrong.
    public var code: Code
    /// The remote path concerned, if any.
    public var path: RemotePath?
    /// A human-readable explanation, free of secrets.
    public var message: String
    /// The error reported by the layer below (a POSIX error, a libssh2 or libcurl code), if any.
    public var underlying: (any Error & Sendable)?
    /// Where the error was created (`Module/File.swift:line`), for diagnostics only: to tell
    /// which backend failed, read ``backend``.
    public var location: String
    /// The backend that reported the error, by its name (``RemoteStoreProvider/backendName``:
    /// `"file"`, `"sftp"`, `"webdav"`, `"s3"`, `"memory"`, or a third party's), so that a caller can
    /// name that backend's own settings in what it tells people; `nil` when it is not known.
    ///
    /// A ``RemoteStoreRegistry`` sets it on the errors of opening a store, and RollingSync's sync
    /// operations on every error of a store they pass on (from ``RemoteStore/backendName``); a
    /// backend may set it itself.
    public var backend: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: what went wrong.
    ///   - path: the remote path concerned.
    ///   - message: an explanation for people; must not contain secrets. Defaults to the code.
    ///   - underlying: the lower layer's error.
    ///   - backend: the backend reporting it (see ``backend``), if the code making it knows.
    ///   - fileID: where the error was made, for ``location``; leave the default.
    ///   - line: the line where the error was made, for ``location``; leave the default.
    public init(
        _ code: Code,
        path: RemotePath? = nil,
        message: String? = nil,
        underlying: (any Error & Sendable)? = nil,
        backend: String? = nil,
        fileID: String = #fileID,
        line: Int = #line
    ) {
        self.code = code
        self.path = path
        self.message = message ?? code.description
        self.underlying = underlying
        self.backend = backend
        self.location = "\(fileID):\(line)"
    }

    /// This error, attributed to `backend` unless it names a backend already.
    public func attributed(to backend: String?) -> RemoteStoreError {
        var error = self
        error.backend = self.backend ?? backend
        return error
    }

    /// True if making the same call again later may succeed.
    public var isRetryable: Bool { code.isRetryable }

    /// `code` at `path`: message (underlying), on one line.
    public var description: String {
        var text = "\(code)"
        if let path { text += " at '\(path)'" }
        if message != code.description { text += ": \(message)" }
        if let underlying { text += " (\(underlying))" }
        return text
    }
}

extension RemoteStoreError: LocalizedError {
    /// The same sentence as ``description``, so that `localizedDescription` (what apps and
    /// Foundation show) says what went wrong instead of "The operation could not be completed".
    public var errorDescription: String? { description }
}
