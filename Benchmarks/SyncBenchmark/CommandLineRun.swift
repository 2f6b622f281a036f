import Foundation

/// What one child process cost: wall seconds, CPU seconds (user and system) and peak resident
/// memory, from `wait4`.
struct ChildCost {
    var seconds: Double
    var cpuSeconds: Double
    var peakBytes: Int
}

/// Runs `arguments` (a path to an executable first) with standard input from `input` (if any)
/// and standard output and error discarded, and waits for it.
/// - Throws: `CocoaError(.executableLoad)` if it cannot start or exits with a failure.
func runChild(_ arguments: [String], input: URL? = nil) throws -> ChildCost {
    var actions: posix_spawn_file_actions_t = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, input?.path ?? "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    var pid: pid_t = 0
    let start = ContinuousClock.now
    let arguments = arguments.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    guard let executable = arguments[0], posix_spawn(&pid, executable, &actions, nil, arguments, environ) == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: arguments[0].map { String(cString: $0) } ?? ""])
    }
    var status: Int32 = 0
    var usage = rusage()
    while wait4(pid, &status, 0, &usage) == -1 && errno == EINTR {}
    let elapsed = ContinuousClock.now - start
    guard status == 0 else {
        throw CocoaError(.executableLoad, userInfo: [NSFilePathErrorKey: String(cString: executable), "status": status])
    }
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return ChildCost(
        seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18,
        cpuSeconds: seconds(usage.ru_utime) + seconds(usage.ru_stime),
        peakBytes: usage.ru_maxrss * 1024
    )
}

/// Section 9's figures.
struct CommandLineRunCosts {
    var rows: Int
    /// `sqlite3` inserting the rows (one statement each, one transaction) into a table without sync.
    var plainInsert: ChildCost
    /// The same inserts into a table whose trigger appends one bare row per insert to a log
    /// table: the floor of any capture by triggers.
    var bareTriggerInsert: ChildCost
    /// The same inserts with capture on (the table set up with `rollsync init`).
    var capturedInsert: ChildCost
    /// The pushing client's first `rollsync sync` after those inserts.
    var firstPush: ChildCost
    /// The other client's `rollsync sync` applying them.
    var apply: ChildCost
    /// `rollsync push-store` on the pushing client, and `pull-store` on a new client.
    var pushStore: ChildCost
    var pullStore: ChildCost
    /// `pull-store` on the receiving client, which holds the same rows already: the store is
    /// installed in place of its synced data, in one transaction (a re-base).
    var pullStoreInPlace: ChildCost
    /// The physical floor of a bootstrap: copying the database file, and `PRAGMA integrity_check`.
    var fileCopy: ChildCost
    var integrityCheck: ChildCost
    /// Bytes of the pushing client's database file, and of the compressed store push-store
    /// uploaded from it (what pull-store downloads).
    var databaseFile: Int, uploadedStore: Int
    /// Bytes of the synced table (with its indexes) and of RollingSync's tables (with theirs), on
    /// the pushing client and on the receiving one, after the sync.
    var pusherData: Int, pusherMetadata: Int
    var receiverData: Int, receiverMetadata: Int
    /// Bytes of one copy of every row's name (its key, or for an integer key a global identity)
    /// in a b-tree of its own: the floor of any metadata that names rows, as the merge rules'
    /// per-row creation clock must.
    var keyCopy: Int
}

/// The key of section 9's table.
enum CommandLineRunKey: String, CaseIterable {
    /// `id TEXT PRIMARY KEY`, a UUID the app assigns.
    case text = "a TEXT key (a UUID)"
    /// `id INTEGER PRIMARY KEY`, assigned by SQLite: RollingSync names each row by a global
    /// identity of its own (Docs/Conflicts.md, "Integer keys").
    case integer = "an INTEGER PRIMARY KEY"

    var schema: String {
        let key = self == .text ? "id TEXT PRIMARY KEY NOT NULL" : "id INTEGER PRIMARY KEY"
        return "CREATE TABLE items (\(key), name TEXT, quantity INTEGER, price REAL, note TEXT, flag INTEGER)"
    }

    /// The insert of row `index`.
    func insert(_ index: Int) -> String {
        let values = "'item \(index)', \(index), \(Double(index) * 0.25), 'note', \(index % 2)"
        return switch self {
        case .text: "INSERT INTO items VALUES ('\(UUID().uuidString)', \(values));\n"
        case .integer: "INSERT INTO items (name, quantity, price, note, flag) VALUES (\(values));\n"
        }
    }

    /// What names a row wherever RollingSync refers to it: the key itself, or for an integer key
    /// a global identity (its id, `@`, 16 hexadecimal digits).
    var rowName: String {
        self == .text ? "id" : "id || '@' || lower(hex(randomblob(8)))"
    }
}

/// Section 9: the `rollsync` binary (next to this benchmark) and `sqlite3` as separate processes
/// on `rows` rows of six short columns and a key of kind `key`, through a folder remote: inserting
/// with and without capture, the first push, the apply, a bootstrap through push-store and
/// pull-store beside a file copy and an integrity check, pull-store on a client that holds the
/// rows already, and the size of RollingSync's tables beside the table's and beside a copy of the
/// rows' names.
func measureCommandLineRun(rows: Int, key: CommandLineRunKey, rollsync: URL, in directory: URL) throws -> CommandLineRunCosts {
    let scratch = directory.appendingPathComponent("cli-\(UUID().uuidString)")
    let remote = scratch.appendingPathComponent("remote")
    try FileManager.default.createDirectory(at: remote, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: scratch) }
    let sqlite3 = "/usr/bin/sqlite3"
    let schema = key.schema
    func database(_ name: String) throws -> String {
        let path = scratch.appendingPathComponent(name).path
        _ = try runChild([sqlite3, path, schema])
        return path
    }
    func rollsyncRun(_ arguments: String...) throws -> ChildCost { try runChild([rollsync.path] + arguments) }

    let inserts = scratch.appendingPathComponent("inserts.sql")
    try Data().write(to: inserts)
    let handle = try FileHandle(forWritingTo: inserts)
    var text = "BEGIN;\n"
    for index in 1...rows {
        text += key.insert(index)
        if text.utf8.count > 1 << 20 {
            try handle.write(contentsOf: Data(text.utf8))
            text = ""
        }
    }
    try handle.write(contentsOf: Data((text + "COMMIT;\n").utf8))
    try handle.close()

    let plain = try database("plain.db")
    let plainInsert = try runChild([sqlite3, plain], input: inserts)
    let bare = try database("bare.db")
    _ = try runChild([
        sqlite3, bare,
        """
        CREATE TABLE log (seq INTEGER PRIMARY KEY, wall REAL NOT NULL, row_key NOT NULL);
        CREATE TRIGGER log_insert AFTER INSERT ON items BEGIN INSERT INTO log (wall, row_key) VALUES (julianday(), new.id); END
        """,
    ])
    let bareTriggerInsert = try runChild([sqlite3, bare], input: inserts)
    let (pusher, receiver, newcomer) = (try database("pusher.db"), try database("receiver.db"), try database("newcomer.db"))
    for path in [pusher, receiver, newcomer] {
        _ = try rollsyncRun("init", "--db", path, "--remote", remote.path, "--table", "items")
    }
    let capturedInsert = try runChild([sqlite3, pusher], input: inserts)
    let firstPush = try rollsyncRun("sync", "--db", pusher)
    let apply = try rollsyncRun("sync", "--db", receiver)
    func sizes(_ path: String) throws -> (data: Int, metadata: Int) {
        let output = scratch.appendingPathComponent("sizes.txt")
        let query = scratch.appendingPathComponent("sizes.sql")
        try """
            .output \(output.path)
            SELECT sum(CASE WHEN name = 'items' OR name LIKE 'sqlite_autoindex_items_%' THEN pgsize ELSE 0 END),
                   sum(CASE WHEN name LIKE 'rollingsync%' OR name LIKE 'sqlite_autoindex_rollingsync%' OR name = 'key_copy' THEN pgsize ELSE 0 END)
            FROM dbstat;
            """.write(to: query, atomically: true, encoding: .utf8)
        _ = try runChild([sqlite3, path], input: query)
        let numbers = try String(contentsOf: output, encoding: .utf8).split(whereSeparator: { $0 == "|" || $0.isNewline }).compactMap { Int($0) }
        guard numbers.count == 2 else { throw CocoaError(.fileReadCorruptFile) }
        return (numbers[0], numbers[1])
    }
    let (pusherData, pusherMetadata) = try sizes(pusher)
    let (receiverData, receiverMetadata) = try sizes(receiver)
    _ = try runChild([sqlite3, plain, "CREATE TABLE key_copy (id PRIMARY KEY) WITHOUT ROWID; INSERT INTO key_copy SELECT \(key.rowName) FROM items ORDER BY 1"])
    let keyCopy = try sizes(plain).metadata
    let pushStore = try rollsyncRun("push-store", "--db", pusher)
    let pullStore = try rollsyncRun("pull-store", "--db", newcomer)
    let pullStoreInPlace = try rollsyncRun("pull-store", "--db", receiver)
    func fileSize(_ url: URL) throws -> Int { try url.resourceValues(forKeys: [.fileSizeKey]).fileSize ?? 0 }
    let remoteFiles = FileManager.default.enumerator(at: remote, includingPropertiesForKeys: [.fileSizeKey])?.allObjects as? [URL] ?? []
    let uploadedStore = try remoteFiles.filter { $0.lastPathComponent.hasPrefix("store.sqlite.") }.map(fileSize).reduce(0, +)
    let databaseFile = try fileSize(URL(fileURLWithPath: pusher))
    let copy = scratch.appendingPathComponent("copy.db").path
    let fileCopy = try runChild(["/bin/cp", pusher, copy])
    let integrityCheck = try runChild([sqlite3, copy, "PRAGMA integrity_check"])
    return CommandLineRunCosts(
        rows: rows, plainInsert: plainInsert, bareTriggerInsert: bareTriggerInsert, capturedInsert: capturedInsert, firstPush: firstPush, apply: apply,
        pushStore: pushStore, pullStore: pullStore, pullStoreInPlace: pullStoreInPlace, fileCopy: fileCopy, integrityCheck: integrityCheck,
        databaseFile: databaseFile, uploadedStore: uploadedStore,
        pusherData: pusherData, pusherMetadata: pusherMetadata, receiverData: receiverData, receiverMetadata: receiverMetadata,
        keyCopy: keyCopy
    )
}
