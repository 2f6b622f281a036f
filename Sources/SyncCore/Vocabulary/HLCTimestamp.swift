/// A hybrid logical clock reading: wall-clock milliseconds in the high 48 bits, a logical counter in
/// the low 16 bits, packed into one integer so that SQLite can compute and compare it.
///
/// RollingSync's capture triggers compute every local timestamp inside SQL as
/// `max(now_ms << 16, last + 1)`, so timestamps are strictly increasing within one database even when
/// the wall clock stands still or goes backwards, and stay close to wall-clock time otherwise. When
/// changes from another client are applied, the local clock is advanced past their timestamps (the
/// HLC receive rule), so a later local edit always orders after everything it has seen.
///
/// Ordering is by the packed value; ties between clients are broken by client identifier (see
/// ``LastWriterWins``).
public struct HLCTimestamp: RawRepresentable, Hashable, Comparable, Sendable, CustomStringConvertible {
    /// The packed value: `physicalMilliseconds << 16 | counter`.
    public let rawValue: UInt64

    /// Wraps a packed value.
    public init(rawValue: UInt64) {
        self.rawValue = rawValue
    }

    /// Builds a timestamp from its two parts; a `counter` above 65,535 carries into the milliseconds.
    public init(physicalMilliseconds: UInt64, counter: UInt64 = 0) {
        rawValue = (physicalMilliseconds << 16) &+ counter
    }

    /// The zero timestamp, older than every real one.
    package static let zero = HLCTimestamp(rawValue: 0)

    /// Milliseconds since 1970-01-01 UTC (possibly ahead of the wall clock after bursts of changes).
    public var physicalMilliseconds: UInt64 { rawValue >> 16 }

    /// The logical counter distinguishing timestamps within the same millisecond.
    public var counter: UInt64 { rawValue & 0xFFFF }

    /// The value as SQLite stores it (always non-negative: 48 bits of milliseconds last until year 10889).
    package var databaseInteger: Int64 { Int64(bitPattern: rawValue) }

    /// Orders by the packed value: milliseconds first, then the counter.
    public static func < (lhs: HLCTimestamp, rhs: HLCTimestamp) -> Bool {
        lhs.rawValue < rhs.rawValue
    }

    /// `milliseconds.counter`, e.g. `1763780000000.3`.
    public var description: String { "\(physicalMilliseconds).\(counter)" }
}
