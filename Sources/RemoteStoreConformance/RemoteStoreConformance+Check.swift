extension RemoteStoreConformance {
    /// One rule of the `RemoteStore` contract. Each name is the one written in parentheses in the
    /// documentation of `RemoteStore`, where the rule itself is stated.
    ///
    /// Paths below are relative to the run's working directory.
    public enum Check: String, CaseIterable, Sendable, CustomStringConvertible {
        // MARK: exists

        /// `exists` of a missing path returns `nil` and does not throw.
        case existsOfMissingPathReturnsNil
        /// `exists` of a path below a file (`file/child`) returns `nil`.
        case existsBelowAFileReturnsNil
        /// `exists` of a file reports kind `.file`, its path and its exact size.
        case existsReportsFileKindAndSize
        /// `exists` of a directory reports kind `.directory` and its path.
        case existsReportsDirectoryKind
        /// `exists` of the root reports a directory.
        case rootExists

        // MARK: createDirectory

        /// `createDirectory` of `a/b/c` creates `a` and `a/b` too.
        case createDirectoryCreatesIntermediates
        /// `createDirectory` of an existing directory succeeds and leaves its content alone.
        case createDirectoryOnExistingDirectorySucceeds
        /// `createDirectory` of the root succeeds and changes nothing.
        case createDirectoryOfRootSucceeds
        /// `createDirectory` where a file stands throws `alreadyExists`; the file stays.
        case createDirectoryOverFileThrowsAlreadyExists
        /// `createDirectory` below a file throws `notADirectory`; the file stays.
        case createDirectoryBelowFileThrowsNotADirectory

        // MARK: upload and download

        /// A zero-length file uploads, is reported with size 0 and downloads as zero bytes.
        case uploadAndDownloadRoundTripEmptyFile
        /// Small files of random bytes (1 byte and a few kilobytes) come back byte for byte.
        case uploadAndDownloadRoundTripSmallFile
        /// A file of ``Options/largeFileSize`` random bytes comes back byte for byte.
        case uploadAndDownloadRoundTripMultiMegabyteFile
        /// Files of 0, 1, 65,535, 65,536, 65,537 and 1,048,577 bytes (either side of the usual
        /// buffer sizes) come back byte for byte, with their exact sizes from `exists` and `list`.
        case boundarySizesRoundTripWithExactSizes
        /// Uploading over a file replaces it whole, with shorter and with longer content.
        case uploadOverwritesExistingFile
        /// While a large file is uploaded, concurrent readers see no file or the complete new
        /// content; while a file is replaced, the old or the new content (or, without
        /// `RemoteCapabilities.atomicReplace`, no file), never a part.
        case uploadIsNeverVisiblePartially
        /// Uploading into a missing directory throws `notFound` and creates nothing. With
        /// `RemoteCapabilities.implicitDirectories` the check is reversed, not
        /// skipped: the upload succeeds, and the directory then exists and lists the file.
        case uploadIntoMissingDirectoryThrowsNotFound
        /// Uploading below a file (`file/child`) throws `notADirectory`; the file stays.
        case uploadBelowFileThrowsNotADirectory
        /// Uploading onto a directory throws `isADirectory`; the directory and its content stay.
        case uploadOverDirectoryThrowsIsADirectory
        /// Uploading a missing local file throws `localFile` and changes nothing remotely.
        case uploadOfMissingLocalFileThrowsLocalFile
        /// A cancelled upload either completes or throws `CancellationError`, and then leaves the
        /// previous content and no other name in the directory.
        case cancelledUploadLeavesPreviousContent
        /// With `RemoteCapabilities.exclusiveCreate`: `createExclusively`
        /// creates a missing file, then throws `alreadyExists` over a file and over a directory,
        /// leaving both unchanged. Without it: the call throws `unsupported` and creates nothing.
        case createExclusivelyCreatesOnlyOnce
        /// With `RemoteCapabilities.exclusiveCreate`: of
        /// ``Options/concurrency`` calls creating one path at once (through two stores), exactly
        /// one succeeds, the others throw `alreadyExists`, and the file holds the winner's bytes.
        /// Without it: every call throws `unsupported`.
        case concurrentExclusiveCreatesHaveOneWinner
        /// Downloading a missing path throws `notFound`.
        case downloadOfMissingFileThrowsNotFound
        /// Downloading a directory throws `isADirectory`.
        case downloadOfDirectoryThrowsIsADirectory
        /// Downloading onto an existing, longer local file replaces it exactly.
        case downloadReplacesExistingLocalFile
        /// Downloading into a missing local directory throws `localFile`.
        case downloadToMissingLocalDirectoryThrowsLocalFile
        /// A failed download creates no local file and leaves an existing one unchanged or removed.
        case failedDownloadLeavesNoPartialLocalFile
        /// A cancelled download either completes or throws `CancellationError` and leaves no
        /// local file (an existing one unchanged or removed).
        case cancelledDownloadLeavesNoLocalFile
        /// `downloadImmutableFile` delivers exactly the bytes at 0, 1, 65,536 and 65,537 bytes
        /// and over an existing local file, throws `notFound` for a missing file, and leaves no
        /// local file after a failure.
        case immutableDownloadRoundTripsAndFailsCleanly

        // MARK: copy

        /// A copy has the source's bytes, and the source is unchanged.
        case copyRoundTrip
        /// Replacing or deleting the source after a copy leaves the copy as it was, and the
        /// other way round.
        case copyIsIndependentOfSource
        /// Copying onto an existing file replaces it, with shorter and longer content.
        case copyOverwritesDestination
        /// While a large file is copied onto a destination, readers of the destination see the old
        /// or the new content (or, without atomic replace, no file), never a part.
        case copyIsNeverVisiblePartially
        /// Copying a file onto itself succeeds and leaves it unchanged.
        case copyOntoItselfLeavesFileUnchanged
        /// Copying a missing source throws `notFound` and creates nothing.
        case copyOfMissingSourceThrowsNotFound
        /// Copying into a missing directory throws `notFound`. With
        /// `RemoteCapabilities.implicitDirectories` the copy succeeds, and the
        /// directory then exists and lists the copy.
        case copyIntoMissingDirectoryThrowsNotFound
        /// Copying a directory, or onto a directory, throws `isADirectory`.
        case copyOfDirectoryThrowsIsADirectory

        // MARK: list

        /// `list` returns every file and directory once, with full paths, kinds and file sizes.
        case listReturnsFilesAndDirectoriesWithKinds
        /// `list` returns the direct children only.
        case listIsNotRecursive
        /// `list` never returns the directory itself (a `.` entry), anything outside it, or a
        /// temporary file, also while uploads into it are in flight.
        case listNeverReturnsDotEntriesOrTemporaryFiles
        /// `temporaryFiles(in:)` returns only names with `RemotePath.reservedTemporaryPrefix`,
        /// never a directory, also while an upload is in flight, and none once uploads are done;
        /// deleting a temporary file that is not there succeeds (or is `unsupported`, for stores
        /// that keep none).
        case temporaryFilesAreNeverOrdinaryFiles
        /// `list` of an empty directory returns an empty array.
        case listOfEmptyDirectoryIsEmpty
        /// `list` of a directory of ``Options/largeDirectoryEntryCount`` entries (files and
        /// directories) returns every entry exactly once, with its kind and size: no paging cut.
        case largeDirectoryListsEveryEntryOnce
        /// `list` of a missing directory throws `notFound`.
        case listOfMissingDirectoryThrowsNotFound
        /// `list` of a file throws `notADirectory`.
        case listOfFileThrowsNotADirectory
        /// When `RemoteCapabilities.modificationTimePrecision` is set, `exists`
        /// and `list` report a modification date for every file.
        case modificationDatesAreReportedWhenDeclared

        // MARK: delete

        /// Deleting a missing path succeeds: in an existing directory, in a missing one, below a file.
        case deleteOfMissingPathSucceeds
        /// Deleting a file removes it.
        case deleteRemovesFile
        /// Deleting a directory removes it with everything below it.
        case deleteRemovesDirectoryTree
        /// Deleting a file or a directory leaves its parent and siblings.
        case deleteLeavesSiblings
        /// Deleting the root throws `invalidPath` and deletes nothing.
        case deleteOfRootThrowsInvalidPath

        // MARK: names

        /// Files with hostile names (spaces, `? # % & + ' "`, Unicode) round-trip through upload,
        /// exists, list, download, copy and delete.
        case hostileNamesRoundTrip
        /// Directories with hostile names can be created, filled, listed and deleted.
        case hostileDirectoryNamesRoundTrip
        /// Files and directories whose names start with a dot (`.hidden`, `..double-dot`, `...`)
        /// round-trip like hostile names, and `list` returns them.
        case leadingDotNamesRoundTrip
        /// Names that differ only in case (`Case`, `case`, `CASE`) are distinct files and
        /// directories: each keeps its own content, and deleting one leaves the others.
        case namesDifferingOnlyInCaseAreDistinct
        /// A name typed in NFD and in NFC names the same file, and `list` returns it in NFC.
        case unicodeNormalizationFormsNameTheSameFile
        /// 200-character names (ASCII and multi-byte) work for files and directories.
        case longNamesRoundTrip

        // MARK: concurrency and errors

        /// ``Options/concurrency`` tasks upload distinct files at once; all arrive intact.
        case concurrentUploadsOfDistinctFiles
        /// Lists run while distinct files are uploaded; every list succeeds and shows only
        /// complete files, and the final list shows them all.
        case concurrentListsWhileUploading
        /// ``Options/concurrency`` tasks delete the same tree at once; every call succeeds.
        case concurrentDeletesOfSamePathSucceed
        /// A second store from `makeStore` sees the files and directories written through the
        /// first, the first sees those written through the second, and deletes through either
        /// are seen by the other (skipped when ``Options/storesShareStorage`` is false).
        case secondStoreSeesWritesAndDeletes
        /// Every failure the suite provokes, cancelled calls included, throws a
        /// `RemoteStoreError` or a `CancellationError`, nothing else.
        case onlyRemoteStoreErrorsEscape

        /// The check's name.
        public var description: String { rawValue }
    }
}
