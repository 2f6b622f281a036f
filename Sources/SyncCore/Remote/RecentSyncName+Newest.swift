import RemoteProtocol

extension RecentSyncName {
    /// Each client's newest marker among the listed items of `RecentSyncs/` (a client normally has
    /// one; more are left when replacing its marker failed). Other names are ignored.
    public static func newestByClient(in items: [RemoteItem]) -> [SyncIdentifier: RecentSyncName] {
        var newest: [SyncIdentifier: RecentSyncName] = [:]
        for item in items {
            guard let name = RecentSyncName(fileName: item.name) else { continue }
            if let known = newest[name.clientID], known.millisecondsSince1970 >= name.millisecondsSince1970 { continue }
            newest[name.clientID] = name
        }
        return newest
    }
}
