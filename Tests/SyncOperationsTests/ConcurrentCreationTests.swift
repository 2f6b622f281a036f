import Foundation
import GRDB
import RemoteProtocol
import SyncCore
import TestSupport
import Testing

/// Two clients that create the same key at once, each pushing before it sees the other's set:
/// every client must end with the same row (the newer creation), whichever set it applies last.
@Suite("Concurrent creation of the same key")
struct ConcurrentCreationTests {
    @Test("both creators and a third client keep the same creation, the newer one, in every order of arrival", arguments: [false, true])
    func concurrentCreationsConverge(recreated: Bool) async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        if recreated {
            // The key existed and was deleted everywhere: both re-create it.
            try anna.execute("INSERT INTO tag VALUES ('shared', 'original')")
            try await anna.sync()
            try await ben.sync()
            try ben.execute("DELETE FROM tag WHERE id = 'shared'")
            try await ben.sync()
            try await anna.sync()
            try await carl.sync()
        }
        try anna.execute("INSERT INTO tag VALUES ('shared', 'from anna')")
        try ben.execute("INSERT INTO tag VALUES ('shared', 'from ben')")
        try await anna.sync()
        // Ben pushes without seeing anna's set; carl too applies ben's creation first, and anna's
        // older one only later.
        let newest = try await Self.whileHidingNewestSet(of: anna, on: remote) {
            try await ben.sync()
            try await carl.sync()
        }

        // The creation with the larger (clock, database id) wins; both may share a millisecond.
        let annaSet = try #require(ChangeSetName(fileName: newest.name))
        let benSet = try #require(try await remote.names(in: Paths.changeSets(of: "ben")).compactMap(ChangeSetName.init(fileName:)).max())
        let winner = LastWriterWins.isNewer(benSet.clock, ben.localStore.databaseID, than: annaSet.clock, anna.localStore.databaseID)
            ? "from ben" : "from anna"
        try await anna.sync()
        try await ben.sync()
        try await carl.sync()
        try await anna.sync()
        for client in [anna, ben, carl] {
            let rows = try client.dump()
            #expect(try client.value("SELECT label FROM tag WHERE id = 'shared'") == winner.databaseValue, "\(client.name): \(rows)")
        }
        #expect(try anna.dump() == ben.dump())
        #expect(try carl.dump() == ben.dump())
    }

    /// The interleaving the watch test met under high-rate deletes and re-inserts: ben's deletion
    /// goes out alone, then both re-create the key and push before seeing the other's set, anna's
    /// creation the newer. Anna then receives ben's older deletion after her own creation; it must
    /// lose to it there too (it used to delete her row: each client ended with the other's value).
    @Test("a re-creation pushed before an older deletion arrives is kept on every client")
    func recreationMeetsOlderDeletion() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        try anna.execute("INSERT INTO tag VALUES ('shared', 'original')")
        try await anna.sync()
        try await ben.sync()
        try ben.execute("DELETE FROM tag WHERE id = 'shared'")
        try await ben.sync()
        try ben.execute("INSERT OR REPLACE INTO tag VALUES ('shared', 'from ben')")
        try ben.localStore.readPendingChanges { _ in }  // stamps ben's re-creation now
        try Self.advanceClock(of: anna, minutes: 1)
        try anna.execute("DELETE FROM tag WHERE id = 'shared'; INSERT OR REPLACE INTO tag VALUES ('shared', 'from anna')")
        try await Self.whileHidingNewestSet(of: ben, on: remote) { try await anna.sync() }
        try await Self.whileHidingNewestSet(of: anna, on: remote) { try await ben.sync() }
        try await anna.sync()
        try await ben.sync()
        try await carl.sync()
        for client in [anna, ben, carl] {
            #expect(try client.value("SELECT label FROM tag WHERE id = 'shared'") == "from anna".databaseValue, "\(client.name)")
            #expect(try !client.localStore.hasPendingChanges(), "\(client.name)")
        }
        #expect(try anna.dump() == ben.dump())
        #expect(try carl.dump() == ben.dump())
    }

    /// Runs `body` while `client`'s newest change set is hidden, as if it had not reached the
    /// server yet, then puts it back; returns its path.
    @discardableResult
    private static func whileHidingNewestSet(
        of client: TestClient, on remote: TestRemote, _ body: () async throws -> Void
    ) async throws -> RemotePath {
        let directory = Paths.changeSets(of: client.name.rawValue)
        let newest = try RemotePath("\(directory)/\(try #require(try await remote.names(in: directory).max()))")
        let hidden = try await remote.store.read(newest)
        try await remote.store.delete(newest)
        try await body()
        try await remote.store.write(hidden, to: newest)
        return newest
    }

    /// Moves a client's clock `minutes` ahead, by applying a set with a future clock (a deletion of
    /// a tag that does not exist), so its next stamped change is later without waiting.
    private static func advanceClock(of client: TestClient, minutes: UInt64) throws {
        let future = HLCTimestamp(physicalMilliseconds: UInt64(Date().timeIntervalSince1970 * 1000) + minutes * 60_000)
        let url = client.directory.url.appendingPathComponent("future-\(UUID().uuidString).syncchg")
        let writer = try ChangeSetWriter(creatingFileAt: url, header: ChangeSetHeader(setID: UUID().uuidString, databaseID: "clock"))
        try writer.write(RowChange(kind: .delete, table: "tag", key: "no such tag".databaseValue, clock: future))
        try writer.finish()
        try client.localStore.applyChangeSet(at: url)
    }

    /// A creator that edits a column of its new row before pushing sends cells of two ages: every
    /// client must weigh each cell by its own clock, as the creator does. The clocks are placed
    /// so that the other creation falls between the two: anna creates (stamped now), ben creates a
    /// minute later, anna edits the title an hour later, then both push.
    @Test("a creation whose cells have different clocks competes cell by cell on every client")
    func creationWithAnEditedCell() async throws {
        let remote = try TestRemote(.memory)
        let (anna, ben) = try await TestClient.syncedPair(on: remote)
        let carl = try TestClient("carl", remote: remote.store)
        try await carl.sync()
        try anna.execute("INSERT INTO note VALUES ('n', NULL, 'anna title', 'anna body', 0)")
        try anna.localStore.readPendingChanges { _ in }  // stamps the creation's clock now
        try Self.advanceClock(of: ben, minutes: 1)
        try ben.execute("INSERT INTO note VALUES ('n', NULL, 'ben title', 'ben body', 0)")
        try ben.localStore.readPendingChanges { _ in }
        try Self.advanceClock(of: anna, minutes: 60)
        try anna.execute("UPDATE note SET title = 'anna title, edited' WHERE id = 'n'")
        try await anna.sync()
        // Carl applies anna's creation first; ben pushes his without seeing anna's set.
        try await carl.sync()
        try await Self.whileHidingNewestSet(of: anna, on: remote) { try await ben.sync() }
        try await carl.sync()
        try await anna.sync()
        try await ben.sync()
        try await carl.sync()
        // Anna's later title wins; ben's later creation gives the body.
        for client in [anna, ben, carl] {
            let row = try client.dump(tables: ["note"])
            #expect(row == [#"note [id:"n" folder_id:NULL title:"anna title, edited" body:"ben body" rank:0]"#], "\(client.name)")
        }
    }
}
