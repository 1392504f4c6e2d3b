/// What a person's offboarding is decided on: their devices not revoked yet, and their open
/// shifts on shared devices, as the change's transaction read them under the person's lock.
package struct PersonDevices: Sendable, Equatable {
    package var live: [String]
    package var openShifts: [ShiftRecord]

    package init(live: [String], openShifts: [ShiftRecord] = []) {
        self.live = live
        self.openShifts = openShifts
    }
}
