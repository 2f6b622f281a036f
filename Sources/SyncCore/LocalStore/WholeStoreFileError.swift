/// A downloaded whole-store file that cannot be installed; the local database is untouched.
public struct WholeStoreFileError: Error, Sendable, CustomStringConvertible {
    /// Why the file was refused.
    public var reason: String

    public var description: String { "the whole store cannot be used: \(reason)" }
}
