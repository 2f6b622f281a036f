import Foundation
import GRDB
import SyncCore

/// What one sync did, for people and for scripts (and recorded as the database's last sync).
struct SyncResult: CommandResult, Codable {
    /// One conflict and the value that won.
    struct ConflictLine: Codable {
        var table: String
        var key: String
        var column: String
        var local: String
        var remote: String
        var kept: String
    }

    /// A change set held back because it needs a newer schema (with the later sets of its client).
    struct UpgradeLine: Codable, Equatable {
        var table: String
        /// The column this database lacks; `nil` when it does not sync the table at all.
        var column: String?
        var client: String
        var changeSet: String

        /// The line as people read it.
        var text: String {
            (column.map { "column \(table).\($0)" } ?? "table \(table)") + " (change set \(changeSet) of client \(client) and its later ones)"
        }
    }

    var command = "sync"
    var database: String
    var appliedSets: Int
    var appliedChanges: Int
    var pushedChanges: Int
    var conflicts: [ConflictLine]
    var warnings: [String]
    /// Schema changes of the synced tables this sync noticed and followed first (optional: the
    /// last sync recorded by an older version has none).
    var schemaChanges: [SchemaChangeLine]?
    /// Change sets held back until this database's schema is migrated (exit code 5).
    var upgradeRequired: [UpgradeLine]?
    /// The whole store the sync installed first (a first join, history vacuumed, a reset), as
    /// `<unit> of client <client>` (optional: absent when none was, and in older records).
    var installedWholeStore: String?
    /// The whole store the sync uploaded last (after creating the document from a database that
    /// held rows), as `<unit>` (optional: absent when none was, and in older records).
    var uploadedWholeStore: String?
    var requests: Int
    /// The requests among ``requests`` that retried a call after a transient failure (optional:
    /// the last sync recorded by an older version has none).
    var retriedRequests: Int?
    var bytesUploaded: Int64
    var bytesDownloaded: Int64
    var seconds: Double
    var finishedAt: Date

    /// The result of `report` for `database`.
    init(database: String, report: SyncReport) {
        self.database = database
        appliedSets = report.appliedSets
        appliedChanges = report.appliedChanges
        pushedChanges = report.pushedChanges
        conflicts = report.conflicts.map { resolved in
            let conflict = resolved.conflict
            let kept: DatabaseValue = switch resolved.resolution {
            case .local: conflict.localValue
            case .remote: conflict.remoteValue
            case .merged(let value): value
            }
            return ConflictLine(
                table: conflict.table, key: conflict.key.readableText, column: conflict.column,
                local: conflict.localValue.readableText, remote: conflict.remoteValue.readableText, kept: kept.readableText
            )
        }
        warnings = report.warnings.map(\.description)
        schemaChanges = report.schemaChanges.map(SchemaChangeLine.init)
        upgradeRequired = report.warnings.compactMap { warning in
            guard case .upgradeRequired(let table, let column, let client, let fileName) = warning else { return nil }
            return UpgradeLine(table: table, column: column, client: client.rawValue, changeSet: fileName)
        }
        installedWholeStore = report.wholeStoreInstalled.map { "\($0.unit.directoryName) of client \($0.client)" }
        uploadedWholeStore = report.wholeStoreUploaded?.unit.directoryName
        requests = report.requests
        retriedRequests = report.retriedRequests
        bytesUploaded = report.bytesUploaded
        bytesDownloaded = report.bytesDownloaded
        seconds = report.finishedAt.timeIntervalSince(report.startedAt)
        finishedAt = report.finishedAt
    }

    var humanLines: [String] {
        ["\(database): \(summary)"] + detailLines
    }

    /// What the sync did, in one line without the database: `applied … changes from … change sets,
    /// pushed … changes; … requests, … up, … down, … s`, the requests followed by `(… retried)`
    /// when some were retries.
    var summary: String {
        var retried = ""
        if let retriedRequests, retriedRequests > 0 { retried = " (\(retriedRequests) retried)" }
        return "applied \(appliedChanges) changes from \(appliedSets) change sets, pushed \(pushedChanges) changes; "
            + "\(requests) requests\(retried), \(Self.bytes(bytesUploaded)) up, \(Self.bytes(bytesDownloaded)) down, "
            + String(format: "%.2f s", seconds)
    }

    /// The indented lines under the summary: whole stores installed and uploaded, schema changes
    /// followed, conflicts, warnings.
    var detailLines: [String] {
        var lines = installedWholeStore.map { ["  installed whole store \($0) first"] } ?? []
        lines += uploadedWholeStore.map { ["  uploaded whole store \($0), from which joining clients start"] } ?? []
        lines += (schemaChanges ?? []).map { "  schema: \($0.text)" }
        lines += conflicts.map {
            "  conflict: \($0.table) \($0.key) \($0.column): here \($0.local), elsewhere \($0.remote) → kept \($0.kept)"
        }
        lines += warnings.map { "  warning: \($0)" }
        return lines
    }

    /// The error ending a sync that held change sets back for a newer schema (exit code 5; the
    /// result is printed first), or `nil` if it held none back.
    var upgradeRequiredError: CommandLineError? {
        guard let held = upgradeRequired, !held.isEmpty else { return nil }
        let clients = Set(held.map(\.client)).count
        let needs = Set(held.map { line in line.column.map { "column \(line.table).\($0)" } ?? "table \(line.table)" })
            .sorted().joined(separator: ", ")
        var steps: [String] = []
        let columns = held.filter { $0.column != nil }
        if !columns.isEmpty {
            let example = columns[0]
            steps.append(
                "add the missing columns as the other clients did (`sqlite3 \(database) \"ALTER TABLE \(example.table) ADD COLUMN \(example.column ?? "") …\"`, "
                    + "or `rollsync migrate --db \(database) --sql \"…\"`)"
            )
        }
        let tables = Array(Set(held.filter { $0.column == nil }.map(\.table))).sorted()
        if !tables.isEmpty {
            steps.append("start syncing the new tables (create them if needed, then `rollsync tables add \(tables.joined(separator: " ")) --db \(database)`)")
        }
        return CommandLineError(
            .upgradeRequired,
            "upgrade required: change sets from \(clients) client\(clients == 1 ? "" : "s") need a newer schema (\(needs)) and were held back; "
                + "everything else was synced",
            hint: "migrate this database's schema: " + steps.joined(separator: "; ") + "; then run `rollsync sync --db \(database)` again"
        )
    }

    /// `512 B`, `12.3 kB`, `4.0 MB` (decimal units).
    static func bytes(_ count: Int64) -> String {
        let units = ["B", "kB", "MB", "GB", "TB"]
        var value = Double(count)
        var unit = 0
        while value >= 1000 && unit < units.count - 1 {
            value /= 1000
            unit += 1
        }
        return unit == 0 ? "\(count) B" : String(format: "%.1f %@", value, units[unit])
    }
}
