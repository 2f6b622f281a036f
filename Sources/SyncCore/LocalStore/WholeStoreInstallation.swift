/// What installing a whole store in place of the local data did (``WholeStoreDownload/installation``).
public struct WholeStoreInstallation: Sendable, Equatable {
    /// The number of change sets the installed store contains.
    public var appliedSetCount: Int
    /// The rows with unpushed local changes merged into the installed store (their changes stay
    /// pending with their original clocks, and go out with the next push).
    public var rebasedChanges: Int
    /// Rows with unpushed local changes that the installed store records as deleted (by another
    /// client): a deletion wins over an update, as in a normal sync, so these edits were dropped.
    /// (Rows the store simply does not have yet are re-created with their local values instead.)
    public var updatesOfDeletedRows: [RebasedRow]
    /// Local edits that met a different, recorded write of the same cell in the store, and how
    /// each was decided (by the resolver; last writer wins by default).
    public var conflicts: [ApplyReport.ResolvedConflict] = []
    /// What the reference and uniqueness rules did while merging (see Docs/Conflicts.md).
    public var warnings: [ApplyReport.Warning] = []

    /// A row named in a rebase report (table and key as text, no values).
    public struct RebasedRow: Sendable, Equatable {
        /// The synced table.
        public var table: String
        /// The row's key, as text.
        public var key: String
    }
}
