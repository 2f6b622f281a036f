#if canImport(Glibc)
import Glibc
#endif

/// Which sanitizer this test binary was built with (`swift build --sanitize=…`), found by looking
/// for the sanitizer's runtime in the process.
public enum Sanitizers {
    /// True when AddressSanitizer instruments this process.
    public static let address = dlsym(nil, "__asan_init") != nil
    /// True when ThreadSanitizer instruments this process.
    public static let thread = dlsym(nil, "__tsan_init") != nil

    /// False under either sanitizer: their shadow memory (and ASan's quarantine of freed blocks)
    /// make resident-memory measurements meaningless, so memory bounds are not asserted then (the
    /// round trips still run and are compared byte for byte).
    public static var memoryCanBeMeasured: Bool { !address && !thread }
}
