import FieldpassDomain
import GRDB

extension StoreUnavailable {
    /// `error` as an unavailability of the store, or nil when it is something else. For
    /// SQLite that is a file that cannot be written (a full disk, a file size limit, a
    /// read-only file or mount), cannot be opened, or stays locked past the busy timeout;
    /// not an error of the request itself, such as a constraint.
    init?(classifying error: any Error) {
        if let error = error as? StoreUnavailable {
            self = error
            return
        }
        guard let error = error as? DatabaseError else { return nil }
        switch error.resultCode.primaryResultCode {
        case .SQLITE_FULL: self.init("SQLite: disk full")
        case .SQLITE_IOERR: self.init("SQLite: I/O error")
        case .SQLITE_READONLY: self.init("SQLite: database is read-only")
        case .SQLITE_CANTOPEN: self.init("SQLite: cannot open the database file")
        case .SQLITE_BUSY, .SQLITE_LOCKED: self.init("SQLite: database is locked")
        // SQLite rolls a transaction back by itself after a failed write; what GRDB then
        // reports is the abort, not the I/O error behind it.
        case .SQLITE_ABORT: self.init("SQLite: transaction aborted after a failed write")
        default: return nil
        }
    }
}
