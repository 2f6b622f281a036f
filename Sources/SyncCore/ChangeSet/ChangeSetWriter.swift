import Foundation
import GRDB

/// Encodes row changes into a change set, streaming them to a file as they come: memory use is one
/// record plus a 64 KiB output buffer, whatever the number of changes. Values of 64 KiB or more
/// are written from the change's own storage, never copied into the record, so a change holding a
/// large BLOB or TEXT costs no memory beyond the value itself.
///
/// Call ``write(_:)`` for each change, then ``finish()``, which writes the trailer (change count,
/// clock range, CRC-32) and flushes. A set whose ``finish()`` was never called has no trailer and is
/// refused by every reader as truncated.
///
/// The format is described byte by byte in Docs/RemoteFormat.md ("Change sets").
package final class ChangeSetWriter {
    private struct TableEntry {
        var index: Int
        var columnIndexes: [String: Int]

        /// True when every column of `columns` has an index here and none appears twice: the
        /// common case, checked without allocating for tables of up to 64 columns (wider ones
        /// always take the full check of ``tableEntry(for:)``).
        func indexesDistinctly(_ columns: [RowChange.Column]) -> Bool {
            guard columnIndexes.count <= UInt64.bitWidth else { return false }
            var seen: UInt64 = 0
            for column in columns {
                guard let index = columnIndexes[column.name] else { return false }
                let bit: UInt64 = 1 << UInt64(index)
                guard seen & bit == 0 else { return false }
                seen |= bit
            }
            return true
        }
    }

    private let output: FileHandle
    private let closesOutput: Bool
    private let header: ChangeSetHeader
    private var buffer: [UInt8] = []
    /// The pending record, except its large values (``largeValues``).
    private var record: [UInt8] = []
    /// Large values of the pending record, each with the position in ``record`` it goes at.
    private var largeValues: [(position: Int, value: LargeValue)] = []
    private var checksum = CRC32()
    private var bytesWritten = 0
    private var tables: [String: TableEntry] = [:]
    private var nextTableIndex = 0
    private var changeCount = 0
    private var minimumClock = HLCTimestamp(rawValue: .max)
    private var maximumClock = HLCTimestamp.zero
    private var finished = false

    private static let flushThreshold = 64 * 1024

    /// Starts a change set on an open file handle (positioned where the set should start). The handle
    /// stays open after ``finish()``.
    /// - Throws: ``ChangeSetFormatError`` if the header's identifiers are empty or too long.
    package init(fileHandle: FileHandle, header: ChangeSetHeader) throws {
        output = fileHandle
        closesOutput = false
        self.header = header
        try writeHeader()
    }

    /// Creates (or truncates) the file at `url` and starts a change set in it; the file is closed by
    /// ``finish()``.
    package init(creatingFileAt url: URL, header: ChangeSetHeader) throws {
        guard FileManager.default.createFile(atPath: url.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: url.path])
        }
        output = try FileHandle(forWritingTo: url)
        closesOutput = true
        self.header = header
        try writeHeader()
    }

    private func writeHeader() throws {
        for (name, value) in [("set id", header.setID), ("database id", header.databaseID)] {
            guard !value.isEmpty, value.utf8.count <= ChangeSetFormat.maximumNameLength else {
                throw ChangeSetFormatError(.unencodable("the \(name) must have 1 to \(ChangeSetFormat.maximumNameLength) UTF-8 bytes"))
            }
        }
        buffer.append(contentsOf: ChangeSetFormat.magic)
        buffer.append(ChangeSetFormat.version)
        record.appendString(header.setID)
        record.appendString(header.databaseID)
        try emitRecord()
    }

    /// Appends one row change.
    /// - Throws: ``ChangeSetFormatError`` (``ChangeSetFormatError/Reason/unencodable(_:)``) for a change
    ///   whose key is NULL, whose column is newer than its row clock or that repeats a column, or a
    ///   file error.
    package func write(_ change: RowChange) throws {
        precondition(!finished, "ChangeSetWriter.write called after finish()")
        guard !change.key.isNull else {
            throw ChangeSetFormatError(.unencodable("a row key must not be NULL (table \(change.table))"))
        }
        let table = try tableEntry(for: change)
        record.append(change.kind.rawValue)
        record.appendVarint(UInt64(table.index))
        appendValue(change.key)
        record.appendVarint(change.clock.rawValue)
        if change.kind != .delete {
            record.appendVarint(UInt64(change.columns.count))
            for column in change.columns {
                guard column.clock <= change.clock else {
                    record.removeAll(keepingCapacity: true)
                    largeValues.removeAll()
                    throw ChangeSetFormatError(.unencodable(
                        "column \(column.name) of \(change.table) is newer (\(column.clock)) than its row (\(change.clock))"))
                }
                // Checked by tableEntry(for:): every column has an index.
                record.appendVarint(UInt64(table.columnIndexes[column.name] ?? 0))
                record.appendVarint(change.clock.rawValue - column.clock.rawValue)
                appendValue(column.value)
            }
        }
        try emitRecord()
        changeCount += 1
        minimumClock = min(minimumClock, change.clock)
        maximumClock = max(maximumClock, change.clock)
    }

    /// Finds or (re)defines the table entry so that every column of `change` has an index; a new
    /// definition record is emitted when a table or column appears for the first time.
    private func tableEntry(for change: RowChange) throws -> TableEntry {
        if let existing = tables[change.table], existing.indexesDistinctly(change.columns) {
            return existing
        }
        var names = Set<String>()
        for column in change.columns where !names.insert(column.name).inserted {
            throw ChangeSetFormatError(.unencodable("column \(column.name) of \(change.table) appears twice in one change"))
        }
        if let existing = tables[change.table], names.allSatisfy({ existing.columnIndexes[$0] != nil }) {
            return existing
        }
        guard !change.table.isEmpty, change.table.utf8.count <= ChangeSetFormat.maximumNameLength else {
            throw ChangeSetFormatError(.unencodable("table name must have 1 to \(ChangeSetFormat.maximumNameLength) UTF-8 bytes"))
        }
        var columns = tables[change.table].map { entry in
            entry.columnIndexes.sorted { $0.value < $1.value }.map(\.key)
        } ?? []
        for column in change.columns where !columns.contains(column.name) {
            columns.append(column.name)
        }
        let entry = TableEntry(
            index: nextTableIndex,
            columnIndexes: Dictionary(uniqueKeysWithValues: columns.enumerated().map { ($1, $0) })
        )
        nextTableIndex += 1
        record.append(ChangeSetFormat.RecordKind.tableDefinition.rawValue)
        record.appendVarint(UInt64(entry.index))
        record.appendString(change.table)
        record.appendVarint(UInt64(columns.count))
        for column in columns {
            record.appendString(column)
        }
        try emitRecord()
        tables[change.table] = entry
        return entry
    }

    /// Writes the trailer, flushes, and closes the file if this writer created it.
    /// - Returns: the summary a reader will find in the trailer.
    @discardableResult
    package func finish() throws -> ChangeSetSummary {
        precondition(!finished, "ChangeSetWriter.finish called twice")
        finished = true
        let lowest = changeCount == 0 ? HLCTimestamp.zero : minimumClock
        record.append(ChangeSetFormat.RecordKind.end.rawValue)
        record.appendVarint(UInt64(changeCount))
        record.appendVarint(lowest.rawValue)
        record.appendVarint(maximumClock.rawValue)
        try emitRecord()
        buffer.withUnsafeBytes { checksum.update($0) }
        var crc = checksum.value.littleEndian
        withUnsafeBytes(of: &crc) { buffer.append(contentsOf: $0) }
        try flush(updatingChecksum: false)
        if closesOutput {
            try output.synchronize()
            try output.close()
        }
        return ChangeSetSummary(
            header: header,
            changeCount: changeCount,
            minimumClock: lowest,
            maximumClock: maximumClock,
            byteCount: bytesWritten
        )
    }

    /// A value written from its own storage.
    private enum LargeValue {
        case blob(Data)
        case text(String)

        var count: Int {
            switch self {
            case .blob(let data): data.count
            case .text(let text): text.utf8.count
            }
        }
    }

    /// Appends a tagged value to the pending record; a large one is only noted (see ``LargeValue``).
    private func appendValue(_ value: DatabaseValue) {
        switch value.storage {
        case .blob(let data) where data.count >= Self.flushThreshold:
            record.append(ChangeSetFormat.ValueTag.blob.rawValue)
            record.appendVarint(UInt64(data.count))
            largeValues.append((record.count, .blob(data)))
        case .string(let text) where text.utf8.count >= Self.flushThreshold:
            record.append(ChangeSetFormat.ValueTag.text.rawValue)
            record.appendVarint(UInt64(text.utf8.count))
            largeValues.append((record.count, .text(text)))
        default:
            record.appendValue(value)
        }
    }

    /// Moves the pending record into the output behind its length prefix: through the buffer, or
    /// for a record with large values, piece by piece straight to the file.
    private func emitRecord() throws {
        let length = record.count + largeValues.reduce(0) { $0 + $1.value.count }
        guard length <= ChangeSetFormat.maximumRecordLength else {
            record.removeAll(keepingCapacity: false)
            largeValues.removeAll()
            throw ChangeSetFormatError(.unencodable("a record exceeds \(ChangeSetFormat.maximumRecordLength) bytes"))
        }
        buffer.appendVarint(UInt64(length))
        if largeValues.isEmpty {
            buffer.append(contentsOf: record)
        } else {
            var start = 0
            for (position, value) in largeValues {
                buffer.append(contentsOf: record[start..<position])
                try flush(updatingChecksum: true)
                switch value {
                case .blob(let data): try data.withUnsafeBytes { try writeDirectly($0) }
                case .text(var text): try text.withUTF8 { try writeDirectly(UnsafeRawBufferPointer($0)) }
                }
                start = position
            }
            buffer.append(contentsOf: record[start...])
            largeValues.removeAll()
        }
        record.removeAll(keepingCapacity: record.count <= Self.flushThreshold)
        if buffer.count >= Self.flushThreshold {
            try flush(updatingChecksum: true)
        }
    }

    /// Writes `bytes` to the file past the (flushed) buffer, in the checksum.
    private func writeDirectly(_ bytes: UnsafeRawBufferPointer) throws {
        checksum.update(bytes)
        var offset = 0
        while offset < bytes.count {
            let end = min(bytes.count, offset + 1 << 20)
            try output.write(contentsOf: UnsafeRawBufferPointer(rebasing: bytes[offset..<end]))
            offset = end
        }
        bytesWritten += bytes.count
    }

    private func flush(updatingChecksum: Bool) throws {
        if updatingChecksum {
            buffer.withUnsafeBytes { checksum.update($0) }
        }
        try output.write(contentsOf: buffer)
        bytesWritten += buffer.count
        buffer.removeAll(keepingCapacity: true)
    }
}
