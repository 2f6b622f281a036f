/// The application's answers to the questions encryption raises at registration.
///
/// ```swift
/// let decisions = EncryptionDecisions(
///     newApplicationPassword: { _ in await askUserForNewPassword() },   // nil: no encryption
///     existingApplicationPassword: { _, reason in await askUserForPassword(reason) }
/// )
/// ```
/// The default answers nothing: new applications are not encrypted, and joining encrypted data
/// fails with ``SyncError/Code/passwordRequired``.
public struct EncryptionDecisions: Sendable {
    /// Why a client needs the password of existing encrypted data (an open set: a `switch` needs
    /// an `@unknown default:`).
    @nonexhaustive
    public enum PasswordRequestReason: Sendable, Equatable {
        /// This client has no cached data key for the application (it is joining, or its key file
        /// was deleted).
        case noCachedKey
        /// The cached data key is not the one the remote data now uses: the application's remote
        /// data was created again with a new key. (A password change alone never asks again.)
        case cachedKeyNoLongerMatches
    }

    /// Asked once, when this client creates the application's remote data: the password to
    /// encrypt it with, or `nil` to store it unencrypted. The choice is final for that data.
    public var newApplicationPassword: @Sendable (SyncIdentifier) async -> EncryptionPassword?

    /// Asked when the remote data is encrypted and this client has no usable key: the password,
    /// or `nil` to stop (registration then throws ``SyncError/Code/passwordRequired``). A wrong
    /// password makes registration throw ``SyncError/Code/wrongPassword``; registering again asks
    /// again.
    public var existingApplicationPassword: @Sendable (SyncIdentifier, PasswordRequestReason) async -> EncryptionPassword?

    /// Decisions given by two closures.
    public init(
        newApplicationPassword: @escaping @Sendable (SyncIdentifier) async -> EncryptionPassword? = { _ in nil },
        existingApplicationPassword: @escaping @Sendable (SyncIdentifier, PasswordRequestReason) async -> EncryptionPassword? = { _, _ in nil }
    ) {
        self.newApplicationPassword = newApplicationPassword
        self.existingApplicationPassword = existingApplicationPassword
    }

    /// Encrypts new application data with `password` and joins encrypted data with it.
    public static func password(_ password: EncryptionPassword) -> EncryptionDecisions {
        EncryptionDecisions(newApplicationPassword: { _ in password }, existingApplicationPassword: { _, _ in password })
    }
}
