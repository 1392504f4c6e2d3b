/// A device's refresh tokens not revoked yet, rotated ones too, revoked because a sign-in of
/// the device replaces them: a grace retry of the last sign-in's must not outlive the new one.
package struct SupersededRefreshTokens: Sendable, Equatable {
    package var deviceID: String
    package var at: Double

    package init(deviceID: String, at time: Double) {
        self.deviceID = deviceID
        self.at = time
    }
}
