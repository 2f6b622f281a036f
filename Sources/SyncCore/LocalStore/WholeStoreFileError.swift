/// A downloaded whole-store file that cannot be installed; the local database is untouched.
package struct WholeStoreFileError: Error, Sendable, CustomStringConvertible {
    /// Why the file was refused.
    package var reason: String

    package var description: String { "the whole store cannot be used: \(reason)" }
}
