/// Which device a registration signs in: one installation of the app is one device, never
/// matched by its name or platform (since iOS 16 every iPhone calls itself "iPhone").
package struct RegisteredDevice: Sendable, Equatable {
    /// The installation whose live device of the person, if there is one, the registration is
    /// again; `nil` when the registration names none, and so is always a new device.
    package var reusedInstallation: String?
    /// The device's id when no live device is used again.
    package var newID: String

    package init(reusedInstallation: String?, newID: String) {
        self.reusedInstallation = reusedInstallation
        self.newID = newID
    }

    /// The device of `registration`, with `newID` for a new one.
    package static func of(_ registration: DeviceRegistration, newID: String) -> RegisteredDevice {
        RegisteredDevice(reusedInstallation: registration.installID, newID: newID)
    }

    /// The installation whose live device the store reads for ``id(live:)``, if any: none for
    /// a person the registration has just created, who has no device yet.
    package func installationToFind(personCreated: Bool) -> String? {
        personCreated ? nil : reusedInstallation
    }

    /// The device's id, given the live device of ``reusedInstallation`` the store found.
    package func id(live: String?) -> String {
        live ?? newID
    }
}
