extension DocumentSyncManager {
    /// Removes this client's change sets that every registered client has applied and every whole
    /// store contains (Docs/RemoteFormat.md has the rule and the order of writes), after a sync
    /// that records what this client applied whatever its
    /// ``SyncConfiguration/lastSyncRecordInterval``: a vacuum on every client (a daily job) keeps
    /// every client's record current for the others. Safe to run on several clients at once; it
    /// never removes a set a registered, non-retired client still needs.
    ///
    /// A client treated as retired (``VacuumOptions/retireClientsSilentFor``) that syncs again
    /// finds the vacuum marker, installs the newest usable whole store keeping its unpushed
    /// changes, and syncs on (``SyncReport/wholeStoreInstalled``).
    /// - Returns: what was removed, and which clients hold the rest back since when.
    public func vacuum(_ options: VacuumOptions = VacuumOptions()) async throws -> VacuumReport {
        try await exclusively {
            _ = try await self.performSync(recording: true)
            let application = try await self.application.register()
            guard let key = try self.state.registration()?.integrityKey else {
                throw SyncError(.notRegistered, "the registration of document \(self.documentID) was not recorded in the database")
            }
            return try await Vacuum(
                remote: application.remote, layout: application.layout.document(self.documentID),
                clientID: application.clientID, integrityKey: key, options: options
            ).run()
        }
    }
}
