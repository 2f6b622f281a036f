import RemoteProtocol

/// Where a document keeps its integrity key: an empty, plain file whose **name** is the key (a
/// UUID string), created with the document.
///
/// - Format 1: `IntegrityKey/<key>`.
/// - Format 2: `RecentSyncs/<key>.integritykey`, next to the last-sync markers, so the one listing
///   of `RecentSyncs/` a sync makes both checks the key and tells what every client published.
///
/// Should a race ever leave two keys, every client takes the smallest. Names that are not keys
/// (shorter than 16 characters, starting with `.`, or, in format 2, without the extension) are
/// ignored.
enum IntegrityKeyFile {
    /// The file-name extension of format 2's key file.
    static let fileExtension = "integritykey"

    /// The directory that holds the key of a document of `format`.
    static func directory(of layout: DocumentLayout, format: RemoteFormatFile) -> RemotePath {
        format.keepsIntegrityKeyInRecentSyncs ? layout.recentSyncs : layout.integrityKeys
    }

    /// The key file for `key` in a document of `format`.
    static func path(for key: String, of layout: DocumentLayout, format: RemoteFormatFile) throws -> RemotePath {
        let name = format.keepsIntegrityKeyInRecentSyncs ? "\(key).\(fileExtension)" : key
        return try directory(of: layout, format: format).appending(RemotePath(components: [name]))
    }

    /// The key named by the listed items of ``directory(of:format:)``: the smallest valid one.
    static func key(in items: [RemoteItem], format: RemoteFormatFile) -> String? {
        items.filter { !$0.isDirectory }.compactMap { item -> String? in
            var name = Substring(item.name)
            if format.keepsIntegrityKeyInRecentSyncs {
                guard name.hasSuffix(".\(fileExtension)") else { return nil }
                name = name.dropLast(fileExtension.count + 1)
            }
            return name.utf8.count >= 16 && !name.hasPrefix(".") ? String(name) : nil
        }.min()
    }

    /// The key of the document at `layout` as its directory is now (one listing); `nil` when
    /// there is none (the document does not exist).
    static func currentKey(of layout: DocumentLayout, format: RemoteFormatFile, through remote: CodedRemote) async throws -> String? {
        try await remote.listIfPresent(directory(of: layout, format: format)).flatMap { key(in: $0, format: format) }
    }
}
