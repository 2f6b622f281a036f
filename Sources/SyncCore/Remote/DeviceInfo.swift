import Foundation

/// The content of `ClientDevices/<client>/deviceInfo.json`: who a client is.
public struct DeviceInfo: Codable, Sendable, Equatable {
    /// The client's identifier.
    public var clientID: SyncIdentifier
    /// A description for people, such as "Anna's laptop".
    public var description: String
    /// Free-form information the application attaches.
    public var userInfo: [String: String]
    /// When the client registered with the application. Written to the remote only when the
    /// client first registers (an existing record is never rewritten), so a value made at each
    /// launch does not move it.
    public var registeredAt: Date

    /// Describes a client; `registeredAt` defaults to the moment this value is made.
    public init(clientID: SyncIdentifier, description: String, userInfo: [String: String] = [:], registeredAt: Date = Date()) {
        self.clientID = clientID
        self.description = description
        self.userInfo = userInfo
        self.registeredAt = registeredAt
    }
}
