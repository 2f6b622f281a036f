import Foundation
import Logging
import RemoteProtocol

/// What ``ApplicationSyncManager/upgradeFormat()`` did.
public struct FormatUpgradeReport: Sendable, Equatable {
    /// The format version the application had before this call.
    public var previousVersion: Int
    /// The format version it has now.
    public var version: Int
    /// The documents whose integrity key was copied to the new format's place (every document
    /// that has one; empty when the application was already current).
    public var documents: [SyncIdentifier]

    /// True if this call changed the format (false: the application already had the newest).
    public var upgraded: Bool { version != previousVersion }
}

extension ApplicationSyncManager {
    /// Moves the application's remote data to the newest format this build writes (today from 1
    /// to 2: a sync with nothing new then costs one listing, change sets are compressed).
    ///
    /// Refused with ``SyncError/Code/clientsNeedUpgrade`` while any client registered with the
    /// application last synced with a build that cannot read the new format (each client's newest
    /// last-sync record says which format its build reads; a client with no record at all counts
    /// as not ready): nothing is changed then. This client does not count.
    ///
    /// The steps, each safe to interrupt and repeat (calling again after any failure completes the
    /// upgrade; calling it on a current application changes nothing):
    /// 1. every document's integrity key is copied to format 2's place (`RecentSyncs/<key>.integritykey`);
    ///    format 1's place keeps it, for clients that have not seen the upgrade yet;
    /// 2. the new `format.json` is written to `format-upgrade.json`, then over `format.json` (the
    ///    commit point), then `format-upgrade.json` is deleted. On a store that cannot replace
    ///    atomically (SFTP, WebDAV) `format.json` may be missing for a moment, or for good if the
    ///    replacement is cut off: whoever registers then restores it from `format-upgrade.json`.
    ///
    /// Clients that registered before the upgrade keep writing format 1 until they register again
    /// (a new ``ApplicationSyncManager``, or the next `rollsync` command); format 2 readers read
    /// what they write, and they read format 2's change sets, so nothing waits or is lost meanwhile.
    /// The readiness is checked once, before the first write: a client of an old build that
    /// registers and syncs during the upgrade's few requests is not counted (it then refuses the
    /// format-2 application at its next registration, and nothing it wrote is lost).
    /// - Throws: ``SyncError/Code/clientsNeedUpgrade`` as above; ``SyncError/Code/notFound`` if the
    ///   application has no remote data; remote errors (retryable ones mean: call again).
    public func upgradeFormat() async throws -> FormatUpgradeReport {
        let application = try await openForReading()
        let previous = application.format
        let newest = RemoteFormatFile.currentVersion
        let layout = application.layout
        let plain = CodedRemote(store: store, codec: PlaintextCodec())
        guard previous.version < newest else {
            // An upgrade interrupted after its commit point may have left the aside copy.
            try await plain.delete(layout.formatUpgradeFile)
            return FormatUpgradeReport(previousVersion: previous.version, version: previous.version, documents: [])
        }
        let remote = application.remote
        let documents = try await remote.listIfPresent(layout.documents)?.filter(\.isDirectory).compactMap { try? SyncIdentifier($0.name) } ?? []
        let waiting = try await clientsNotReading(version: newest, documents: documents, in: application)
        guard waiting.isEmpty else {
            throw SyncError(
                .clientsNeedUpgrade,
                "format \(newest) waits for \(waiting.count) client(s) whose last sync was by a build that reads format \(previous.version) only: "
                    + waiting.prefix(10).map(\.rawValue).joined(separator: ", ") + (waiting.count > 10 ? ", …" : "")
                    + "; sync each with a current build, or remove those no longer used, then upgrade again"
            )
        }
        var upgraded = previous
        upgraded.version = newest
        upgraded.upgradedFrom = previous.version
        var copied: [SyncIdentifier] = []
        for document in documents {
            let documentLayout = layout.document(document)
            guard let key = try await IntegrityKeyFile.format1Key(of: documentLayout, through: remote) else { continue }
            let path = try await remote.remote { try IntegrityKeyFile.path(for: key, of: documentLayout, format: upgraded) }
            for item in try await remote.listIfPresent(documentLayout.recentSyncs) ?? [] where IntegrityKeyFile.key(in: [item], format: upgraded) != nil {
                // A key of an earlier incarnation of the document (an attempt interrupted before
                // the document was deleted and created again) would be taken instead if smaller.
                if item.path != path { try await remote.delete(item.path) }
            }
            if try await remote.exists(path) == nil {
                try await remote.write(Data(), to: path)
            }
            copied.append(document)
        }
        try await plain.writeJSON(upgraded, to: layout.formatUpgradeFile)
        try await plain.writeJSON(upgraded, to: layout.formatFile)
        try await plain.delete(layout.formatUpgradeFile)
        forgetRegistration()
        logger.notice("remote format upgraded", metadata: ["from": "\(previous.version)", "to": "\(newest)", "documents": "\(copied.count)"])
        return FormatUpgradeReport(previousVersion: previous.version, version: newest, documents: copied.sorted { $0.rawValue < $1.rawValue })
    }

    /// The clients registered with the application, this one aside, whose newest last-sync record
    /// (over every document) is missing, unreadable, or written by a build that reads only formats
    /// below `version`.
    private func clientsNotReading(version: Int, documents: [SyncIdentifier], in application: ApplicationRegistration) async throws -> [SyncIdentifier] {
        let remote = application.remote
        let clients = Set(
            try await remote.listIfPresent(application.layout.clientDevices)?.filter(\.isDirectory).compactMap { try? SyncIdentifier($0.name) } ?? []
        ).subtracting([device.clientID])
        var newest: [SyncIdentifier: (document: SyncIdentifier, marker: RecentSyncName)] = [:]
        for document in documents {
            let markers = RecentSyncName.newestByClient(in: try await remote.listIfPresent(application.layout.document(document).recentSyncs) ?? [])
            for (client, marker) in markers where clients.contains(client) {
                if let known = newest[client], known.marker.millisecondsSince1970 >= marker.millisecondsSince1970 { continue }
                newest[client] = (document, marker)
            }
        }
        var waiting: [SyncIdentifier] = []
        for client in clients {
            guard let (document, marker) = newest[client],
                let record = try await RecentSyncRecord.readable(at: application.layout.document(document).recentSync(marker), from: remote),
                (record.readsFormat ?? 1) >= version
            else {
                waiting.append(client)
                continue
            }
        }
        return waiting.sorted { $0.rawValue < $1.rawValue }
    }

    /// The format file while a format upgrade replaces it, when `format.json` is missing: restored
    /// from `format-upgrade.json` (created exclusively, so a racing upgrade or restorer wins
    /// alike); `nil` when there is nothing to restore and the application has no client, so its
    /// creation was interrupted (and may be completed).
    /// - Throws: ``SyncError/Code/corruptRemoteData`` when `format.json` is missing from an
    ///   application that has clients and no upgrade in progress: re-creating it would start a new
    ///   application (with a new encryption key) over their data.
    func formatFileDuringReplacement(_ plain: CodedRemote) async throws -> RemoteFormatFile? {
        if let replacement = try await RemoteFormatFile.read(at: layout.formatUpgradeFile, from: plain) {
            _ = try await plain.createJSONExclusively(replacement, at: layout.formatFile)
            guard let restored = try await RemoteFormatFile.read(at: layout.formatFile, from: plain) else {
                throw SyncError(.corruptRemoteData, "\(layout.formatFile) was restored from \(layout.formatUpgradeFile), then disappeared")
            }
            logger.notice("format.json restored after an interrupted format upgrade", metadata: ["version": "\(restored.version)"])
            return restored
        }
        let clients = try await plain.listIfPresent(layout.clientDevices)?.filter(\.isDirectory) ?? []
        guard clients.isEmpty else {
            // An upgrade may have completed its replacement (and deleted the aside copy) since.
            if let format = try await RemoteFormatFile.read(at: layout.formatFile, from: plain) {
                return format
            }
            throw SyncError(
                .corruptRemoteData,
                "\(layout.formatFile) is missing, but the application has \(clients.count) registered client(s): it was removed by hand; "
                    + "restore it from a backup (it is not re-created: that would start a new application over their data)"
            )
        }
        return nil
    }
}
