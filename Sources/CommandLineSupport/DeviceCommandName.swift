/// The commands that play a device (`onboard`, `tablet`). They run in `fieldpass-device`, which
/// `fieldpass` hands them to; both name them from here, so the two lists cannot drift apart.
package struct DeviceCommandName: Sendable {
    package let name: String
    package let abstract: String

    package static let onboard = DeviceCommandName(name: "onboard", abstract: "Onboard a device as a field worker's app would.")
    package static let tablet = DeviceCommandName(
        name: "tablet",
        abstract:
            "Play a crew's shared tablet: enroll it, sign a worker in with a badge (online or not), report offline shifts, follow the shifts, end one."
    )
    package static let all = [onboard, tablet]
}
