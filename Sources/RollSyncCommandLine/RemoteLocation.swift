import Foundation
import RemoteProtocol

/// A remote store as `rollsync` names it: a URL and the backend's non-secret settings; opening it
/// adds the secrets (passwords) from the environment, `~/.netrc` or a prompt.
struct RemoteLocation: Sendable {
    /// The setting naming the environment variable that holds the WebDAV password (read by the
    /// tool, never passed to the backend).
    static let passwordVariableSetting = "password-env"

    /// The store's URL.
    var url: URL
    /// The backend's settings, plus ``passwordVariableSetting``.
    var settings: [String: String]

    /// Parses what the user typed: a URL with a scheme, or a plain folder path (made absolute, as
    /// a `file://` URL).
    /// - Throws: ``CommandLineError`` (usage) for text that is neither, or a URL with a password.
    static func parse(_ text: String, settings: [String: String], relativeTo directory: String) throws -> RemoteLocation {
        if text.contains("://") {
            guard let url = URL(string: text), let scheme = url.scheme, !scheme.isEmpty else {
                throw CommandLineError(.usage, "'\(text)' is not a valid URL", hint: "examples: file:///srv/sync, sftp://user@host/path, webdavs://host/path, s3://bucket/prefix")
            }
            guard url.password(percentEncoded: true) == nil else {
                throw CommandLineError(
                    .usage, "the remote URL contains a password, which rollsync never accepts on the command line",
                    hint: CommandLineError.secretsHint(forScheme: scheme)
                )
            }
            return RemoteLocation(url: url, settings: settings)
        }
        guard !text.isEmpty else { throw CommandLineError(.usage, "the remote is empty") }
        let path = text.hasPrefix("/") ? text : directory + "/" + text
        return RemoteLocation(url: URL(fileURLWithPath: path).standardizedFileURL, settings: settings)
    }

    /// Creates the folder of a `file://` remote if it is missing (`init` does, so a walkthrough can
    /// name a new folder); other schemes are left to their servers.
    func createFolderIfLocal() throws {
        guard url.isFileURL else { return }
        do {
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        } catch {
            throw CommandLineError(.remote, "the folder \(url.path) cannot be created: \(error.localizedDescription)")
        }
    }

    /// The URL, for messages.
    var displayURL: String {
        url.absoluteString
    }

    /// Opens the store (see ``open(registry:environment:)``), runs `body` with it, and closes it
    /// whether `body` returned or threw.
    func withStore<Result>(
        registry: RemoteStoreRegistry, environment: [String: String], _ body: (any RemoteStore) async throws -> Result
    ) async throws -> Result {
        let store = try await open(registry: registry, environment: environment)
        return try await closing(after: { try await body(store) }, with: { await store.close() })
    }

    /// Opens the store with the backends of `registry`.
    /// - Throws: ``CommandLineError`` (usage) for a URL or setting the backend refuses; the backend's
    ///   connection errors otherwise (classified by the caller).
    func open(registry: RemoteStoreRegistry, environment: [String: String]) async throws -> any RemoteStore {
        var backendSettings = settings
        let variable = backendSettings.removeValue(forKey: Self.passwordVariableSetting)
        do {
            let secrets = try RemotePasswordSource(url: url, passwordVariable: variable, environment: environment)
                .secrets(settings: backendSettings)
            return try await registry.makeStore(for: RemoteStoreConfiguration(url: url, settings: backendSettings, secrets: secrets))
        } catch let error as RemoteStoreError where error.code == .unsupported {
            throw CommandLineError(.usage, error.message, hint: "registered URL schemes: \(registry.schemes.joined(separator: ", "))")
        } catch let error as RemoteStoreError {
            throw error.attributed(to: url.scheme)   // the settings a backend refused before its store existed
        }
    }
}
