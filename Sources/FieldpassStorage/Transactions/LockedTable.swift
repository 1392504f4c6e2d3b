/// The tables whose rows a transaction locks to decide on them, in the one order every
/// transaction takes their locks: a transaction that takes a lock out of this order could
/// deadlock against one that keeps it, so the PostgreSQL transaction refuses it (see
/// ``PostgresTransaction``). Rows of one table are locked in one statement, in id order.
/// SQLite's single writer holds every lock at once and ignores these.
enum LockedTable: Int, Comparable, Sendable {
    case scimGroups
    case users
    case teams
    case badges
    case sharedDevices
    case sessions
    case realms
    case refreshTokens

    static func < (lhs: LockedTable, rhs: LockedTable) -> Bool { lhs.rawValue < rhs.rawValue }
}
