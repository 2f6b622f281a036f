import Foundation

/// The content of `Documents/<doc>/documentInfo.json`: what a document is and who created it.
///
/// A copy is left in `Information/DeletedDocuments/<doc>.json` when a document is deleted.
package struct DocumentInfo: Codable, Sendable, Equatable {
    /// The document's identifier.
    package var documentID: SyncIdentifier
    /// A description for people, such as "Household budget".
    package var description: String
    /// Free-form information the application attaches.
    package var userInfo: [String: String]
    /// The client that created the document's remote data.
    package var createdBy: SyncIdentifier
    /// When it was created.
    package var createdAt: Date

    /// Describes a document.
    package init(
        documentID: SyncIdentifier,
        description: String,
        userInfo: [String: String] = [:],
        createdBy: SyncIdentifier,
        createdAt: Date
    ) {
        self.documentID = documentID
        self.description = description
        self.userInfo = userInfo
        self.createdBy = createdBy
        self.createdAt = createdAt
    }
}
