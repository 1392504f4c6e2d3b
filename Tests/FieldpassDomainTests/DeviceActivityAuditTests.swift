import Testing
@testable import FieldpassDomain

@Suite("Device activity in the audit log, without a database")
struct DeviceActivityAuditTests {
    static let grant = RefreshGrant(userID: "u1", deviceID: "d1", environmentID: "acme")
    /// 2026-11-29T00:00:00Z and the last second of that day.
    static let midnight = 1_795_910_400.0
    static let lastSecond = midnight + DeviceActivityAudit.day - 1

    @Test func aDevicesFirstSignInCreatesItThenSignsIn() {
        let first = DeviceActivityAudit.signIn(userID: "u1", deviceID: "d1", name: "Van 12", platform: "ios", signedInBefore: false)
        #expect(first.map(\.action) == ["device.create", "device.sign_in"])
        #expect(first[0].after == ["device_id": "d1", "name": "Van 12", "platform": "ios"])
        #expect(first.allSatisfy { $0.actor == "user:u1" && $0.target == "user:u1" })
        let again = DeviceActivityAudit.signIn(userID: "u1", deviceID: "d1", name: "Van 12", platform: "ios", signedInBefore: true)
        #expect(again == [.deviceSignedIn(userID: "u1", deviceID: "d1")])
    }

    @Test(arguments: [
        (lastSeen: Optional(midnight), now: lastSecond, audited: false),
        (lastSeen: Optional(midnight - 1), now: midnight, audited: true),
        (lastSeen: Optional(lastSecond), now: lastSecond + 1, audited: true),
        (lastSeen: nil, now: midnight, audited: true),
    ])
    func aRefreshIsAuditedOnceADayAtMost(lastSeen: Double?, now: Double, audited: Bool) {
        let entry = DeviceActivityAudit.refresh(Self.grant, lastSeenAt: lastSeen, now: now)
        #expect(entry == (audited ? .tokenRefreshed(Self.grant) : nil))
    }

    @Test func aDeviceRefreshingEveryQuarterHourWritesOneEntryADay() {
        var lastSeen = Self.midnight - 600
        var entries = 0
        for quarter in 0..<(4 * 24 * 3) {
            let now = Self.midnight + Double(quarter) * 900
            if DeviceActivityAudit.refresh(Self.grant, lastSeenAt: lastSeen, now: now) != nil { entries += 1 }
            lastSeen = now
        }
        #expect(entries == 3)
    }
}
