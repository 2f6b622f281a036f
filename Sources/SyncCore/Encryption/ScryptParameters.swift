import Dispatch
import CryptoPrimitives

/// The cost parameters of the scrypt key derivation that turns a password into the key wrapping
/// an application's data key.
///
/// They are stored (with the salt) beside the wrapped key, so every client derives the same key
/// whatever its own defaults; the client that sets or changes the password chooses them.
/// Parameters read from the remote are accepted only within bounds, so a damaged or hostile key
/// file cannot make a client allocate gigabytes or work for minutes: log2 N from 10 to 22, r from
/// 1 to 32 and p from 1 to 16, *and* at most 1 GiB of memory (`128 · r · N` bytes) and at most
/// `N · r · p = 2^24` block operations, sixteen times ``recommended`` (which needs 128 MiB and about
/// half a second).
public struct ScryptParameters: Codable, Sendable, Hashable, CustomStringConvertible {
    /// The base-2 logarithm of scrypt's cost `N` (memory and time grow as `2^log2N`).
    public let log2N: Int
    /// scrypt's block size `r`.
    public let r: Int
    /// scrypt's parallelism `p`.
    public let p: Int

    /// The parameters of new and changed passwords: `N = 2^17, r = 8, p = 1` (128 MiB; 0.4–0.6 s of
    /// one core on the project's x86-64 test machine with OpenSSL 3.0, more when that machine is
    /// busy; see the EncryptionBenchmark).
    public static let recommended = ScryptParameters(checkedLog2N: 17, r: 8, p: 1)

    /// Cheap parameters (`N = 2^10`) for test suites only: a password protected with them can be
    /// guessed thousands of times faster. Never use them for real data.
    public static let weakForTestingOnly = ScryptParameters(checkedLog2N: 10, r: 8, p: 1)

    /// The range of ``log2N`` accepted from a key file.
    package static let acceptedLog2N = 10...22
    /// The range of ``r`` accepted from a key file.
    package static let acceptedR = 1...32
    /// The range of ``p`` accepted from a key file.
    package static let acceptedP = 1...16

    /// The most memory a derivation may need: `128 · r · N` bytes.
    package static let maximumMemoryByteCount = 1 << 30
    /// The most work a derivation may ask for, as `N · r · p`.
    package static let maximumWork = 1 << 24

    /// Parameters within the accepted ranges, memory and work (see the type); `nil` otherwise.
    public init?(log2N: Int, r: Int, p: Int) {
        guard Self.acceptedLog2N.contains(log2N), Self.acceptedR.contains(r), Self.acceptedP.contains(p),
            128 * r << log2N <= Self.maximumMemoryByteCount, r * p << log2N <= Self.maximumWork
        else {
            return nil
        }
        self.init(checkedLog2N: log2N, r: r, p: p)
    }

    private init(checkedLog2N: Int, r: Int, p: Int) {
        log2N = checkedLog2N
        self.r = r
        self.p = p
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let log2N = try container.decode(Int.self, forKey: .log2N)
        let r = try container.decode(Int.self, forKey: .r)
        let p = try container.decode(Int.self, forKey: .p)
        guard let parameters = ScryptParameters(log2N: log2N, r: r, p: p) else {
            throw DecodingError.dataCorruptedError(
                forKey: .log2N,
                in: container,
                debugDescription: "scrypt parameters log2N=\(log2N) r=\(r) p=\(p) are outside the accepted ranges, memory (1 GiB) or work (N·r·p ≤ 2^24)"
            )
        }
        self = parameters
    }

    public var description: String { "scrypt(N=2^\(log2N), r=\(r), p=\(p))" }

    /// Derives a 256-bit key from `password` and `salt`, on a thread outside Swift's cooperative
    /// pool (a derivation keeps one core busy for up to a second).
    /// - Throws: ``CryptoFailure`` if the derivation fails (for example out of memory).
    package func deriveKey(from password: EncryptionPassword, salt: [UInt8]) async throws -> [UInt8] {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .userInitiated).async {
                continuation.resume(with: Result { try self.deriveKeyNow(from: password, salt: salt) })
            }
        }
    }

    /// Derives the key on the calling thread.
    private func deriveKeyNow(from password: EncryptionPassword, salt: [UInt8]) throws -> [UInt8] {
        try Scrypt.deriveKey(password: password.bytes, salt: salt, log2N: log2N, r: r, p: p, outputByteCount: DataKey.byteCount)
    }
}
