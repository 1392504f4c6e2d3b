/// Something a console table names, as a person reads it (a person by email, a team or a
/// device by name), with the id Fieldpass knows it by one click away: the `named` partial
/// shows the name as a disclosure whose content is the id, as the API and the logs write it,
/// and a link to its page where it has one. A plain value has no id.
struct ConsoleNamed: Sendable {
    let name: ConsoleText
    let ref: Ref?

    struct Ref: Sendable {
        let id: String
        /// Its page in the console, for what has one and still exists.
        let link: String?
    }

    init(_ name: String, id: String? = nil, link: String? = nil) {
        self.name = ConsoleText(name)
        ref = id.map { Ref(id: $0, link: link) }
    }

    /// An id with no name: a shortened form of it, the whole one click away.
    static func id(_ id: String) -> ConsoleNamed {
        ConsoleNamed(id.count > 10 ? String(id.prefix(8)) + "…" : id, id: id)
    }
}
