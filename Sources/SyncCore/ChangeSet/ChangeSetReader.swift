import Foundation
import GRDB

/// Decodes a change set from a file, one row change at a time: memory use is one record plus a
/// 64 KiB input buffer, whatever the number of changes.
///
/// The trailer (change count and CRC-32 over every preceding byte) is checked when ``next()`` reaches
/// it, so a caller that must not act on an unverified set reads the stream twice: once with
/// ``verify(fileAt:)`` and once to use it (``LocalStore`` does exactly that, and also re-checks the
/// trailer inside the apply transaction, so a file altered between the passes is refused too).
package final class ChangeSetReader {
    private let input: FileHandle
    private let closesInput: Bool
    private var buffer: [UInt8] = []
    /// The current record's body, reused from record to record.
    private var recordBytes: [UInt8] = []
    private var position = 0
    private var checksummedUpTo = 0
    private var checksum = CRC32()
    private var consumedBeforeBuffer = 0
    private var tables: [Int: (name: String, columns: [String])] = [:]
    private var changeCount = 0
    /// The kinds of the changes read so far (decoded or skipped).
    private(set) var kindsRead: Set<RowChange.Kind> = []
    private var minimumClock = HLCTimestamp(rawValue: .max)
    /// The oldest clock of any change or cell read so far: a column keeps the clock of its own
    /// last edit, which can be older than its change's (the newest of the row's).
    private(set) var oldestClock = HLCTimestamp(rawValue: .max)
    private var maximumClock = HLCTimestamp.zero

    /// The set's header, read when the reader was created.
    package private(set) var header = ChangeSetHeader(setID: "", databaseID: "")
    /// The verified trailer, available once ``next()`` has returned `nil`.
    package private(set) var summary: ChangeSetSummary?

    private static let chunkSize = 64 * 1024

    /// Starts reading a change set from an open file handle (positioned at its first byte); the handle
    /// is not closed by the reader.
    /// - Throws: ``ChangeSetFormatError`` if the magic bytes, version or header are wrong.
    package init(fileHandle: FileHandle) throws {
        input = fileHandle
        closesInput = false
        try readHeader()
    }

    /// Opens the file at `url` and reads its header; the file is closed when the reader is released.
    package init(contentsOf url: URL) throws {
        input = try FileHandle(forReadingFrom: url)
        closesInput = true
        do {
            try readHeader()
        } catch {
            try? input.close()
            throw error
        }
    }

    deinit {
        if closesInput {
            try? input.close()
        }
    }

    /// Reads a whole change set and checks its structure, count and checksum without keeping any of it.
    /// - Returns: the verified summary.
    /// - Throws: ``ChangeSetFormatError`` describing the first problem found, or a file error.
    package static func verify(fileAt url: URL) throws -> ChangeSetSummary {
        try verifiedContents(ofFileAt: url).summary
    }

    /// What a verification pass found in a set.
    struct VerifiedContents: Sendable {
        var summary: ChangeSetSummary
        /// The kinds of change the set holds.
        var kinds: Set<RowChange.Kind>
        /// The oldest clock of any change or cell in the set (`nil` for an empty set).
        var oldestClock: HLCTimestamp?
    }

    /// Like ``verify(fileAt:)``, also telling which kinds of change the set holds and its oldest clock.
    static func verifiedContents(ofFileAt url: URL) throws -> VerifiedContents {
        let reader = try ChangeSetReader(contentsOf: url)
        while try reader.next(building: { _ in false }) != nil {}
        guard let summary = reader.summary else { throw ChangeSetFormatError(.truncated) }
        return VerifiedContents(
            summary: summary, kinds: reader.kindsRead, oldestClock: reader.changeCount == 0 ? nil : reader.oldestClock
        )
    }

    private var offset: Int { consumedBeforeBuffer + position }

    private func readHeader() throws {
        for expected in ChangeSetFormat.magic {
            guard let byte = try nextByte(), byte == expected else {
                throw ChangeSetFormatError(.notAChangeSet, offset: 0)
            }
        }
        guard let version = try nextByte() else { throw ChangeSetFormatError(.truncated, offset: offset) }
        guard version == ChangeSetFormat.version else { throw ChangeSetFormatError(.unsupportedVersion(version)) }
        switch try readRecord() {
        case .small(var body): try readHeaderFields(&body)
        case .large(var body): try readHeaderFields(&body)
        }
    }

    private func readHeaderFields<Bytes>(_ body: inout ByteCursor<Bytes>) throws {
        header = ChangeSetHeader(
            setID: try body.string(limit: ChangeSetFormat.maximumNameLength),
            databaseID: try body.string(limit: ChangeSetFormat.maximumNameLength)
        )
        guard !header.setID.isEmpty, !header.databaseID.isEmpty else { throw body.malformed("empty set or database id") }
        guard body.isAtEnd else { throw body.malformed("unexpected bytes in the header") }
    }

    /// Decodes the next row change.
    /// - Returns: the change, or `nil` once the trailer has been read and verified (then ``summary``
    ///   is set).
    /// - Throws: ``ChangeSetFormatError`` for truncated, corrupt or inconsistent input.
    package func next() throws -> RowChange? {
        try next(ofKind: nil)
    }

    /// Decodes the next change of the given kind (any kind if `nil`); changes of other kinds are
    /// checked and counted for the trailer but not built. Used by the apply passes.
    func next(ofKind wanted: RowChange.Kind?) throws -> RowChange? {
        try next(building: { wanted == nil || $0 == wanted })
    }

    /// Decodes the next change for which `wanted` is true; changes of other kinds are checked field
    /// by field (framing, table and column indices, key type, clocks) and counted for the trailer,
    /// but nothing is built. With a `wanted` that is always false, reading to the end verifies the
    /// whole set cheaply (``verify(fileAt:)``).
    private func next(building wanted: (RowChange.Kind) -> Bool) throws -> RowChange? {
        if summary != nil { return nil }
        while true {
            let recordStart = offset
            let outcome = switch try readRecord() {
            case .small(var body): try process(&body, startingAt: recordStart, building: wanted)
            case .large(var body): try process(&body, startingAt: recordStart, building: wanted)
            }
            switch outcome {
            case .end: return nil
            case .change(let change): return change
            case .nothingBuilt: continue
            }
        }
    }

    /// What one record was.
    private enum RecordOutcome {
        case end
        case change(RowChange)
        /// A table definition, or a change that was checked but not built.
        case nothingBuilt
    }

    private func process<Bytes>(
        _ body: inout ByteCursor<Bytes>, startingAt recordStart: Int, building wanted: (RowChange.Kind) -> Bool
    ) throws -> RecordOutcome {
        let kindByte = try body.byte()
        switch ChangeSetFormat.RecordKind(rawValue: kindByte) {
        case .end:
            try readTrailer(&body)
            return .end
        case .tableDefinition:
            let index = try body.count(limit: Int(UInt32.max), "table index")
            let name = try body.string(limit: ChangeSetFormat.maximumNameLength)
            let columnCount = try body.count(limit: 32_767, "column count")
            var columns: [String] = []
            for _ in 0..<columnCount {
                columns.append(try body.string(limit: ChangeSetFormat.maximumNameLength))
            }
            guard body.isAtEnd else { throw body.malformed("unexpected bytes in a table definition") }
            tables[index] = (name, columns)
            return .nothingBuilt
        case .insert, .update, .delete:
            let kind = RowChange.Kind(rawValue: kindByte) ?? .delete
            let build = wanted(kind)
            let (clock, change) = try readChange(kind: kind, body: &body, build: build)
            guard body.isAtEnd else {
                throw ChangeSetFormatError(.malformed("unexpected bytes in a change record"), offset: recordStart)
            }
            changeCount += 1
            kindsRead.insert(kind)
            minimumClock = min(minimumClock, clock)
            oldestClock = min(oldestClock, clock)
            maximumClock = max(maximumClock, clock)
            return change.map { .change($0) } ?? .nothingBuilt
        case nil:
            throw ChangeSetFormatError(.malformed("unknown record kind \(kindByte)"), offset: recordStart)
        }
    }

    /// Reads one change record's fields, checking each; builds the change only if `build` (else
    /// values are stepped over, which costs no allocation).
    private func readChange<Bytes>(
        kind: RowChange.Kind,
        body: inout ByteCursor<Bytes>,
        build: Bool
    ) throws -> (clock: HLCTimestamp, change: RowChange?) {
        let tableIndex = try body.count(limit: Int(UInt32.max), "table index")
        guard let table = tables[tableIndex] else { throw body.malformed("undefined table index \(tableIndex)") }
        let key: DatabaseValue
        if build {
            key = try body.value()
            guard !key.isNull else { throw body.malformed("a row key must not be NULL") }
        } else {
            key = .null
            guard try body.skipValue() != .null else { throw body.malformed("a row key must not be NULL") }
        }
        let clock = HLCTimestamp(rawValue: try body.varint())
        var change = build ? RowChange(kind: kind, table: table.name, key: key, clock: clock) : nil
        guard kind != .delete else { return (clock, change) }
        let columnCount = try body.count(limit: table.columns.count, "column count")
        change?.columns.reserveCapacity(columnCount)
        for _ in 0..<columnCount {
            let columnIndex = try body.count(limit: table.columns.count - 1, "column index")
            let age = try body.varint()
            guard age <= clock.rawValue else { throw body.malformed("column clock before the epoch") }
            oldestClock = min(oldestClock, HLCTimestamp(rawValue: clock.rawValue - age))
            if build {
                let value = try body.value()
                change?.columns.append(.init(name: table.columns[columnIndex], value: value, clock: HLCTimestamp(rawValue: clock.rawValue - age)))
            } else {
                try body.skipValue()
            }
        }
        return (clock, change)
    }

    private func readTrailer<Bytes>(_ body: inout ByteCursor<Bytes>) throws {
        let expected = try body.count(limit: Int.max, "change count")
        let lowest = HLCTimestamp(rawValue: try body.varint())
        let highest = HLCTimestamp(rawValue: try body.varint())
        guard body.isAtEnd else { throw body.malformed("unexpected bytes in the trailer") }
        updateChecksum()
        var crcBytes: [UInt8] = []
        for _ in 0..<4 {
            guard let byte = try nextByte() else { throw ChangeSetFormatError(.truncated, offset: offset) }
            crcBytes.append(byte)
        }
        let stored = crcBytes.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (8 * UInt32($1.offset)) }
        guard stored == checksum.value else { throw ChangeSetFormatError(.checksumMismatch, offset: offset) }
        guard try nextByte() == nil else { throw ChangeSetFormatError(.trailingBytes, offset: offset - 1) }
        guard expected == changeCount else { throw ChangeSetFormatError(.countMismatch(expected: expected, found: changeCount)) }
        let actualLowest = changeCount == 0 ? HLCTimestamp.zero : minimumClock
        guard lowest == actualLowest, highest == maximumClock else {
            throw ChangeSetFormatError(.malformed("trailer clock range does not match the records"))
        }
        summary = ChangeSetSummary(
            header: header,
            changeCount: changeCount,
            minimumClock: lowest,
            maximumClock: highest,
            byteCount: offset
        )
    }

    /// A record body: an array reused from record to record, or for a record longer than the
    /// input buffer, `Data` of its own, released with the change built from it (whose large
    /// values are slices of it, see ``ByteCursor``).
    private enum RecordBody {
        case small(ByteCursor<[UInt8]>)
        case large(ByteCursor<Data>)
    }

    /// Reads a length-prefixed record body.
    private func readRecord() throws -> RecordBody {
        var length: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard let byte = try nextByte() else { throw ChangeSetFormatError(.truncated, offset: offset) }
            length |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { break }
            shift += 7
            guard shift < 35 else { throw ChangeSetFormatError(.malformed("record length too long"), offset: offset) }
        }
        guard length <= UInt64(ChangeSetFormat.maximumRecordLength) else {
            throw ChangeSetFormatError(.malformed("record length \(length) exceeds the limit"), offset: offset)
        }
        let bodyOffset = offset
        if length > UInt64(Self.chunkSize) {
            // Grown as the bytes arrive, never reserved from the announced length alone: six bytes
            // of a damaged file could otherwise reserve a gigabyte before the end is found.
            var large = Data(capacity: Self.chunkSize)
            try readBody(length: Int(length)) { large.append(contentsOf: $0) }
            return .large(ByteCursor(large, streamOffset: bodyOffset))
        }
        recordBytes.removeAll(keepingCapacity: true)
        try readBody(length: Int(length)) { recordBytes.append(contentsOf: $0) }
        return .small(ByteCursor(recordBytes, streamOffset: bodyOffset))
    }

    /// Passes the next `length` bytes of the stream to `append`, a buffer's worth at a time.
    private func readBody(length: Int, _ append: (ArraySlice<UInt8>) -> Void) throws {
        var missing = length
        while missing > 0 {
            if position == buffer.count, try !refill() {
                throw ChangeSetFormatError(.truncated, offset: offset)
            }
            let available = min(missing, buffer.count - position)
            append(buffer[position..<position + available])
            position += available
            missing -= available
        }
    }

    private func nextByte() throws -> UInt8? {
        if position == buffer.count, try !refill() {
            return nil
        }
        defer { position += 1 }
        return buffer[position]
    }

    private func updateChecksum() {
        buffer.withUnsafeBytes { checksum.update(UnsafeRawBufferPointer(rebasing: $0[checksummedUpTo..<position])) }
        checksummedUpTo = position
    }

    /// Replaces the consumed buffer with the next chunk; returns `false` at end of file.
    private func refill() throws -> Bool {
        updateChecksum()
        consumedBeforeBuffer += buffer.count
        guard let chunk = try input.read(upToCount: Self.chunkSize), !chunk.isEmpty else {
            buffer = []
            position = 0
            checksummedUpTo = 0
            return false
        }
        buffer = [UInt8](chunk)
        position = 0
        checksummedUpTo = 0
        return true
    }
}
