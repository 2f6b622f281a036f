import InMemoryRemote
import RemoteProtocol
import RemoteStoreConformance
import Testing

/// One deliberately broken store and the checks that must catch it.
struct BrokenStoreCase: Sendable, CustomTestStringConvertible {
    let name: String
    let caughtBy: [RemoteStoreConformance.Check]
    let makeStore: @Sendable () -> any RemoteStore

    var testDescription: String { name }

    static let all: [BrokenStoreCase] = [
        .init(name: "delete fails on missing paths", caughtBy: [.deleteOfMissingPathSucceeds, .concurrentDeletesOfSamePathSucceed]) {
            BrokenStores.DeleteFailsOnMissingPath()
        },
        .init(name: "delete is not recursive", caughtBy: [.deleteRemovesDirectoryTree]) { BrokenStores.DeleteIsNotRecursive() },
        .init(name: "the root is deletable", caughtBy: [.deleteOfRootThrowsInvalidPath]) { BrokenStores.RootIsDeletable() },
        .init(name: "upload does not overwrite", caughtBy: [.uploadOverwritesExistingFile]) { BrokenStores.UploadDoesNotOverwrite() },
        .init(name: "upload creates missing directories", caughtBy: [.uploadIntoMissingDirectoryThrowsNotFound]) {
            BrokenStores.UploadCreatesMissingDirectories()
        },
        .init(name: "Foundation errors escape", caughtBy: [.onlyRemoteStoreErrorsEscape, .uploadOfMissingLocalFileThrowsLocalFile]) {
            BrokenStores.LeaksFoundationErrors()
        },
        .init(name: "a cancelled upload leaves half a file", caughtBy: [.cancelledUploadLeavesPreviousContent]) {
            BrokenStores.CancelledUploadLeavesHalfFile()
        },
        .init(name: "exists throws notFound", caughtBy: [.existsOfMissingPathReturnsNil]) { BrokenStores.ExistsThrowsNotFound() },
        .init(name: "exists omits the size", caughtBy: [.existsReportsFileKindAndSize]) { BrokenStores.ExistsOmitsSize() },
        .init(name: "createDirectory fails on an existing directory", caughtBy: [.createDirectoryOnExistingDirectorySucceeds]) {
            BrokenStores.CreateDirectoryFailsIfPresent()
        },
        .init(
            name: "notFound becomes unknown",
            caughtBy: [
                .downloadOfMissingFileThrowsNotFound, .listOfMissingDirectoryThrowsNotFound, .copyOfMissingSourceThrowsNotFound,
                .copyIntoMissingDirectoryThrowsNotFound, .uploadIntoMissingDirectoryThrowsNotFound,
            ]
        ) { BrokenStores.NotFoundBecomesUnknown() },
        .init(name: "download of a directory writes an empty file", caughtBy: [.downloadOfDirectoryThrowsIsADirectory]) {
            BrokenStores.DownloadOfDirectoryWritesEmptyFile()
        },
        .init(name: "a failed download leaves an empty file", caughtBy: [.failedDownloadLeavesNoPartialLocalFile]) {
            BrokenStores.FailedDownloadLeavesEmptyFile()
        },
        .init(name: "download appends to the local file", caughtBy: [.downloadReplacesExistingLocalFile]) {
            BrokenStores.DownloadAppendsToLocalFile()
        },
        .init(name: "downloadImmutableFile drops the last byte", caughtBy: [.immutableDownloadRoundTripsAndFailsCleanly]) {
            BrokenStores.ImmutableDownloadDropsLastByte()
        },
        .init(name: "list omits directories", caughtBy: [.listReturnsFilesAndDirectoriesWithKinds]) { BrokenStores.ListOmitsDirectories() },
        .init(name: "list returns '.'", caughtBy: [.listNeverReturnsDotEntriesOrTemporaryFiles]) { BrokenStores.ListReturnsDotEntry() },
        .init(name: "list is recursive", caughtBy: [.listIsNotRecursive]) { BrokenStores.ListIsRecursive() },
        .init(name: "temporaryFiles returns ordinary files", caughtBy: [.temporaryFilesAreNeverOrdinaryFiles]) {
            BrokenStores.TemporaryFilesListsOrdinaryFiles()
        },
        .init(name: "dates missing though declared", caughtBy: [.modificationDatesAreReportedWhenDeclared]) { BrokenStores.DatesMissing() },
        .init(name: "copy aliases the source", caughtBy: [.copyIsIndependentOfSource]) { BrokenStores.CopyAliasesSource() },
        .init(name: "names are percent-decoded", caughtBy: [.hostileNamesRoundTrip, .hostileDirectoryNamesRoundTrip]) {
            BrokenStores.MangledNames.percentDecoding
        },
        .init(name: "long names are truncated", caughtBy: [.longNamesRoundTrip]) {
            BrokenStores.MangledNames.truncatingTo100Characters
        },
        .init(name: "partial files are visible", caughtBy: [.uploadIsNeverVisiblePartially, .copyIsNeverVisiblePartially]) {
            BrokenStores.WritesInGrowingPrefixes()
        },
        .init(name: "list returns only the first 1,000 entries", caughtBy: [.largeDirectoryListsEveryEntryOnce]) {
            BrokenStores.ListReturnsOnlyTheFirstPage()
        },
        .init(name: "list hides names starting with a dot", caughtBy: [.leadingDotNamesRoundTrip]) {
            BrokenStores.ListHidesLeadingDotNames()
        },
        .init(name: "list truncates sizes of 1 MiB and more", caughtBy: [.boundarySizesRoundTripWithExactSizes]) {
            BrokenStores.ListTruncatesLargeSizes()
        },
        .init(name: "download drops the last byte of whole 64 KiB buffers", caughtBy: [.boundarySizesRoundTripWithExactSizes]) {
            BrokenStores.DownloadDropsLastByteOfWholeBuffers()
        },
        .init(name: "names are case-insensitive", caughtBy: [.namesDifferingOnlyInCaseAreDistinct]) {
            BrokenStores.CaseInsensitive()
        },
        // Every store made gets storage of its own: its writes are seen by no other store.
        .init(name: "each store keeps its writes to itself", caughtBy: [.secondStoreSeesWritesAndDeletes]) {
            FaithfulForwarder(base: InMemoryRemoteStore())
        },
    ]
}

/// The suite itself under test: each broken store is caught by the check written for its defect.
struct BrokenStoreTests {
    /// Small large files keep these runs quick; the defects do not depend on the size.
    static let options = RemoteStoreConformance.Options(largeFileSize: 256 << 10)

    @Test(arguments: BrokenStoreCase.all)
    func brokenStoreIsCaughtByTheRightCheck(_ broken: BrokenStoreCase) async throws {
        let suite = RemoteStoreConformance(options: Self.options, makeStore: broken.makeStore)
        for check in broken.caughtBy {
            let failure = try await #require(throws: ConformanceFailure.self, "\(check) must catch: \(broken.name)") {
                try await suite.run(check)
            }
            #expect(failure.check == check)
            #expect(failure.description.contains("'\(check)'"))
        }
    }

    @Test(arguments: RemoteStoreConformance.Check.allCases)
    func faithfulForwarderPassesEveryCheck(_ check: RemoteStoreConformance.Check) async throws {
        let shared = InMemoryRemoteStore()
        let outcome = try await RemoteStoreConformance(options: Self.options, makeStore: { FaithfulForwarder(base: shared) }).run(check)
        #expect(outcome == .passed)
    }

    /// Without shared storage the check that needs it is skipped with the reason, not passed.
    @Test func privateStoresSkipTheSharedStorageCheck() async throws {
        let options = RemoteStoreConformance.Options(storesShareStorage: false)
        let outcome = try await RemoteStoreConformance(options: options, makeStore: { FaithfulForwarder(base: InMemoryRemoteStore()) })
            .run(.secondStoreSeesWritesAndDeletes)
        guard case .skipped(let reason) = outcome else {
            Issue.record("expected a skip, got \(outcome)")
            return
        }
        #expect(reason.contains("storesShareStorage"))
    }
}
