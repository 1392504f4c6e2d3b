/// How the device is named on the confirmation page and in the admin's device list.
public struct DeviceInfo: Sendable, Equatable {
    /// A name a person recognises, such as "Van 12" (1 to 100 characters).
    public var name: String
    /// A short tag: `ios`, `android`, `cli`, ...
    public var platform: String

    /// What the client sends when the app names no device, as Fieldpass records one without.
    static let unnamed = DeviceInfo(name: "Unnamed device", platform: "unknown")

    public init(name: String, platform: String) {
        self.name = name
        self.platform = platform
    }
}
