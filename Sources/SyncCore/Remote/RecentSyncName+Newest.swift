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

extension RecentSyncName {
    /// What each client's markers among the listed items of `RecentSyncs/` say about its change
    /// sets: the newest set any of them names (of two sets with the same clock, which happens only
    /// when a set whose upload failed was written again, the one named by the later marker);
    /// ``NewestSet/unannounced`` if one of them is a format-1 name (it says nothing, so neither do
    /// the others). Clients without a marker are absent.
    static func newestSetsByClient(in items: [RemoteItem]) -> [SyncIdentifier: NewestSet] {
        var result: [SyncIdentifier: (newest: NewestSet, time: Int64)] = [:]
        for item in items {
            guard let name = RecentSyncName(fileName: item.name) else { continue }
            let listed = (newest: name.newestSet, time: name.millisecondsSince1970)
            switch (result[name.clientID]?.newest, name.newestSet) {
            case (.unannounced?, _):
                break
            case (.set(let known)?, .set(let set)):
                if (set.clock, name.millisecondsSince1970) > (known.clock, result[name.clientID]?.time ?? 0) {
                    result[name.clientID] = listed
                }
            case (.set?, .nothingPushed):
                break
            case (_, .unannounced), (.nothingPushed?, _), (nil, _):
                result[name.clientID] = listed
            }
        }
        return result.mapValues(\.newest)
    }
}
