/// What a change set says about itself before its first record.
package struct ChangeSetHeader: Sendable, Equatable {
    /// The change set's identifier, unique among all sets of a document (it is recorded as applied,
    /// so applying the same identifier twice is a no-op).
    package var setID: String
    /// The client that produced the changes; every change in the set carries this database identifier.
    package var databaseID: String

    /// Creates a header. Neither string may be empty or longer than 1,024 UTF-8 bytes.
    package init(setID: String, databaseID: String) {
        self.setID = setID
        self.databaseID = databaseID
    }
}
