public import Foundation

#if canImport(FoundationNetworking)
public import FoundationNetworking
#endif

/// A device a crew shares, such as a van's tablet: enrolled once with the code an admin (or
/// the team's manager) was shown, and from then on known to Fieldpass by its DPoP key, which
/// proves every call it makes. Keep the key for as long as the device stays enrolled
/// (``FileDPoPKeyStore``, or the platform's keychain): a new key is a new device, which needs
/// a new code.
public struct SharedDevice: Sendable {
    /// Who Fieldpass knows the device as, once enrolled.
    public struct Identity: Sendable, Equatable, Decodable {
        public let deviceID: String
        /// The id of the company's environment the device belongs to.
        public let environment: String

        enum CodingKeys: String, CodingKey {
            case environment
            case deviceID = "device_id"
        }
    }

    private let http: FieldpassHTTP

    public init(server: URL, key: any DPoPKey, session: URLSession = .shared) {
        http = FieldpassHTTP(server: server, session: session, prover: DPoPProver(key: key))
    }

    /// Redeems the one-time enrollment code (as shown, typed or scanned: case, spaces and
    /// dashes do not matter) with a proof of the device's key. A wrong, used or expired code,
    /// or a key that enrolled a device before, throws `FieldpassClientError.server(400,
    /// "invalid_grant", _)`.
    public func enroll(code: String) async throws -> Identity {
        let (status, body) = try await http.postJSON("shared_devices/enroll", ["enrollment_code": code])
        guard status == 200 else { throw FieldpassHTTP.failure(status: status, body: body) }
        return try JSONDecoder().decode(Identity.self, from: body)
    }
}
