import FieldpassDomain
import Foundation
import Hummingbird

/// `{"devices": [...]}`: a person's devices as `/me/devices` and the admin API show them.
struct DeviceList: ResponseEncodable {
    struct Device: Encodable {
        var id: String
        var name: String
        var platform: String
        var createdAt: Date
        /// The last registration, sign-in or refresh.
        var lastSeenAt: Date
        /// The first sign-in; absent while the installation has never signed in.
        var signedInAt: Date?
        var revokedAt: Date?
        var active: Bool
        /// Whether this is the device whose token made the request.
        var current: Bool

        enum CodingKeys: String, CodingKey {
            case id, name, platform, active, current
            case createdAt = "created_at"
            case lastSeenAt = "last_seen_at"
            case signedInAt = "signed_in_at"
            case revokedAt = "revoked_at"
        }
    }

    var devices: [Device]

    init(_ records: [DeviceRecord], currentDeviceID: String?) {
        devices = records.map { record in
            Device(
                id: record.id, name: record.name, platform: record.platform, createdAt: record.createdAt,
                lastSeenAt: record.lastSeenAt, signedInAt: record.signedInAt, revokedAt: record.revokedAt, active: record.revokedAt == nil,
                current: record.id == currentDeviceID
            )
        }
    }
}
