/// What ``LocalStore/installWholeStore(at:inSameTransaction:)`` did.
public struct WholeStoreInstallation: Sendable, Equatable {
    /// The number of change sets the installed store contains.
    public var appliedSetCount: Int
    /// The unpushed local row changes re-applied on top of the installed store (they are pending
    /// again, with new clocks, and go out with the next push).
    public var rebasedChanges: Int
    /// Unpushed local updates of rows the installed store no longer has (deleted by another
    /// client): a deletion wins over an update, as in a normal sync, so these were not re-applied.
    public var updatesOfDeletedRows: [RebasedRow]

    /// A row named in a rebase report (table and key as text, no values).
    public struct RebasedRow: Sendable, Equatable {
        /// The synced table.
        public var table: String
        /// The row's key, as text.
        public var key: String
    }
}
