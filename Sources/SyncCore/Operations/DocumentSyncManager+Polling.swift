extension DocumentSyncManager {
    /// The names of the other clients' newest last-sync markers of this document: one listing of
    /// `RecentSyncs/` (registration is cached). A change means another client synced.
    func otherClientsSyncMarkers() async throws -> Set<String> {
        let application = try await application.register()
        let layout = application.layout.document(documentID)
        let listed = try await application.remote.listIfPresent(layout.recentSyncs) ?? []
        return Set(RecentSyncName.newestByClient(in: listed).filter { $0.key != application.clientID }.values.map(\.fileName))
    }
}
