import ArgumentParser
import Foundation
import GRDB
import RemoteProtocol
import SyncCore

/// `rollsync init`: attaches an existing database to a remote document.
///
/// Everything that can fail is checked before the database is touched: the file, the tables (on an
/// in-memory copy of their schema, with the engine's own rules), the remote URL, the connection and
/// the encryption password. Only then are RollingSync's tables, the capture triggers and the
/// settings written, and the document registered.
struct InitCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "init",
        abstract: "Set up a SQLite database for syncing with a remote document."
    )

    @OptionGroup var database: DatabaseOptions

    @Option(name: .long, help: ArgumentHelp("Where the data meets other clients: a URL or a folder path.", valueName: "url"))
    var remote: String

    @Option(name: .customLong("table"), help: ArgumentHelp("A table to sync (repeat for several).", valueName: "name"))
    var tables: [String] = []

    @Flag(name: .customLong("all-tables"), help: "Sync every table that can be synced, and list the ones left out with the reason.")
    var allTables = false

    @Option(name: .customLong("app"), help: ArgumentHelp("The application identifier: the remote data's top folder.", valueName: "id"))
    var applicationID = "rollsync"

    @Option(name: .customLong("document"), help: ArgumentHelp("The document identifier: databases with the same one sync together.", valueName: "id"))
    var documentID = "default"

    @Option(name: .long, help: ArgumentHelp("This client's description, shown to other clients.", valueName: "text"))
    var description: String?

    @Flag(name: .long, inversion: .prefixedNo, help: "Encrypt the remote data if this client creates it (asks for a password).")
    var encrypt = false

    @Option(name: .customLong("key-cache"), help: ArgumentHelp("Directory caching the unlocked encryption key (default: FILE.rollsync-keys).", valueName: "dir"))
    var keyCache: String?

    @OptionGroup var remoteOptions: RemoteOptions
    @OptionGroup var password: PasswordOptions
    @OptionGroup var output: OutputOptions

    func validate() throws {
        if tables.isEmpty && !allTables {
            throw ValidationError("name the tables to sync with --table, or sync every table that can be with --all-tables")
        }
        if !tables.isEmpty && allTables {
            throw ValidationError("--all-tables and --table exclude each other")
        }
        for identifier in [applicationID, documentID] {
            do { _ = try SyncIdentifier(identifier) } catch let error as SyncError { throw ValidationError(error.message) }
        }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let directory = FileManager.default.currentDirectoryPath
        let queue = try DatabaseFile.open(database.db, busyTimeout: database.busyTimeout)
        if try await queue.read({ try CommandLineSettings.read(from: $0) }) != nil {
            throw CommandLineError(.usage, "\(database.db) is already set up for syncing", hint: "run `rollsync sync --db \(database.db)`")
        }
        let (tableNames, leftOut) = try Self.checkTables(allTables ? nil : tables, in: queue, path: database.db)
        let location = try RemoteLocation.parse(remote, settings: remoteOptions.settings(relativeTo: directory), relativeTo: directory)
        let databaseURL = URL(fileURLWithPath: database.db, relativeTo: URL(fileURLWithPath: directory + "/")).standardizedFileURL
        var settings = CommandLineSettings(
            remoteURL: location.url,
            applicationID: applicationID,
            documentID: documentID,
            clientID: UUID().uuidString,
            clientDescription: description ?? "\(ProcessInfo.processInfo.hostName):\(databaseURL.lastPathComponent)",
            encrypted: encrypt,
            keyCacheDirectory: keyCache.map { $0.hasPrefix("/") ? $0 : directory + "/" + $0 } ?? databaseURL.path + ".rollsync-keys",
            remoteSettings: location.settings
        )

        // With --encrypt the password is needed whatever the remote holds: ask before anything.
        var passwordSource = password.source
        if encrypt {
            passwordSource.obtained = try passwordSource.requiredPassword()
        }

        // The remote side: connection, application data, encryption password.
        try location.createFolderIfLocal()
        try await location.withStore(registry: .withRollSyncBackends(), environment: environment) { store in
            let application = try SyncSession.makeApplication(store: store, settings: settings, encrypt: encrypt, password: passwordSource)
            let registration = try await application.register()
            if encrypt && !registration.format.encrypted {
                throw CommandLineError(
                    .usage, "the remote data of \(applicationID) exists and is not encrypted; encryption is chosen once, when it is created",
                    hint: "run init without --encrypt to join it, or use another --app"
                )
            }
            settings.encrypted = registration.format.encrypted

            // Only now the database (under its process lock): RollingSync's tables, triggers,
            // settings, and the document.
            let lock = try await DatabaseFile.lock(database.db, busyTimeout: database.busyTimeout)
            defer { withExtendedLifetime(lock) {} }
            let localStore = try LocalStore(writer: queue)
            for table in try await queue.read({ db in try SyncedTable.registrationOrder(tableNames, in: db) }) {
                try localStore.register(table: table)
            }
            try CommandLineSettings.migrator.migrate(queue)
            let configured = settings
            try await queue.write { db in try configured.write(to: db) }
            let document = try SyncSession.makeDocument(application: application, settings: settings, localStore: localStore)
            let documentRegistration = try await document.register()

            try output.console.emit(
                InitResult(
                    database: database.db,
                    remote: location.displayURL,
                    application: applicationID,
                    document: documentID,
                    client: settings.clientID,
                    tables: tableNames,
                    leftOut: leftOut,
                    encrypted: settings.encrypted,
                    createdApplication: registration.createdApplication,
                    createdDocument: documentRegistration.createdDocument,
                    rowsBeforeInit: documentRegistration.existingRows
                )
            )
        }
    }

    /// Checks that every table exists and can be synced, on an in-memory copy of the tables'
    /// schema (see ``checkCopySchema(in:)``), so a refusal leaves the file untouched.
    ///
    /// With `names` `nil` (`--all-tables`), every table and view of the file is tried: those that
    /// can be synced are returned, the others are left out with the engine's reason (views and
    /// virtual tables included, so the user sees why; not the shadow tables of virtual tables).
    /// - Returns: the tables' names as the database spells them, and the tables left out.
    /// - Throws: the first refusal of a named table; with `--all-tables`, a usage error when no
    ///   table can be synced.
    static func checkTables(
        _ names: [String]?, in queue: DatabaseQueue, path: String
    ) throws -> (tables: [String], leftOut: [InitResult.LeftOut]) {
        let (tables, schema) = try queue.read { db in
            (
                try Row.fetchAll(db, sql: """
                    SELECT name, type FROM pragma_table_list WHERE schema = 'main'
                    AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name NOT LIKE 'rollingsync\\_%' ESCAPE '\\'
                    """).map { (name: $0["name"] as String, type: $0["type"] as String) },
                try checkCopySchema(in: db)
            )
        }
        let copy = try DatabaseQueue()
        try copy.write { db in
            for sql in schema { try db.execute(sql: sql) }
        }
        let checker = try LocalStore(writer: copy)
        guard let names else {
            var accepted: [String] = []
            var leftOut: [InitResult.LeftOut] = []
            // A virtual table's shadow tables go with it: the virtual table is listed, once.
            for table in tables.sorted(by: { $0.name.lowercased() < $1.name.lowercased() }) where table.type != "shadow" {
                do {
                    if let reason = SyncedTable.refusal(ofTableType: table.type) {
                        throw LocalStoreError(.unsupportedTable, table: table.name, detail: reason)
                    }
                    accepted.append(try checker.register(table: table.name).name)
                } catch let error as LocalStoreError where error.code == .unsupportedTable {
                    leftOut.append(InitResult.LeftOut(table: table.name, reason: error.detail ?? error.description))
                }
            }
            guard !accepted.isEmpty else {
                throw CommandLineError(
                    .localDatabase, "no table of \(path) can be synced",
                    hint: leftOut.isEmpty ? "the database has no tables yet" : leftOut.map { "\($0.table): \($0.reason)" }.joined(separator: "; ")
                )
            }
            return (accepted, leftOut)
        }
        let accepted = try names.map { name in
            guard let table = tables.first(where: { $0.name.lowercased() == name.lowercased() }) else {
                let known = tables.filter { $0.type == "table" }.map(\.name).sorted().joined(separator: ", ")
                throw CommandLineError(
                    .usage, "\(path) has no table named '\(name)'",
                    hint: known.isEmpty ? "the database has no tables yet" : "its tables: \(known)"
                )
            }
            if let reason = SyncedTable.refusal(ofTableType: table.type) {
                throw LocalStoreError(.unsupportedTable, table: table.name, detail: reason)
            }
            return try checker.register(table: table.name).name
        }
        return (accepted, [])
    }

    /// The statements of the schema ``checkTables(_:in:path:)`` checks in: the file's ordinary
    /// tables and their indexes (a foreign key may rely on a `CREATE UNIQUE INDEX`), without views,
    /// triggers, virtual tables (FTS, R*Tree) and the shadow tables `CREATE VIRTUAL TABLE` made,
    /// which a replay would make a second time.
    private static func checkCopySchema(in db: Database) throws -> [String] {
        try String.fetchAll(db, sql: """
            SELECT m.sql FROM sqlite_master AS m
            JOIN pragma_table_list AS l ON l.schema = 'main' AND l.name = m.tbl_name AND l.type = 'table'
            WHERE m.type IN ('table', 'index') AND m.sql IS NOT NULL
            AND m.tbl_name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND m.tbl_name NOT LIKE 'rollingsync\\_%' ESCAPE '\\'
            ORDER BY m.type = 'index', m.rowid
            """)
    }
}

/// What `init` did.
struct InitResult: CommandResult {
    var command = "init"
    var database: String
    var remote: String
    var application: String
    var document: String
    var client: String
    var tables: [String]
    /// The tables `--all-tables` left out, each with the reason.
    var leftOut: [LeftOut]
    var encrypted: Bool
    var createdApplication: Bool
    var createdDocument: Bool
    /// The rows the synced tables held before `init`: a creator's first sync uploads them as a
    /// whole store; a joining client's are published by its first sync.
    var rowsBeforeInit: Int

    /// A table left out, and why.
    struct LeftOut: Encodable, Equatable {
        var table: String
        var reason: String
    }

    var humanLines: [String] {
        ["\(database) now syncs tables \(tables.joined(separator: ", ")) with \(remote)",
         "  application \(application)\(createdApplication ? " (created)" : ""), document \(document)"
            + "\(createdDocument ? " (created)" : " (joined)"), client \(client), "
            + (encrypted ? "encrypted" : "not encrypted")]
            + (leftOut.isEmpty ? [] : ["Left out (\(leftOut.count)):"] + leftOut.map { "  \($0.table): \($0.reason)" })
            + rowsLines
            + ["Run `rollsync sync --db \(database)` to sync."]
    }

    /// What becomes of the rows that predate `init`.
    private var rowsLines: [String] {
        guard rowsBeforeInit > 0 else { return [] }
        return createdDocument
            ? ["Its \(rowsBeforeInit) existing rows are not changes: its first sync uploads them as a whole store,",
               "  from which the clients that join start."]
            : ["Its \(rowsBeforeInit) existing rows are published by its first sync, which starts from the newest whole store;",
               "  where the document has the same key, its version is kept (this database's values go to rollingsync_removed_rows)."]
    }
}
