import Foundation
import Logging
import RemoteProtocol

extension DocumentSyncManager {
    /// Uploads a snapshot of the local database as this client's new whole store, then removes its
    /// previous one (in an order of writes where a reader never sees a half-written unit, and an
    /// interruption leaves the previous unit usable; Docs/RemoteFormat.md has it).
    ///
    /// **Unpushed local changes are pushed first**: the upload runs a full sync, then takes the
    /// snapshot; a snapshot that still holds unpushed changes (the application wrote meanwhile)
    /// is not uploaded, since other clients would get those rows without the change set that
    /// carries them: the sync and snapshot are retried, up to three times.
    /// - Parameter keepingHistoryFor: keep this client's older whole stores taken within this
    ///   period, and the newest one before it, so that point-in-time restore can start from them
    ///   (see ``VacuumOptions/keepHistoryFor``); `nil` (the default) deletes every older one.
    /// - Returns: the new unit; the sync's effects are as for ``synchronize()``.
    /// - Throws: ``SyncError/Code/busy`` if local changes kept arriving, or the errors of
    ///   ``synchronize()``.
    public func uploadWholeStore(keepingHistoryFor: TimeInterval? = nil) async throws -> WholeStoreUpload {
        try await exclusively {
            for _ in 0..<3 {
                _ = try await self.performSync(uploadingCreationStore: false)
                let application = try await self.application.register()
                guard let key = try self.state.registration()?.integrityKey else { continue }
                if let upload = try await self.uploadSnapshot(application, key, application.remote, keepingHistoryFor: keepingHistoryFor) {
                    self.application.logger.debug("whole store uploaded", metadata: ["document": "\(self.documentID)", "unit": "\(upload.unit)"])
                    return upload
                }
            }
            throw SyncError(.busy, "local changes kept arriving while the whole store of \(self.documentID) was taken; nothing was uploaded")
        }
    }

    /// Downloads a whole store and installs it in place of the local synced data, then syncs the
    /// tail (every change set, this client's included, that the store does not contain). This is
    /// the **bootstrap** of a new client; on an existing client it re-bases everything.
    ///
    /// - Unpushed local changes are **kept**: re-applied on top of the installed store and pushed
    ///   by the tail sync (see ``WholeStoreInstallation``).
    /// - **Open connections**: nothing is swapped on disk. The installation is one write
    ///   transaction through the database writer the application gave, so the application's
    ///   connections stay valid; its readers see the old data or the new, never a mix, and the
    ///   application should reload what it displays afterwards (observe the database as usual).
    /// - The unit is verified (sizes, SHA-256, SQLite `quick_check`) before anything local changes;
    ///   a damaged or truncated unit is refused and the local database is untouched.
    /// - Parameter client: whose unit to install; `nil` picks the newest usable unit of any client
    ///   (by the clock in its name, never server times).
    /// - Returns: the tail sync's report, with ``SyncReport/wholeStoreInstalled`` set.
    /// - Throws: ``SyncError/Code/noWholeStore`` if there is no usable unit,
    ///   ``SyncError/Code/corruptRemoteData`` if none verifies, or the errors of ``synchronize()``.
    public func downloadWholeStore(from client: SyncIdentifier? = nil) async throws -> SyncReport {
        try await exclusively {
            // Registering again (safe, three requests) adopts the document's current integrity key,
            // with the delegate's decisions if the document was reset or this client removed.
            let application = try await self.application.register()
            let registration = try await self.registerDocument(application, through: application.remote)
            guard let key = try self.state.registration()?.integrityKey else {
                throw SyncError(.notRegistered, "the registration of document \(self.documentID) was not recorded in the database")
            }
            guard let installed = try await self.installWholeStore(from: client, key, application, application.remote) else {
                throw SyncError(
                    .noWholeStore,
                    client.map { "client \($0) has no usable whole store of document \(self.documentID)" }
                        ?? "document \(self.documentID) has no usable whole store"
                )
            }
            var report = try await self.performSync()
            report.recordInstalled(installed)
            report.warnings = registration.warnings + report.warnings
            return report
        }
    }

    /// Installs the newest usable unit (see ``WholeStoreDownloader``); `nil` if there is none.
    func installWholeStore(
        from client: SyncIdentifier?, _ integrityKey: String, _ application: ApplicationRegistration, _ remote: CodedRemote
    ) async throws -> WholeStoreDownload? {
        let installed = try await WholeStoreDownloader(
            remote: remote, layout: application.layout.document(documentID), integrityKey: integrityKey,
            resolver: delegate.conflictResolver,
            progress: { [broadcaster] in broadcaster.send($0) }, configuration: localStore.applicationConfiguration
        ).installNewest(from: client, into: localStore)
        if let installed {
            self.application.logger.debug("whole store installed", metadata: [
                "document": "\(documentID)", "client": "\(installed.client)", "unit": "\(installed.unit)",
                "appliedSets": "\(installed.installation.appliedSetCount)", "rebasedRows": "\(installed.installation.rebasedChanges)",
                "conflicts": "\(installed.installation.conflicts.count)", "rules": "\(installed.installation.warnings.count)",
            ])
        }
        return installed
    }

    /// Snapshots the database and uploads it, recording that a creation's whole store is
    /// uploaded; `nil` (nothing uploaded) if the snapshot holds unpushed changes.
    func uploadSnapshot(
        _ application: ApplicationRegistration, _ integrityKey: String, _ remote: CodedRemote, keepingHistoryFor: TimeInterval? = nil
    ) async throws -> WholeStoreUpload? {
        broadcaster.send(SyncProgress(phase: .snapshotting))
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("rollingsync-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: directory) }
        let snapshot = directory.appendingPathComponent("snapshot.sqlite")
        let clock: HLCTimestamp
        let contents: (appliedSetIDs: [String], pendingChanges: Int)
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            // The newer of the data's clock and the wall clock: units order by when they were
            // taken, and never before the data they hold.
            let now = HLCTimestamp(physicalMilliseconds: UInt64(max(0, Date().timeIntervalSince1970 * 1000)))
            let localStore = localStore
            (clock, contents) = try await localStore.perform {
                let clock = max(try localStore.currentClock(), now)
                try localStore.snapshot(to: snapshot)
                return (clock, try LocalStore.inspectSnapshot(at: snapshot, configuration: localStore.applicationConfiguration))
            }
        } catch {
            throw SyncError(.local, "cannot take a snapshot of the local database: \(error)", underlying: error)
        }
        guard contents.pendingChanges == 0 else { return nil }
        let upload = try await WholeStoreUploader(
            remote: remote, layout: application.layout.document(documentID), clientID: application.clientID, integrityKey: integrityKey,
            progress: { [broadcaster] in broadcaster.send($0) }, keepHistoryFor: keepingHistoryFor
        ).upload(snapshot: snapshot, appliedSetIDs: contents.appliedSetIDs, clock: clock)
        try state.recordWholeStoreUploaded()
        return upload
    }
}

extension DocumentRegistration {
    /// Whether the local data must be re-based on a whole store (when one exists): this client
    /// was removed from the document, or the document was reset, so its history is not the
    /// other clients' history any more.
    var needsWholeStore: Bool {
        warnings.contains { warning in
            switch warning {
            case .clientWasRemoved, .documentWasReset: return true
            default: return false
            }
        }
    }
}
