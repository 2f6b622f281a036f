import RemoteProtocol

/// What the other clients of a document have published, as one poll sees it (see
/// ``DocumentSyncManager/otherClientsPublications()``).
struct RemotePublications: Equatable, Sendable {
    /// Format 2: the change sets other clients announced that are not applied here. Format 1: the
    /// names of the other clients' newest last-sync markers.
    var names: Set<String>
    /// Format 2: ``names`` are sets still to fetch, so a sync stays due while any remain, even
    /// unchanged (a set is announced just before its upload, so a poll can see it before it is
    /// there). Format 1: only a change of ``names`` calls for a sync.
    var announcesSets: Bool

    /// Whether this poll shows something `known` (the previous poll) did not: a newly announced set
    /// (format 2), or any change of the markers (format 1).
    func isNews(comparedTo known: RemotePublications?) -> Bool {
        guard let known else { return true }
        return announcesSets ? !names.isSubset(of: known.names) : names != known.names
    }
}

extension DocumentSyncManager {
    /// What the other clients of this document have published, from one listing of `RecentSyncs/`
    /// (registration is cached).
    ///
    /// Format 2: the sets other clients announced that are not applied here, so another client's
    /// sync that published nothing changes nothing (two idle clients polling never wake each
    /// other). Format 1: the names of their newest markers, which change with every sync.
    /// - Throws: ``SyncError/Code/closed`` once the manager was closed.
    func otherClientsPublications() async throws -> RemotePublications {
        try refuseIfClosed()
        let application = try await application.register()
        let layout = application.layout.document(documentID)
        let listed = try await application.remote.listIfPresent(layout.recentSyncs) ?? []
        guard application.format.announcesNewestSets else {
            let names = RecentSyncName.newestByClient(in: listed).filter { $0.key != application.clientID }.values.map(\.fileName)
            return RemotePublications(names: Set(names), announcesSets: false)
        }
        var awaited: Set<String> = []
        for (client, newest) in RecentSyncName.newestSetsByClient(in: listed) where client != application.clientID {
            switch newest {
            case .set(let set) where try !localStore.isApplied(setID: set.id):
                awaited.insert("\(client)@\(set.fileName)")
            case .unannounced:
                awaited.insert("\(client)@unannounced")
            case .set, .nothingPushed:
                continue
            }
        }
        return RemotePublications(names: awaited, announcesSets: true)
    }

    /// Notifications that the remote's `RecentSyncs/` changed (another client may have synced),
    /// where the backend can tell (a local folder); `nil` otherwise (see
    /// `RemoteStore.changeNotifications(in:)`).
    func remoteChangeNotifications() async throws -> AsyncStream<Void>? {
        let application = try await application.register()
        return application.remote.store.changeNotifications(in: application.layout.document(documentID).recentSyncs)
    }
}
