import Foundation

/// A password that protects an application's data key.
///
/// The text is kept only as bytes (its Unicode NFC form in UTF-8, so the same password typed on
/// systems that compose accents differently gives the same key) and is never shown: its
/// `description`, `debugDescription` and reflection (`dump`, `Mirror`) print `<redacted>`, so
/// interpolating a password into a log line or an error message cannot leak it.
public struct EncryptionPassword: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The password's bytes as fed to the key derivation.
    let bytes: [UInt8]

    /// A password from the text the user typed; `nil` for an empty string, which protects nothing.
    public init?(_ text: String) {
        guard !text.isEmpty else {
            return nil
        }
        bytes = Array(text.precomposedStringWithCanonicalMapping.utf8)
    }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "EncryptionPassword(<redacted>)" }
    public var customMirror: Mirror { Mirror(self, children: [:]) }
}
