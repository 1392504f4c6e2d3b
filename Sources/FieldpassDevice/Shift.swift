public import Foundation

/// A worker's time on a shared device, as Fieldpass tells it.
public struct Shift: Sendable, Equatable, Decodable {
    public let shiftID: String
    public let userID: String
    public let email: String
    public let startedAt: Date

    enum CodingKeys: String, CodingKey {
        case email
        case shiftID = "shift_id"
        case userID = "user_id"
        case startedAt = "started_at"
    }

    /// Fieldpass's times: ISO 8601, UTC.
    static let decoder: JSONDecoder = {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return decoder
    }()
}
