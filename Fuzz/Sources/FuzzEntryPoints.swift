import Foundation

// libFuzzer's entry points. The binary holds every target; `ROLLSYNC_FUZZ_TARGET` names the one a
// run feeds (Scripts/fuzz.sh sets it). libFuzzer supplies `main` and calls these two functions.

/// The target this process feeds, chosen once by ``fuzzerInitialize(_:_:)``.
nonisolated(unsafe) private var selected: FuzzTarget?

/// Called once by libFuzzer before the first input: selects the target, or with
/// `ROLLSYNC_FUZZ_WRITE_SEEDS=DIR` writes the generated seed corpora below `DIR` and exits.
@_cdecl("LLVMFuzzerInitialize")
public func fuzzerInitialize(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>
) -> Int32 {
    let environment = ProcessInfo.processInfo.environment
    if let directory = environment["ROLLSYNC_FUZZ_WRITE_SEEDS"] {
        do {
            try GeneratedSeeds.write(below: URL(fileURLWithPath: directory, isDirectory: true))
            exit(0)
        } catch {
            FileHandle.standardError.write(Data("cannot write the seeds: \(error)\n".utf8))
            exit(1)
        }
    }
    let names = FuzzTarget.all.map(\.name).joined(separator: ", ")
    guard let name = environment["ROLLSYNC_FUZZ_TARGET"], let target = FuzzTarget.all.first(where: { $0.name == name }) else {
        FileHandle.standardError.write(Data("set ROLLSYNC_FUZZ_TARGET to one of: \(names)\n".utf8))
        exit(2)
    }
    selected = target
    return 0
}

/// Called by libFuzzer for every input. A crash, a trap (a failed invariant), a hang or an
/// allocation above libFuzzer's limit is a finding; every parser must answer a typed error
/// instead. With `ROLLSYNC_FUZZ_EXPECT_VALID=1` (the seed check) an input the target refuses is
/// a finding too: a seed the format no longer accepts is stale.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzerTestOneInput(_ bytes: UnsafePointer<UInt8>?, _ count: Int) -> Int32 {
    guard let target = selected else { return 0 }
    let input = Data(UnsafeBufferPointer(start: bytes, count: count))
    let outcome = target.feed(input)
    // libFuzzer runs an empty input before the corpus: not a seed.
    if case .refused(let reason) = outcome, count > 0, ProcessInfo.processInfo.environment["ROLLSYNC_FUZZ_EXPECT_VALID"] == "1" {
        fatalError("\(target.name): a seed was refused: \(reason)")
    }
    return 0
}
