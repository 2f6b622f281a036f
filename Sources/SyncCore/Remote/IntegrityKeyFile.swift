import RemoteProtocol

/// Where a document keeps its integrity key: an empty, plain file whose **name** is the key (a
/// UUID string), created with the document.
///
/// - Format 1: `IntegrityKey/<key>`.
/// - Format 2: `RecentSyncs/<key>.integritykey`, next to the last-sync markers, so the one listing
///   of `RecentSyncs/` a sync makes both checks the key and tells what every client published.
/// - Format 2 upgraded from 1 (``RemoteFormatFile/mayHoldFormat1IntegrityKeys``): the upgrade copies
///   every document's key to format 2's place and leaves format 1's, which clients that have not
///   seen the upgrade yet still check. A document such a client creates afterwards has its key in
///   format 1's place only; readers look there when `RecentSyncs/` has no key (one more listing,
///   only then).
///
/// Should a race ever leave two keys, every client takes the smallest. Names that are not keys
/// (shorter than 16 characters, starting with `.`, or, in format 2's place, without the extension)
/// are ignored.
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

    /// True if documents of `format` have their key in format 1's place: format 1, and format 2
    /// upgraded from it (there too, so that clients that have not seen the upgrade find it).
    static func keepsFormat1Key(_ format: RemoteFormatFile) -> Bool {
        !format.keepsIntegrityKeyInRecentSyncs || format.mayHoldFormat1IntegrityKeys
    }

    /// Where a new document of `format` gets its key `key`, in the order to write them:
    /// ``path(for:of:format:)``, after format 1's place in an application upgraded from format 1
    /// (a creation interrupted between the two leaves the key where readers fall back to).
    static func pathsForNewKey(_ key: String, of layout: DocumentLayout, format: RemoteFormatFile) throws -> [RemotePath] {
        let format1Place = try layout.integrityKeys.appending(RemotePath(components: [key]))
        let own = try path(for: key, of: layout, format: format)
        return keepsFormat1Key(format) && own != format1Place ? [format1Place, own] : [own]
    }

    /// The key named by the listed items of ``directory(of:format:)``: the smallest valid one.
    static func key(in items: [RemoteItem], format: RemoteFormatFile) -> String? {
        key(in: items, withExtension: format.keepsIntegrityKeyInRecentSyncs)
    }

    /// The key of the document at `layout`, given the listing of ``directory(of:format:)``
    /// (`nil` when the directory is missing): the key listed there, else, where format 1's place
    /// may hold it, the one there (one more listing).
    static func key(
        listed items: [RemoteItem]?, of layout: DocumentLayout, format: RemoteFormatFile, through remote: CodedRemote
    ) async throws -> String? {
        if let key = items.flatMap({ key(in: $0, format: format) }) { return key }
        guard format.mayHoldFormat1IntegrityKeys else { return nil }
        return try await format1Key(of: layout, through: remote)
    }

    /// The key of the document at `layout` as its directory is now (one listing; two where
    /// format 1's place may hold it and the first found none); `nil` when there is none (the
    /// document does not exist).
    static func currentKey(of layout: DocumentLayout, format: RemoteFormatFile, through remote: CodedRemote) async throws -> String? {
        try await key(listed: remote.listIfPresent(directory(of: layout, format: format)), of: layout, format: format, through: remote)
    }

    /// The key of a document of format 1, as ``currentKey(of:format:through:)`` finds it there:
    /// what a format upgrade copies.
    static func format1Key(of layout: DocumentLayout, through remote: CodedRemote) async throws -> String? {
        try await remote.listIfPresent(layout.integrityKeys).flatMap { key(in: $0, withExtension: false) }
    }

    private static func key(in items: [RemoteItem], withExtension: Bool) -> String? {
        items.filter { !$0.isDirectory }.compactMap { item -> String? in
            var name = Substring(item.name)
            if withExtension {
                guard name.hasSuffix(".\(fileExtension)") else { return nil }
                name = name.dropLast(fileExtension.count + 1)
            }
            return name.utf8.count >= 16 && !name.hasPrefix(".") ? String(name) : nil
        }.min()
    }
}
