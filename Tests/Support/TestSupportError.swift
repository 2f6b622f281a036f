/// A failure of a test helper itself (a tool that could not start or exited with an error, a
/// report that could not be read), thrown so the test that used the helper fails with its text.
public struct TestSupportError: Error, CustomStringConvertible {
    /// What went wrong, in words.
    public let description: String

    /// Creates an error that reads as `description`.
    public init(_ description: String) {
        self.description = description
    }
}
