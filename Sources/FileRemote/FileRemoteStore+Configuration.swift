import Foundation
import RemoteProtocol

/// A ``FileRemoteStore``'s whole configuration is its root folder, a `file:` URL: this is where the
/// rules for that URL live (``init(root:)`` and the provider both read it through here).
///
/// The accepted form is `file:///absolute/path` (or `file://localhost/absolute/path`), with
/// percent-encoding for special characters (`file:///srv/my%20sync`).
extension FileRemoteStore {
    /// The absolute, percent-decoded folder path of a `file:` URL.
    ///
    /// - Throws: ``RemoteStoreError/Code/unsupported`` naming what is wrong: another scheme, a
    ///   host other than `localhost`, a user, port, query or fragment, or a relative or empty path.
    static func rootPath(of url: URL) throws -> String {
        func refuse(_ reason: String) -> RemoteStoreError {
            RemoteStoreError(
                .unsupported,
                message: "FileRemote cannot open '\(url.redactingPassword)': \(reason); "
                    + "use file:///absolute/path/to/folder"
            )
        }
        guard url.scheme?.lowercased() == "file" else {
            throw refuse("the scheme is not 'file'")
        }
        guard url.baseURL == nil,
            let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else {
            throw refuse("the URL is relative to another URL")
        }
        if let host = components.host, !host.isEmpty, host.lowercased() != "localhost" {
            throw refuse("file URLs with a host ('\(host)') are not supported; mount the share and use its local path")
        }
        if components.user != nil || components.port != nil {
            throw refuse("file URLs cannot have a user or a port")
        }
        if components.query != nil || components.fragment != nil {
            throw refuse("file URLs cannot have a query ('?') or a fragment ('#'); percent-encode such characters")
        }
        let path = url.path(percentEncoded: false)
        guard path.hasPrefix("/") else {
            throw refuse(path.isEmpty ? "the path is empty" : "the path '\(path)' is relative")
        }
        guard !path.utf8.contains(0) else {
            throw refuse("the path contains a NUL character")
        }
        return path
    }
}
