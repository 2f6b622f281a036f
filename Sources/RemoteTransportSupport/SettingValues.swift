import RemoteProtocol

/// Reads the typed values of a backend's string settings
/// (``RemoteProtocol/RemoteStoreConfiguration/settings``), refusing invalid ones with an
/// `unsupported` error that names the backend, the key and what was expected.
public struct SettingValues: Sendable {
    /// The settings.
    public let settings: [String: String]
    /// The backend's name in messages (`WebDAV`, `S3`).
    public let backend: String

    /// Reads `settings` of `backend`.
    public init(_ settings: [String: String], backend: String) {
        self.settings = settings
        self.backend = backend
    }

    /// A positive number of seconds (fractions allowed), or `nil` if the key is absent.
    public func seconds(_ key: String) throws -> Duration? {
        guard let text = settings[key] else { return nil }
        guard let value = Double(text), value > 0, value.isFinite else {
            throw invalid(key, text, expected: "a positive number of seconds")
        }
        return .milliseconds(Int64(value * 1000))
    }

    /// A whole number of at least `minimum`, or `nil` if the key is absent.
    public func count<Number: FixedWidthInteger>(_ key: String, minimum: Number) throws -> Number? {
        guard let text = settings[key] else { return nil }
        guard let value = Number(text), value >= minimum else {
            throw invalid(key, text, expected: "a whole number of at least \(minimum)")
        }
        return value
    }

    /// The error for the invalid `value` of `key`.
    public func invalid(_ key: String, _ value: String, expected: String) -> RemoteStoreError {
        RemoteStoreError(.unsupported, message: "the \(backend) setting \(key)='\(value)' is invalid; expected \(expected)")
    }
}
