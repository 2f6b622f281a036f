extension DocumentSyncManager {
    /// What the other clients of this document have published, from one listing of `RecentSyncs/`
    /// (registration is cached): a change means there may be something to apply.
    ///
    /// Format 2: each client's newest announced change set, so another client's sync that found
    /// nothing new changes nothing (two idle clients polling never wake each other). Format 1: the
    /// names of their newest markers, which change with every sync.
    func otherClientsPublications() async throws -> Set<String> {
        let application = try await application.register()
        let layout = application.layout.document(documentID)
        let listed = try await application.remote.listIfPresent(layout.recentSyncs) ?? []
        guard application.format.announcesNewestSets else {
            return Set(RecentSyncName.newestByClient(in: listed).filter { $0.key != application.clientID }.values.map(\.fileName))
        }
        return Set(
            RecentSyncName.newestSetsByClient(in: listed).filter { $0.key != application.clientID }.map { client, newest in
                switch newest {
                case .set(let set): "\(client)@\(set.fileName)"
                case .nothingPushed, .unannounced: "\(client)@\(newest)"
                }
            }
        )
    }
}
