/// The cost of the scrypt verifier a shared device keeps of each worker's PIN for offline
/// sign-in (``SharedDevice/signInOffline(badge:pin:now:)``): what a thief of the device must pay
/// for every PIN guessed, with the worker's card in hand. Each verifier keeps the parameters it
/// was made with, so changing them affects only the permits kept from then on.
public struct ScryptParameters: Codable, Sendable, Equatable {
    /// N, the CPU and memory cost: a power of two.
    public let cost: Int
    /// r, the block size.
    public let blockSize: Int
    /// p, the parallelism.
    public let parallelism: Int

    /// Throws ``OfflineSignInError/invalidParameters`` unless `cost` is a power of two above 1
    /// and the others are at least 1.
    public init(cost: Int, blockSize: Int, parallelism: Int) throws {
        guard cost > 1, cost & (cost - 1) == 0, blockSize >= 1, parallelism >= 1 else {
            throw OfflineSignInError.invalidParameters
        }
        self.cost = cost
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    private init(checked cost: Int, _ blockSize: Int, _ parallelism: Int) {
        self.cost = cost
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// N = 2^15, r = 8, p = 1: 32 MiB of memory for every PIN tried. Twice the server's own
    /// PIN hash (N = 2^14), whose lockout counts every try at Fieldpass; the verifier on a
    /// stolen device has nothing but its cost.
    public static let standard = ScryptParameters(checked: 1 << 15, 8, 1)

    /// Checked as ``init(cost:blockSize:parallelism:)`` checks them: they come from a file.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        try self.init(
            cost: try container.decode(Int.self, forKey: .cost), blockSize: try container.decode(Int.self, forKey: .blockSize),
            parallelism: try container.decode(Int.self, forKey: .parallelism))
    }

    enum CodingKeys: String, CodingKey {
        case cost = "n"
        case blockSize = "r"
        case parallelism = "p"
    }
}
