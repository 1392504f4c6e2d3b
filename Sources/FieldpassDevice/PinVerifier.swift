import Crypto
import CryptoExtras
import Foundation

/// What a shared device keeps of a worker's PIN to check it offline: scrypt over the badge and
/// the PIN, with a salt of its own and the parameters it was made with. The badge is in it so
/// that the verifier alone, copied off the device, cannot be tried PIN by PIN: 256 random bits
/// stand in the way. With the card too, each PIN tried costs a whole scrypt.
struct PinVerifier: Codable, Sendable, Equatable {
    let parameters: ScryptParameters
    let salt: Data
    let hash: Data

    private static let hashLength = 32

    /// A verifier of `pin` for `badge`, with a new random salt.
    init(badge: String, pin: String, parameters: ScryptParameters) throws {
        self.parameters = parameters
        salt = Data.random(count: 16)
        hash = try Self.derive(badge: badge, pin: pin, salt: salt, parameters: parameters)
    }

    /// Whether `pin` is the one the verifier was made of, compared in constant time. A verifier
    /// whose parameters scrypt refuses matches nothing.
    func matches(badge: String, pin: String) -> Bool {
        guard let tried = try? Self.derive(badge: badge, pin: pin, salt: salt, parameters: parameters),
            tried.count == hash.count
        else { return false }
        return zip(tried, hash).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// scrypt over the badge and the PIN, each preceded by its length, under a label of
    /// Fieldpass's own: no other value of the device hashes to the same input.
    private static func derive(badge: String, pin: String, salt: Data, parameters: ScryptParameters) throws -> Data {
        var input = Data("fieldpass offline pin v1".utf8)
        for part in [badge, pin] {
            let bytes = Data(part.utf8)
            input.append(contentsOf: withUnsafeBytes(of: UInt32(bytes.count).bigEndian, Array.init))
            input.append(bytes)
        }
        let key = try KDF.Scrypt.deriveKey(
            from: input, salt: salt, outputByteCount: hashLength, rounds: parameters.cost, blockSize: parameters.blockSize,
            parallelism: parameters.parallelism)
        return key.withUnsafeBytes { Data($0) }
    }

    enum CodingKeys: String, CodingKey {
        case salt, hash
        case parameters = "scrypt"
    }
}
