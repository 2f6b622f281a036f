/// SQL for shapes that real apps' schemas have and that tests build their schemas from, so every
/// suite meets them written the way apps write them.
public enum AppSchemaShapes {
    /// An external-content FTS5 index `name` over `columns` of the rowid table `table`, with the
    /// three triggers that keep it (as SQLite's FTS5 documentation writes them).
    ///
    /// A trigger that writes the same rows again (``touchTrigger(_:on:column:stamp:)``) must be
    /// created *before* these: SQLite fires the trigger created last first, and the index must see
    /// each change of a row before that trigger changes the row again, or its `delete` names
    /// values the index never held (`database disk image is malformed`).
    public static func fts5Index(_ name: String, on table: String, columns: [String]) -> String {
        let list = columns.joined(separator: ", ")
        let new = columns.map { "new.\($0)" }.joined(separator: ", ")
        let old = columns.map { "old.\($0)" }.joined(separator: ", ")
        return """
            CREATE VIRTUAL TABLE \(name) USING fts5(\(list), content='\(table)', content_rowid='rowid');
            CREATE TRIGGER \(name)_insert AFTER INSERT ON \(table) BEGIN
                INSERT INTO \(name)(rowid, \(list)) VALUES (new.rowid, \(new));
            END;
            CREATE TRIGGER \(name)_delete AFTER DELETE ON \(table) BEGIN
                INSERT INTO \(name)(\(name), rowid, \(list)) VALUES ('delete', old.rowid, \(old));
            END;
            CREATE TRIGGER \(name)_update AFTER UPDATE ON \(table) BEGIN
                INSERT INTO \(name)(\(name), rowid, \(list)) VALUES ('delete', old.rowid, \(old));
                INSERT INTO \(name)(rowid, \(list)) VALUES (new.rowid, \(new));
            END;
            """
    }

    /// The ubiquitous `updated_at` trigger: after an update of `table` that did not set `column`
    /// itself, sets it to `stamp` (an SQL expression) in the same row (`id` is the key).
    public static func touchTrigger(_ name: String, on table: String, column: String = "updated_at", stamp: String) -> String {
        """
        CREATE TRIGGER \(name) AFTER UPDATE ON \(table) WHEN new.\(column) IS old.\(column) BEGIN
            UPDATE \(table) SET \(column) = \(stamp) WHERE id = new.id;
        END;
        """
    }
}
